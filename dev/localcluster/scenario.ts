import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as v from 'valibot';
import { parseAllDocuments, stringify } from 'yaml';

export const SCENARIO_DIR = fileURLToPath(new URL('../../tests/scenarios/', import.meta.url));

const Quantity = v.union([v.string(), v.number()]);

/** What KWOK serves as containers' logs (`kubectl logs`, and `--previous` when `previous` is set). */
export const ContainerLogs = v.array(
  v.object({
    /** Container names this entry serves; omitted = every other container. */
    containers: v.optional(v.array(v.string())),
    current: v.string(),
    previous: v.optional(v.string()),
  }),
);

/** The optional first document of a scenario file: everything that is not a Kubernetes object. */
const ScenarioHeader = v.object({
  apiVersion: v.literal('capstan.dev/v1alpha1'),
  kind: v.literal('Scenario'),
  metadata: v.object({ name: v.string() }),
  spec: v.object({
    nodes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(250)), 3),
    nodeCapacity: v.optional(
      v.object({ cpu: Quantity, memory: Quantity, pods: Quantity }),
      { cpu: '32', memory: '128Gi', pods: '110' },
    ),
    logs: v.optional(ContainerLogs, []),
  }),
});

export type ScenarioSpec = v.InferOutput<typeof ScenarioHeader>['spec'];

/** What a cluster gets with no scenario: every default of the Scenario header. */
export function defaultScenarioSpec(): ScenarioSpec {
  return v.parse(ScenarioHeader.entries.spec, {});
}

export interface Scenario {
  name: string;
  spec: ScenarioSpec;
  /** Every Kubernetes object of the file, as one multi-document YAML for `kubectl apply`. */
  manifests: string;
  /** The same objects one YAML document each, in file order, for applying in batches. */
  documents: string[];
  objectCount: number;
}

/** `demo` resolves to tests/scenarios/demo.yaml; anything with a slash or .yaml is a path. */
export function resolveScenarioPath(nameOrPath: string): string {
  if (nameOrPath.includes('/') || nameOrPath.endsWith('.yaml') || nameOrPath.endsWith('.yml')) return nameOrPath;
  return `${SCENARIO_DIR}${nameOrPath}.yaml`;
}

export function loadScenario(nameOrPath: string): Scenario {
  const path = resolveScenarioPath(nameOrPath);
  if (!existsSync(path)) throw new Error(`scenario not found: ${path}`);
  const docs = parseAllDocuments(readFileSync(path, 'utf8'));
  const objects: unknown[] = [];
  let header: v.InferOutput<typeof ScenarioHeader> | null = null;
  for (const [index, doc] of docs.entries()) {
    if (doc.errors.length > 0) throw new Error(`${path}: document ${index + 1}: ${doc.errors[0]?.message ?? 'invalid YAML'}`);
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    if (typeof value === 'object' && 'kind' in value && value.kind === 'Scenario') {
      const parsed = v.safeParse(ScenarioHeader, value);
      if (!parsed.success) {
        const issue = parsed.issues[0];
        throw new Error(`${path}: Scenario ${v.getDotPath(issue) ?? ''}: ${issue.message}`);
      }
      header = parsed.output;
    } else {
      objects.push(value);
    }
  }
  const fallbackName = path.split('/').pop()?.replace(/\.ya?ml$/, '') ?? 'scenario';
  const spec = header?.spec ?? defaultScenarioSpec();
  const documents = objects.map((o) => stringify(o));
  return {
    name: header?.metadata.name ?? fallbackName,
    spec,
    manifests: documents.join('---\n'),
    documents,
    objectCount: objects.length,
  };
}
