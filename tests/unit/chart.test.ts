// The Helm chart's files that need no cluster and no helm: the README's values reference is what
// the schema generates, the chart's version is package.json's, values.yaml and the schema
// describe the same values, and the schema's namespace blocklist is the agent's.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { BLOCKED_NAMESPACE_PREFIXES, BLOCKED_NAMESPACES } from '../../domain/namespaces/visibility.ts';
import { CHART_DIR, chartReadmeFromDisk, schemaLeaves, valuesReference, type SchemaNode } from '../../scripts/generate-chart-readme.ts';

const schema = JSON.parse(readFileSync(`${CHART_DIR}values.schema.json`, 'utf8')) as SchemaNode;
const values: unknown = parse(readFileSync(`${CHART_DIR}values.yaml`, 'utf8'));

/** Dotted paths of values.yaml's leaves; maps and lists count as one value, as in the schema. */
function valuePaths(value: unknown, prefix: string, wholes: ReadonlySet<string>): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || wholes.has(prefix)) return [prefix];
  return Object.entries(value).flatMap(([key, sub]) => valuePaths(sub, prefix === '' ? key : `${prefix}.${key}`, wholes));
}

describe('chart/README.md values reference', () => {
  it('is what the schema and values.yaml generate', () => {
    const { current, expected } = chartReadmeFromDisk();
    assert.equal(current, expected, 'run `npm run generate:chart-readme` after changing chart/values.schema.json or chart/values.yaml');
  });

  it('lists pending values with their reason and removed ones apart, escaping pipes', () => {
    const tiny: SchemaNode = {
      type: 'object',
      properties: {
        a: { type: 'object', properties: { b: { type: 'string', enum: ['x|y', 'z'], description: 'one | two', 'x-capstan-pending': 'later' } } },
        n: { type: 'integer', minimum: 1, maximum: 3, description: 'n' },
        old: { description: 'removed: no effect', 'x-capstan-removed': true },
      },
    };
    const text = valuesReference(tiny, { a: { b: 'z' }, n: 2 });
    assert.match(text, /\| `a\.b` \| string \| `z` \| one \\\| two; one of `x\\\|y`, `z` \|/);
    assert.match(text, /\| `n` \| integer \| `2` \| n; 1–3 \|/);
    assert.match(text, /\| `a\.b` \| later \|/);
    assert.match(text, /- `old`: removed: no effect/);
    assert.doesNotMatch(text, /\| `old` \|/, 'a removed value is not in the values table');
  });
});

describe('chart metadata and values', () => {
  it('takes version and appVersion from package.json', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    const chart = parse(readFileSync(`${CHART_DIR}Chart.yaml`, 'utf8')) as { apiVersion: string; name: string; version: string; appVersion: string };
    assert.deepEqual({ apiVersion: chart.apiVersion, name: chart.name, version: chart.version, appVersion: chart.appVersion }, { apiVersion: 'v2', name: 'capstan', version: pkg.version, appVersion: pkg.version });
  });

  it('has a schema entry for every value in values.yaml and a default for every schema value', () => {
    const leaves = schemaLeaves(schema, values).filter((l) => l.node['x-capstan-removed'] !== true);
    const schemaPaths = leaves.map((l) => l.path).sort();
    const wholes = new Set(leaves.filter((l) => l.resolved.type === 'object' || l.node.$ref !== undefined).map((l) => l.path));
    assert.deepEqual(valuePaths(values, '', wholes).sort(), schemaPaths);
    for (const leaf of leaves) assert.ok(leaf.node.description ?? leaf.resolved.description, `${leaf.path} has no description`);
  });

  it('refuses exactly the namespaces the agent always hides', () => {
    const ns = schema.definitions?.namespace as SchemaNode & { not: { anyOf: [{ enum: string[] }, { pattern: string }] } };
    assert.deepEqual([...ns.not.anyOf[0].enum].sort(), [...BLOCKED_NAMESPACES].sort());
    assert.equal(ns.not.anyOf[1].pattern, `^(${BLOCKED_NAMESPACE_PREFIXES.join('|')})`);
  });

  it('keeps every sizing preset inside the schema\'s value names', () => {
    const known = new Set(schemaLeaves(schema, values).map((l) => l.path));
    for (const preset of ['small', 'medium', 'large']) {
      const file = parse(readFileSync(`${CHART_DIR}presets/${preset}.yaml`, 'utf8')) as unknown;
      const wholes = new Set([...known].filter((p) => p === 'resources' || p.endsWith('.resources')));
      for (const path of valuePaths(file, '', wholes)) assert.ok(known.has(path), `presets/${preset}.yaml sets ${path}, which the chart does not have`);
    }
  });

  it('keeps the medium preset equal to the defaults it says it is, value for value', () => {
    const medium = parse(readFileSync(`${CHART_DIR}presets/medium.yaml`, 'utf8')) as unknown;
    const at = (root: unknown, path: string): unknown => path.split('.').reduce<unknown>((node, key) => (typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined), root);
    const paths = valuePaths(medium, '', new Set());
    assert.ok(paths.length > 0, 'presets/medium.yaml sets something');
    for (const path of paths) assert.deepEqual(at(medium, path), at(values, path), `presets/medium.yaml ${path} differs from values.yaml`);
  });
});
