// Hand-made diagnosis findings and pods for the tests of the engine's surfaces (the analyzers
// have their own tests over real objects).
import type { PodObject } from '../../domain/cluster/model.ts';
import type { DraftFinding } from '../../domain/diagnosis/input.ts';
import type { Severity } from '../../schema/common.ts';

/** A finding on `object` (a node id) with `code`, suspecting `suspects`, with one evidence line per id in `evidenceOn`. */
export function draft(object: string, code: string, severity: Severity, suspects: string[] = [], evidenceOn: string[] = []): DraftFinding {
  const rest = object.slice(object.indexOf(':') + 1);
  return {
    id: `${object}#${code}`,
    code,
    severity,
    object,
    namespace: rest.includes('/') ? rest.slice(0, rest.indexOf('/')) : null,
    summary: `${code} on ${rest}`,
    evidence: evidenceOn.map((node_id) => ({ node_id, fact: 'a fact', source: 'status' as const, link: null })),
    since: null,
    attributes: {},
    suspects,
  };
}

/** A running, ready bare pod on node n1. */
export function pod(namespace: string, name: string): PodObject {
  return {
    namespace, name, phase: 'Running', createdAt: null, startedAt: null, nodeName: 'n1', labels: {},
    workload: { kind: 'Pod', name }, owner: null, refs: { configMaps: [], secrets: [], pvcs: [] }, envHosts: [],
    ready: true, readySince: null, unschedulable: null, containers: [], statuses: [], initContainers: [], initStatuses: [],
    statusReason: null, deletion: null, finalizers: [], nodeSelector: {},
  };
}

