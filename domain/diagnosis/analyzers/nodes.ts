// Nodes: the kubelet's own conditions, its heartbeat (the node's Lease) and the cordon; and
// the pods stranded on a node that is not ready or no longer heard from.
//
// A node is unreachable when its Ready condition is Unknown (the node lifecycle controller
// gave up on it) or, earlier than that, when its Lease has not been renewed for longer than
// LEASE_GRACE_FACTOR × the lease's duration (40 s when unset). The kubelet renews every
// quarter of the duration, and the node lifecycle controller's grace period (40 s by
// default) is about one duration, so a lease older than that has missed three renewals and
// the controller is about to say Unknown. A lease exactly at the bound still counts as fresh.
import type { Condition, LeaseObject, NodeObject, PodObject } from '../../cluster/model.ts';
import { nodeId } from '../../cluster/node-id.ts';
import { redactText } from '../../redaction/redact.ts';
import type { Evidence } from '../../../schema/diagnosis.ts';
import type { CodeSpec } from '../codes.ts';
import type { Analyzer, DiagnosisInput, DraftFinding } from '../input.ts';

/** The lease duration kubelets use by default, for a Lease that does not say. */
export const DEFAULT_LEASE_DURATION_SECS = 40;
/** A lease is stale once older than this many of its durations. */
export const LEASE_GRACE_FACTOR = 1;

export const NODE_CODES: readonly CodeSpec[] = [
  { code: 'NodeNotReady', kind: 'Node', severity: 'critical', rule: 'The node reports Ready=False and its Lease, if it has one, is fresh (a stale Lease makes it NodeUnreachable instead).' },
  {
    code: 'NodeUnreachable',
    kind: 'Node',
    severity: 'critical',
    rule: `The node's Ready condition is Unknown, or its Lease was last renewed more than ${LEASE_GRACE_FACTOR} × its duration (${DEFAULT_LEASE_DURATION_SECS} s when unset) ago.`,
  },
  { code: 'NodeMemoryPressure', kind: 'Node', severity: 'warning', rule: 'The node reports MemoryPressure=True: the kubelet may evict pods.' },
  { code: 'NodeDiskPressure', kind: 'Node', severity: 'warning', rule: 'The node reports DiskPressure=True: the kubelet may evict pods and garbage-collect images.' },
  { code: 'NodePIDPressure', kind: 'Node', severity: 'warning', rule: 'The node reports PIDPressure=True: processes may fail to start.' },
  { code: 'NodeNetworkUnavailable', kind: 'Node', severity: 'warning', rule: "The node reports NetworkUnavailable=True: its pod network is not configured." },
  { code: 'NodeCordoned', kind: 'Node', severity: 'warning', rule: 'The node is cordoned (spec.unschedulable): no new pod is scheduled on it.' },
  {
    code: 'PodOnUnhealthyNode',
    kind: 'Pod',
    severity: 'critical',
    rule: 'A pod that has not finished is bound to a node that is not ready or unreachable: critical when the pod is not Ready, a warning while it still reports Ready.',
  },
];

/** The condition a pressure code reads, and the taint the node controller sets with it. */
const PRESSURES: readonly { type: string; code: string; taint: string; says: string }[] = [
  { type: 'MemoryPressure', code: 'NodeMemoryPressure', taint: 'node.kubernetes.io/memory-pressure', says: 'is short of memory' },
  { type: 'DiskPressure', code: 'NodeDiskPressure', taint: 'node.kubernetes.io/disk-pressure', says: 'is short of disk space' },
  { type: 'PIDPressure', code: 'NodePIDPressure', taint: 'node.kubernetes.io/pid-pressure', says: 'is short of process ids' },
  { type: 'NetworkUnavailable', code: 'NodeNetworkUnavailable', taint: 'node.kubernetes.io/network-unavailable', says: 'has no pod network' },
];

const TERMINAL_PHASES: ReadonlySet<string> = new Set(['Succeeded', 'Failed']);

function conditionFact(c: Condition): string {
  const parts = [`${c.type}=${c.status}`];
  if (c.reason) parts.push(`reason ${c.reason}`);
  if (c.lastTransition) parts.push(`since ${c.lastTransition}`);
  const head = parts.join(', ');
  return c.message ? `${head}: ${redactText(c.message)}` : head;
}

function taintEvidence(node: NodeObject, id: string, keys: readonly string[]): Evidence[] {
  return node.taints
    .filter((t) => keys.includes(t.key))
    .map((t) => ({ node_id: id, fact: `tainted ${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`, source: 'spec' as const, link: null }));
}

/** Stale when older than the grace bound; exactly at the bound is still fresh. Null: no lease or never renewed. */
function staleLease(lease: LeaseObject | undefined, now: Date): { renewed: string; ageSecs: number; graceSecs: number } | null {
  if (!lease?.renewTime) return null;
  const renewed = Date.parse(lease.renewTime);
  if (Number.isNaN(renewed)) return null;
  const graceSecs = (lease.durationSecs ?? DEFAULT_LEASE_DURATION_SECS) * LEASE_GRACE_FACTOR;
  const ageMs = now.getTime() - renewed;
  return ageMs > graceSecs * 1000 ? { renewed: lease.renewTime, ageSecs: Math.floor(ageMs / 1000), graceSecs } : null;
}

/** Why a node cannot host pods right now: the finding the pods on it point to, or null. */
type Unhealthy = { code: 'NodeNotReady' | 'NodeUnreachable'; finding: DraftFinding };

