// Why the scheduler could not place a pod, read from its PodScheduled=False message (the same
// text as the FailedScheduling event). The scheduler writes one line per attempt:
//
//   0/5 nodes are available: 2 Insufficient cpu, 3 node(s) had untolerated taint {k: v}.
//   preemption: 0/5 nodes are available: ...
//
// i.e. a node count, then the filter plugins' reasons, each with the number of nodes it
// rejected, joined by ", " and ended by ". "; the preemption part that may follow says why
// evicting others would not help and is ignored here. A PreFilter failure (an unbound
// immediate claim, a claim that does not exist) names no count: it rejected every node.
// Older schedulers wrote `node(s) had taint {k: v}, that the pod didn't tolerate` and
// `node(s) didn't match node selector`; both are recognised.

export const UNSCHEDULABLE_CAUSES = [
  'insufficient_cpu',
  'insufficient_memory',
  'insufficient_pods',
  'taint',
  'node_affinity',
  'unbound_pvc',
  'node_unschedulable',
  'other',
] as const;
export type UnschedulableCause = (typeof UNSCHEDULABLE_CAUSES)[number];

/**
 * When two causes reject the same number of nodes, the one listed first wins: causes an
 * operator fixes on one object (a claim, a cordon, a taint, a selector) before plain capacity,
 * and anything unrecognised last.
 */
const TIE_ORDER: readonly UnschedulableCause[] = ['unbound_pvc', 'node_unschedulable', 'taint', 'node_affinity', 'insufficient_memory', 'insufficient_cpu', 'insufficient_pods', 'other'];

export interface SchedulerReason {
  cause: UnschedulableCause;
  /** How many nodes this reason rejected; null when the scheduler gave no count (a PreFilter failure: every node). */
  nodes: number | null;
  /** The reason as the scheduler wrote it. */
  text: string;
}

export interface SchedulerVerdict {
  /** The reason that rejected the most nodes, placement reasons last (see primaryCause; TIE_ORDER on ties); `other` when nothing was recognised. */
  cause: UnschedulableCause;
  /** Every reason, in the scheduler's order. */
  reasons: SchedulerReason[];
  /** `0/5 nodes are available`: 5; null when the message does not say. */
  totalNodes: number | null;
  /** Taint keys the message names (`{key: value}`), in order, without repeats. */
  taintKeys: string[];
  /** Claims the message names (`persistentvolumeclaim "data" not found`). */
  claims: string[];
}

const TOTAL = /(\d+)\/(\d+) nodes are available/;
const TAINT_KEY = /taint \{([^:{}]+):/g;
const CLAIM_NAMED = /persistentvolumeclaims? "([^"]+)"/g;

/** The kind of obstacle one reason describes. */
export function causeOfReason(text: string): UnschedulableCause {
  const t = text.toLowerCase();
  if (t.startsWith('insufficient cpu')) return 'insufficient_cpu';
  if (t.startsWith('insufficient memory')) return 'insufficient_memory';
  if (t.includes('too many pods') || t.startsWith('insufficient pods')) return 'insufficient_pods';
  if (t.includes('taint')) return 'taint';
  if (t.includes('were unschedulable')) return 'node_unschedulable';
  // "didn't match Pod's node affinity/selector" (and the older "didn't match node selector");
  // "didn't match pod affinity rules" is about other pods, and "volume node affinity
  // conflict" about a bound volume's zone, so neither counts.
  if (t.includes("didn't match pod's node affinity") || t.includes("didn't match node selector") || t.includes('node affinity/selector')) return 'node_affinity';
  if (
    t.includes('unbound immediate persistentvolumeclaims') ||
    t.includes("didn't find available persistent volumes to bind") ||
    /persistentvolumeclaims? "[^"]+" not found/.test(t)
  ) {
    return 'unbound_pvc';
  }
  return 'other';
}

/** The reasons part: after "nodes are available: ", up to the preemption part or the end. */
function reasonsPart(message: string): string {
  const start = message.indexOf('nodes are available:');
  let part = start === -1 ? message : message.slice(start + 'nodes are available:'.length);
  const preemption = part.indexOf('. preemption:');
  if (preemption !== -1) part = part.slice(0, preemption);
  part = part.trim();
  return part.endsWith('.') ? part.slice(0, -1) : part;
}

