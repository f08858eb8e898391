// What ships in the images (bin/, runtime/, handlers/, domain/, schema/, ui/server.ts) imports
// nothing from dev/, tests/ or scripts/: the local control plane, the demo, benchmark helpers and
// test fixtures stay out of the agent (issue 26). Every module specifier is resolved as Node would
// resolve a relative one, so `../../dev/x.ts` is caught however deep the importer sits.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';

const ROOT = resolve(import.meta.dirname, '../..');
const SHIPPED = ['bin', 'runtime', 'handlers', 'domain', 'schema', 'ui/server.ts'];
const FORBIDDEN = ['dev', 'tests', 'scripts'];

function sourceFiles(path: string): string[] {
  const abs = join(ROOT, path);
  if (/\.(ts|js)$/.test(path)) return [abs];
  return readdirSync(abs, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(ts|js)$/.test(f))
    .map((f) => join(abs, f));
}

/** Relative specifiers of static imports, re-exports, dynamic imports and `new URL(…, import.meta.url)`. */
export function relativeSpecifiers(source: string): string[] {
  const found: string[] = [];
  const patterns = [/\bfrom\s+['"](\.{1,2}\/[^'"]+)['"]/g, /\bimport\s*\(\s*['"](\.{1,2}\/[^'"]+)['"]/g, /\bimport\s+['"](\.{1,2}\/[^'"]+)['"]/g, /new\s+URL\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*,\s*import\.meta\.url/g];
  for (const pattern of patterns) for (const m of source.matchAll(pattern)) found.push(m[1] ?? '');
  return found;
}

test('the specifier scan sees every import form (so the check below can fail)', () => {
  const sample = [
    "import { up } from '../../dev/localcluster/cluster.ts';",
    "export { x } from '../tests/support/app.ts';",
    "const m = await import('../../scripts/bench.ts');",
    "import '../dev/side-effect.ts';",
    "const u = new URL('../../dev/cli/commands.ts', import.meta.url);",
    "import { ok } from 'node:assert';",
  ].join('\n');
  assert.deepEqual(relativeSpecifiers(sample).sort(), ['../../dev/cli/commands.ts', '../../dev/localcluster/cluster.ts', '../../scripts/bench.ts', '../dev/side-effect.ts', '../tests/support/app.ts'].sort());
});

test('shipped code imports nothing from dev/, tests/ or scripts/', () => {
  const offenders: string[] = [];
  for (const path of SHIPPED) {
    for (const file of sourceFiles(path)) {
      // bin/capstan.js adds dev/'s commands only where dev/ exists (a clone, never an image).
      if (relative(ROOT, file) === join('bin', 'capstan.js')) continue;
      for (const spec of relativeSpecifiers(readFileSync(file, 'utf8'))) {
        const target = relative(ROOT, resolve(dirname(file), spec)).split(/[\\/]/)[0] ?? '';
        if (FORBIDDEN.includes(target)) offenders.push(`${relative(ROOT, file)} → ${spec}`);
      }
    }
  }
  assert.deepEqual(offenders, []);
});

test('bin/capstan.js reaches dev/ only behind an existence check', () => {
  const bin = readFileSync(join(ROOT, 'bin/capstan.js'), 'utf8');
  assert.match(bin, /existsSync\(devCommands\)/);
});