function readiness(node: NodeObject, lease: LeaseObject | undefined, now: Date): Unhealthy | null {
  const id = nodeId('Node', null, node.name);
  const ready = node.conditions.find((c) => c.type === 'Ready');
  const stale = staleLease(lease, now);
  const evidence: Evidence[] = [];
  if (ready) evidence.push({ node_id: id, fact: conditionFact(ready), source: 'status', link: null });
  if (lease?.renewTime) {
    const fact = stale ? `lease last renewed ${lease.renewTime}, ${stale.ageSecs} s ago (stale after ${stale.graceSecs} s)` : `lease renewed ${lease.renewTime}`;
    evidence.push({ node_id: id, fact, source: 'lease', link: null });
  }
  const base = { object: id, namespace: null, suspects: [] as string[] };

  if (ready?.status === 'Unknown' || stale) {
    evidence.push(...taintEvidence(node, id, ['node.kubernetes.io/unreachable']));
    const summary = stale ? `node ${node.name} stopped heartbeating ${stale.ageSecs} s ago` : `node ${node.name} is unreachable: its kubelet stopped reporting`;
    // Since: when the controller marked it Unknown, or when the heartbeat stopped.
    const since = ready?.status === 'Unknown' ? (ready.lastTransition ?? stale?.renewed ?? null) : (stale?.renewed ?? null);
    const attributes: Record<string, string | number> = { ready: ready?.status ?? 'missing' };
    if (ready?.reason) attributes.reason = ready.reason;
    if (lease?.renewTime) attributes.lease_renewed = lease.renewTime;
    return {
      code: 'NodeUnreachable',
      finding: { ...base, id: `${id}#NodeUnreachable`, code: 'NodeUnreachable', severity: 'critical', summary, evidence, since, attributes },
    };
  }
  if (ready?.status === 'False') {
    evidence.push(...taintEvidence(node, id, ['node.kubernetes.io/not-ready']));
    const why = ready.reason ? ` (${ready.reason})` : '';
    return {
      code: 'NodeNotReady',
      finding: {
        ...base,
        id: `${id}#NodeNotReady`,
        code: 'NodeNotReady',
        severity: 'critical',
        summary: `node ${node.name} is not ready${why}`,
        evidence,
        since: ready.lastTransition,
        attributes: ready.reason ? { reason: ready.reason } : {},
      },
    };
  }
  return null;
}

function conditionFindings(node: NodeObject): DraftFinding[] {
  const id = nodeId('Node', null, node.name);
  const findings: DraftFinding[] = [];
  for (const p of PRESSURES) {
    const c = node.conditions.find((x) => x.type === p.type);
    if (c?.status !== 'True') continue;
    findings.push({
      id: `${id}#${p.code}`,
      code: p.code,
      severity: 'warning',
      object: id,
      namespace: null,
      summary: `node ${node.name} ${p.says}`,
      evidence: [{ node_id: id, fact: conditionFact(c), source: 'status', link: null }, ...taintEvidence(node, id, [p.taint])],
      since: c.lastTransition,
      attributes: c.reason ? { reason: c.reason } : {},
      suspects: [],
    });
  }
  if (node.unschedulable) {
    findings.push({
      id: `${id}#NodeCordoned`,
      code: 'NodeCordoned',
      severity: 'warning',
      object: id,
      namespace: null,
      summary: `node ${node.name} is cordoned`,
      evidence: [{ node_id: id, fact: 'spec.unschedulable is true', source: 'spec', link: null }, ...taintEvidence(node, id, ['node.kubernetes.io/unschedulable'])],
      // The cordon carries no timestamp in what the cache keeps.
      since: null,
      attributes: {},
      suspects: [],
    });
  }
  return findings;
}

function podFindings(input: DiagnosisInput, node: NodeObject, unhealthy: Unhealthy): DraftFinding[] {
  const nodeRef = nodeId('Node', null, node.name);
  const state = unhealthy.code === 'NodeUnreachable' ? 'unreachable' : 'not ready';
  const pods: readonly PodObject[] = input.podsByNode.get(node.name) ?? [];
  return pods
    .filter((p) => !TERMINAL_PHASES.has(p.phase))
    .map((p) => {
      const id = nodeId('Pod', p.namespace, p.name);
      return {
        id: `${id}#PodOnUnhealthyNode`,
        code: 'PodOnUnhealthyNode',
        // A pod still Ready may keep serving (its status is only as fresh as the node's last report).
        severity: p.ready ? ('warning' as const) : ('critical' as const),
        object: id,
        namespace: p.namespace,
        summary: `pod ${p.name} is on node ${node.name}, which is ${state}`,
        evidence: [
          { node_id: id, fact: `scheduled on ${node.name}; pod ${p.ready ? 'still reports Ready' : 'is not Ready'} (phase ${p.phase})`, source: 'status', link: null },
          { node_id: nodeRef, fact: `node is ${state}`, source: 'status', link: null },
        ],
        since: unhealthy.finding.since,
        attributes: { node: node.name, node_code: unhealthy.code },
        suspects: [nodeRef],
      };
    });
}

export const analyzeNodes: Analyzer = (input) => {
  const leases = new Map(input.view.nodeLeases().map((l) => [l.name, l]));
  const findings: DraftFinding[] = [];
  for (const node of input.view.nodes()) {
    const unhealthy = readiness(node, leases.get(node.name), input.now);
    if (unhealthy) findings.push(unhealthy.finding);
    findings.push(...conditionFindings(node));
    if (unhealthy) findings.push(...podFindings(input, node, unhealthy));
  }
  return findings;
};