/** Parse a PodScheduled=False / FailedScheduling message; null or empty says nothing (`other`). */
export function parseSchedulerMessage(message: string | null): SchedulerVerdict {
  const text = (message ?? '').trim();
  const total = TOTAL.exec(text);
  const reasons: SchedulerReason[] = [];
  const part = text === '' ? '' : reasonsPart(text);
  // A reason begins with its node count; splitting only before ", <digits> " keeps the old
  // taint wording's inner comma ("{k: v}, that the pod didn't tolerate") inside its reason.
  for (const piece of part === '' ? [] : part.split(/,\s+(?=\d+\s)/)) {
    const counted = /^(\d+)\s+(.+)$/s.exec(piece.trim());
    const reasonText = (counted?.[2] ?? piece).trim();
    if (reasonText === '') continue;
    reasons.push({ cause: causeOfReason(reasonText), nodes: counted?.[1] ? Number(counted[1]) : null, text: reasonText });
  }
  return {
    cause: primaryCause(reasons),
    reasons,
    totalNodes: total?.[2] ? Number(total[2]) : null,
    taintKeys: unique([...text.matchAll(TAINT_KEY)].map((m) => (m[1] ?? '').trim()).filter((k) => k !== '')),
    claims: unique([...text.matchAll(CLAIM_NAMED)].map((m) => m[1] ?? '').filter((c) => c !== '')),
  };
}

/**
 * Taints and node affinity say where the pod may not (or chose not to) go; they are the cause
 * only when nothing else turned it away. So node affinity counts only when it is the sole
 * reason, taints only beside nothing but node affinity; among the rest, the most nodes win.
 * Otherwise a cluster's dedicated or tainted pools would hide that the nodes the pod may use
 * lack room, and a selector would hide the taint or cordon of the pool it picks.
 */
function primaryCause(reasons: readonly SchedulerReason[]): UnschedulableCause {
  const withoutAffinity = reasons.some((r) => r.cause !== 'node_affinity') ? reasons.filter((r) => r.cause !== 'node_affinity') : reasons;
  const candidates = withoutAffinity.some((r) => r.cause !== 'taint') ? withoutAffinity.filter((r) => r.cause !== 'taint') : withoutAffinity;
  let best: SchedulerReason | null = null;
  for (const r of candidates) if (best === null || outranks(r, best)) best = r;
  return best?.cause ?? 'other';
}

/** An uncounted reason (a PreFilter failure) rejected every node, so it outranks any count. */
function outranks(a: SchedulerReason, b: SchedulerReason): boolean {
  const na = a.nodes ?? Number.POSITIVE_INFINITY;
  const nb = b.nodes ?? Number.POSITIVE_INFINITY;
  if (na !== nb) return na > nb;
  return TIE_ORDER.indexOf(a.cause) < TIE_ORDER.indexOf(b.cause);
}

function unique(items: readonly string[]): string[] {
  return [...new Set(items)];
}

/** A short phrase for a summary: "not enough free cpu (3/5 nodes)". */
export function describeVerdict(verdict: SchedulerVerdict): string {
  const main = verdict.reasons.find((r) => r.cause === verdict.cause);
  const phrase: Record<UnschedulableCause, string> = {
    insufficient_cpu: 'not enough free cpu',
    insufficient_memory: 'not enough free memory',
    insufficient_pods: 'too many pods on the nodes',
    taint: verdict.taintKeys.length > 0 ? `untolerated taint ${verdict.taintKeys.join(', ')}` : 'untolerated taints',
    node_affinity: 'no node matches its node selector/affinity',
    unbound_pvc: verdict.claims.length > 0 ? `claim ${verdict.claims.join(', ')} ${main?.text.includes('not found') ? 'does not exist' : 'not bound'}` : 'its claims are not bound',
    node_unschedulable: 'nodes cordoned',
    other: main?.text ?? 'no node fits',
  };
  const where = main?.nodes != null && verdict.totalNodes !== null ? ` (${main.nodes}/${verdict.totalNodes} nodes)` : '';
  return `${phrase[verdict.cause]}${where}`;
}
