// What every analyzer reads: one snapshot of the cluster view plus the indexes analyzers
// share, built once per diagnosis so each analyzer stays linear in the cluster's size.
import type { ClusterView, ControllerObject, EventObject, LogHost, NodeObject, PodObject } from '../cluster/model.ts';
import type { Finding } from '../../schema/diagnosis.ts';

/**
 * A finding as an analyzer emits it: the engine sets `caused_by` while chaining.
 * `suspects`: node ids of the objects that may cause it, most likely first (a Deployment's
 * ReplicaSet, a ReplicaSet's quota, a pod's node or the Secret it misses); the engine links
 * it to the finding on the first suspect that has one. Evidence is what is shown; suspects
 * are what may explain it.
 */
export type DraftFinding = Omit<Finding, 'caused_by'> & { suspects: string[] };

/** An analyzer: pure, cached state in, findings out. Chaining is the engine's job. */
export type Analyzer = (input: DiagnosisInput) => DraftFinding[];

export interface DiagnosisInput {
  view: ClusterView;
  now: Date;
  /** Events keyed by `eventKey(kind, namespace, name)`; cluster-scoped objects use namespace ''. */
  eventsByObject: ReadonlyMap<string, readonly EventObject[]>;
  /** Pods keyed by `ownerKey(namespace, kind, name)` of their direct controller. */
  podsByOwner: ReadonlyMap<string, readonly PodObject[]>;
  podsByNamespace: ReadonlyMap<string, readonly PodObject[]>;
  podsByNode: ReadonlyMap<string, readonly PodObject[]>;
  /** ReplicaSets, StatefulSets, Jobs and CronJobs keyed by `ownerKey` of their owner (a Deployment's ReplicaSets, a CronJob's Jobs). */
  controllersByOwner: ReadonlyMap<string, readonly ControllerObject[]>;
  nodesByName: ReadonlyMap<string, NodeObject>;
  /** Hosts the previous instances of crashed containers named in their last log lines, keyed `podKey(namespace, name)`. */
  crashLogHosts: ReadonlyMap<string, readonly LogHost[]>;
}

export const podKey = (namespace: string, name: string): string => `${namespace}/${name}`;
const NO_LOG_HOSTS: ReadonlyMap<string, readonly LogHost[]> = new Map();

export const eventKey = (kind: string, namespace: string, name: string): string => `${kind}/${namespace}/${name}`;
export const ownerKey = (namespace: string, kind: string, name: string): string => `${namespace}/${kind}/${name}`;

function group<T>(items: readonly T[], key: (item: T) => string | null): Map<string, T[]> {
  const index = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    if (k === null) continue;
    const list = index.get(k);
    if (list) list.push(item);
    else index.set(k, [item]);
  }
  return index;
}

export function diagnosisInput(view: ClusterView, now: Date, crashLogHosts: ReadonlyMap<string, readonly LogHost[]> = NO_LOG_HOSTS): DiagnosisInput {
  const pods = view.pods();
  return {
    view,
    now,
    eventsByObject: group(view.events(), (e) => eventKey(e.involvedKind, e.involvedNamespace, e.involvedName)),
    podsByOwner: group(pods, (p) => (p.owner ? ownerKey(p.namespace, p.owner.kind, p.owner.name) : null)),
    podsByNamespace: group(pods, (p) => p.namespace),
    podsByNode: group(pods, (p) => p.nodeName),
    controllersByOwner: group(view.controllers(), (c) => (c.owner ? ownerKey(c.namespace, c.owner.kind, c.owner.name) : null)),
    nodesByName: new Map(view.nodes().map((n) => [n.name, n])),
    crashLogHosts,
  };
}

/** The events about one object, of every type, newest first. */
export function eventsAbout(input: DiagnosisInput, kind: string, namespace: string, name: string): EventObject[] {
  return [...(input.eventsByObject.get(eventKey(kind, namespace, name)) ?? [])].sort((a, b) => (b.lastSeen ?? '').localeCompare(a.lastSeen ?? ''));
}

/** The events about one object, Warning ones only, newest first. */
export function warningsAbout(input: DiagnosisInput, kind: string, namespace: string, name: string): EventObject[] {
  return (input.eventsByObject.get(eventKey(kind, namespace, name)) ?? [])
    .filter((e) => e.type === 'Warning')
    .sort((a, b) => (b.lastSeen ?? '').localeCompare(a.lastSeen ?? ''));
}
