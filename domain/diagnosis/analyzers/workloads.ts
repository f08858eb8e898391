// Workloads below what they want, and why: Deployments, DaemonSets, StatefulSets (and bare
// ReplicaSets) short of available replicas, controllers the apiserver refuses pods to, stuck
// rollouts. Each finding names its suspects so the engine can chain it to its cause:
//   Deployment ReplicasUnavailable → its ReplicaSets (newest revision first) → their pods;
//   ReplicaSet ReplicaCreateFailed → the quota or LimitRange that refused the pod.
import type { Condition, ControllerObject, LimitRangeObject, PodObject, WorkloadObject } from '../../cluster/model.ts';
import { nodeId } from '../../cluster/node-id.ts';
import { redactText } from '../../redaction/redact.ts';
import type { Evidence } from '../../../schema/diagnosis.ts';
import type { CodeSpec } from '../codes.ts';
import { ownerKey, type Analyzer, type DiagnosisInput, type DraftFinding } from '../input.ts';
import { currentRefusals, describeRefusal, REFUSAL_CURRENT_SECS, type CurrentRefusal } from '../refusal-message.ts';
import { explainingLimitRanges } from './quota.ts';
import { fact } from '../draft.ts';

/**
 * A shortfall younger than this is a start or a rollout in progress, not a finding yet:
 * measured from the newest of the workload's creation, its newest ReplicaSet's creation and
 * its newest pod's creation. Pods that merely flap Ready do not restart the clock (a
 * crash-looping pod flips Ready each cycle and would keep its workload quiet forever).
 * A current refusal skips the wait: it is proof the shortfall is not a normal start.
 */
export const STARTUP_GRACE_SECS = 60;
/** A new ReplicaSet's pod not Ready this long (since its Ready condition last changed, else its creation) counts as failing even without a failure signal. */
export const ROLLOUT_STALL_SECS = 300;

export const WORKLOAD_CODES: readonly CodeSpec[] = [
  {
    code: 'ReplicasUnavailable',
    kind: 'Deployment|StatefulSet|DaemonSet|ReplicaSet',
    severity: 'critical',
    rule: `Fewer replicas available than desired for longer than ${STARTUP_GRACE_SECS} s after the workload's, its newest ReplicaSet's and its newest pod's creation (at once when a pod creation is refused); critical when none is available, warning otherwise. ReplicaSets only when no Deployment owns them (a Deployment's ReplicaSets are covered by the Deployment).`,
  },
  {
    code: 'ReplicaCreateFailed',
    kind: 'ReplicaSet|StatefulSet|DaemonSet|Job',
    severity: 'critical',
    rule: `The apiserver refuses the controller's pods (a Warning FailedCreate event seen within the last ${REFUSAL_CURRENT_SECS / 60} minutes, or a ReplicaFailure condition) while it runs fewer live pods than it wants; the refusal is parsed into quota, limitrange, webhook or other, and the quota or LimitRange is the suspect.`,
  },
  {
    code: 'ProgressDeadlineExceeded',
    kind: 'Deployment',
    severity: 'critical',
    rule: 'The Deployment reports Progressing=False with reason ProgressDeadlineExceeded; its newest ReplicaSet is the suspect.',
  },
  {
    code: 'RolloutStuck',
    kind: 'Deployment',
    severity: 'warning',
    rule: `The newest ReplicaSet (highest revision) is short of available pods and failing (a pod creation refused, or a pod not Ready that is waiting on an error, restarting, unschedulable, failed, or not Ready for ${ROLLOUT_STALL_SECS / 60} minutes, by its Ready condition's last change or else its creation) while an older ReplicaSet still serves available pods.`,
  },
  {
    code: 'RolloutPaused',
    kind: 'Deployment',
    severity: 'critical',
    rule: 'The Deployment is paused (spec.paused) while it has a ReplicasUnavailable finding: nothing changes until it is resumed (one created paused never gets a ReplicaSet at all). It is the last suspect of that finding, after any failing ReplicaSet or pod; critical when no replica is available, warning otherwise. Paused with every replica available is quiet.',
  },
  {
    code: 'ScaledToZero',
    kind: 'Deployment|StatefulSet',
    severity: 'info',
    rule: 'Desired replicas is 0: scaled down on purpose, a note rather than a problem.',
  },
];

const ageSecs = (now: Date, iso: string | null): number | null => {
  if (iso === null) return null;
  const at = Date.parse(iso);
  return Number.isNaN(at) ? null : (now.getTime() - at) / 1000;
};

/** The latest of some timestamps (ISO strings compare as times). */
const latest = (times: (string | null)[]): string | null => times.reduce<string | null>((a, b) => (b !== null && (a === null || b > a) ? b : a), null);

/** Newest revision first; unknown revisions after, by creation then name, so the order is stable. */
function byRevision(a: ControllerObject, b: ControllerObject): number {
  return (b.revision ?? -1) - (a.revision ?? -1) || (b.createdAt ?? '').localeCompare(a.createdAt ?? '') || a.name.localeCompare(b.name);
}

/** Not-Ready pods first (the likelier culprits), then by name. */
function byReadiness(a: PodObject, b: PodObject): number {
  return Number(a.ready) - Number(b.ready) || a.name.localeCompare(b.name);
}

const BENIGN_WAITING: ReadonlySet<string> = new Set(['ContainerCreating', 'PodInitializing']);

/** A pod that is failing on its own account, not merely starting. */
function podIsFailing(pod: PodObject, now: Date): boolean {
  if (pod.ready || pod.deletion !== null || pod.phase === 'Succeeded') return false;
  if (pod.phase === 'Failed' || pod.unschedulable !== null) return true;
  const statuses = [...pod.initStatuses, ...pod.statuses];
  if (statuses.some((s) => s.restartCount > 0 || (s.waiting !== null && !BENIGN_WAITING.has(s.waiting.reason)))) return true;
  // Not Ready for that long: since its Ready condition last changed (a pod that was Ready and
  // dropped out a minute ago is not stalled), else since its creation.
  return (ageSecs(now, pod.readySince ?? pod.createdAt) ?? 0) >= ROLLOUT_STALL_SECS;
}

const condition = (conditions: readonly Condition[], type: string): Condition | undefined => conditions.find((c) => c.type === type);

function draft(object: string, namespace: string, code: string, severity: DraftFinding['severity'], summary: string, extra: Partial<Pick<DraftFinding, 'evidence' | 'since' | 'attributes' | 'suspects'>>): DraftFinding {
  return { id: `${object}#${code}`, code, severity, object, namespace, summary, evidence: extra.evidence ?? [], since: extra.since ?? null, attributes: extra.attributes ?? {}, suspects: extra.suspects ?? [] };
}


/** Refusals of one controller, keyed `kind/namespace/name`. */
function refusalsByController(input: DiagnosisInput): Map<string, CurrentRefusal[]> {
  const out = new Map<string, CurrentRefusal[]>();
  for (const list of currentRefusals(input).values()) {
    for (const r of list) {
      const key = ownerKey(r.namespace, r.kind, r.name);
      const mine = out.get(key);
      if (mine) mine.push(r);
      else out.set(key, [r]);
    }
  }
  return out;
}

interface Shortfall {
  object: string;
  namespace: string;
  name: string;
  kindLabel: string;
  desired: number;
  available: number;
  createdAt: string | null;
  /** Ordered controllers that make its pods (a Deployment's ReplicaSets), possibly empty. */
  replicaSets: ControllerObject[];
  pods: PodObject[];
  refused: boolean;
  /** Node ids to try before the ReplicaSets and pods (the object itself when it carries its own refusal). */
  firstSuspects: string[];
  /** Node ids to try after them (the object itself when it is paused: only nothing failing makes the pause the cause). */
  lastSuspects?: string[];
  evidence: Evidence[];
  since: string | null;
}

function replicasUnavailable(s: Shortfall, now: Date): DraftFinding | null {
  if (s.desired <= 0 || s.available >= s.desired) return null;
  const youngest = latest([s.createdAt, s.replicaSets[0]?.createdAt ?? null, ...s.pods.map((p) => p.createdAt)]);
  const age = ageSecs(now, youngest);
  if (!s.refused && age !== null && age < STARTUP_GRACE_SECS) return null;
  const missing = s.desired - s.available;
  return draft(s.object, s.namespace, 'ReplicasUnavailable', s.available === 0 ? 'critical' : 'warning', `${missing} of ${s.desired} replicas of ${s.name} unavailable`, {
    evidence: [fact(s.object, `${s.kindLabel} ${s.name}: ${s.available} of ${s.desired} replicas available`, 'status'), ...s.evidence],
    since: s.since,
    attributes: { desired: s.desired, available: s.available, missing },
    suspects: [...s.firstSuspects, ...s.replicaSets.map((rs) => nodeId('ReplicaSet', rs.namespace, rs.name)), ...s.pods.map((p) => nodeId('Pod', p.namespace, p.name)), ...(s.lastSuspects ?? [])],
  });
}

function conditionEvidence(object: string, c: Condition | undefined): Evidence[] {
  if (!c || c.status !== 'True' || !c.message) return [];
  return [fact(object, `${c.type}: ${redactText(c.message)}`, 'status')];
}

function analyzeDeployment(input: DiagnosisInput, d: WorkloadObject, refused: Map<string, CurrentRefusal[]>, out: DraftFinding[]): void {
  const object = nodeId('Deployment', d.namespace, d.name);
  if (d.desired === 0) {
    out.push(draft(object, d.namespace, 'ScaledToZero', 'info', `${d.name} is scaled to 0 replicas`, { evidence: [fact(object, 'spec.replicas is 0', 'spec')] }));
    return;
  }
  const replicaSets = (input.controllersByOwner.get(ownerKey(d.namespace, 'Deployment', d.name)) ?? []).filter((c) => c.kind === 'ReplicaSet').sort(byRevision);
  const podsOf = (rs: ControllerObject): PodObject[] => [...(input.podsByOwner.get(ownerKey(rs.namespace, 'ReplicaSet', rs.name)) ?? [])].sort(byReadiness);
  const pods = replicaSets.flatMap(podsOf);
  const isRefused = (rs: ControllerObject): boolean => refused.has(ownerKey(rs.namespace, 'ReplicaSet', rs.name));
  const available = condition(d.conditions, 'Available');

  const progressing = condition(d.conditions, 'Progressing');
  const deadlineExceeded = progressing?.status === 'False' && progressing.reason === 'ProgressDeadlineExceeded';
  const shortfall = replicasUnavailable(
    {
      object,
      namespace: d.namespace,
      name: d.name,
      kindLabel: 'Deployment',
      desired: d.desired,
      available: d.available,
      createdAt: d.createdAt,
      replicaSets,
      pods,
      refused: replicaSets.some(isRefused),
      // A rollout past its deadline explains the missing replicas: the Deployment's own
      // ProgressDeadlineExceeded finding is the first suspect (the engine skips this finding itself).
      firstSuspects: deadlineExceeded ? [object] : [],
      lastSuspects: d.paused && !deadlineExceeded ? [object] : [],
      evidence: conditionEvidence(object, condition(d.conditions, 'ReplicaFailure')),
      since: available?.status === 'False' ? available.lastTransition : null,
    },
    input.now,
  );
  if (shortfall) out.push(shortfall);
  if (shortfall && d.paused) {
    out.push(
      draft(object, d.namespace, 'RolloutPaused', shortfall.severity, `rollout of ${d.name} is paused (spec.paused) with ${d.desired - d.available} of ${d.desired} replicas unavailable: nothing changes until it is resumed`, {
        evidence: [fact(object, `spec.paused is true; ${d.available} of ${d.desired} replicas available${replicaSets.length === 0 ? ', and no ReplicaSet was ever made' : ''}`, 'spec')],
        since: available?.status === 'False' ? available.lastTransition : d.createdAt,
        attributes: { desired: d.desired, available: d.available },
      }),
    );
  }

  const newest = replicaSets[0];
  if (deadlineExceeded) {
    out.push(
      draft(object, d.namespace, 'ProgressDeadlineExceeded', 'critical', `rollout of ${d.name} made no progress within its deadline`, {
        evidence: [fact(object, `Progressing=False (ProgressDeadlineExceeded)${progressing.message ? `: ${redactText(progressing.message)}` : ''}`, 'status')],
        since: progressing.lastTransition,
        attributes: newest ? { replicaset: newest.name } : {},
        suspects: newest ? [nodeId('ReplicaSet', newest.namespace, newest.name), ...podsOf(newest).map((p) => nodeId('Pod', p.namespace, p.name))] : [],
      }),
    );
  }

  const serving = replicaSets.slice(1).filter((rs) => rs.available > 0);
  if (newest && serving.length > 0 && newest.available < newest.desired) {
    const newPods = podsOf(newest);
    const failing = newPods.filter((p) => podIsFailing(p, input.now) && (ageSecs(input.now, p.createdAt) ?? Infinity) >= STARTUP_GRACE_SECS);
    if (isRefused(newest) || failing.length > 0) {
      const servingPods = serving.reduce((n, rs) => n + rs.available, 0);
      const newId = nodeId('ReplicaSet', newest.namespace, newest.name);
      out.push(
        draft(object, d.namespace, 'RolloutStuck', 'warning', `rollout of ${d.name} is stuck: new ReplicaSet ${newest.name} is failing while older ones serve ${servingPods} pod${servingPods === 1 ? '' : 's'}`, {
          evidence: [
            fact(newId, `revision ${newest.revision ?? '?'}: ${newest.available} of ${newest.desired} pods available${failing.length > 0 ? `, ${failing.length} failing` : ', pod creation refused'}`, 'status'),
            ...serving.map((rs) => fact(nodeId('ReplicaSet', rs.namespace, rs.name), `revision ${rs.revision ?? '?'} still serves ${rs.available} available pod${rs.available === 1 ? '' : 's'}`, 'status')),
          ],
          since: newest.createdAt,
          attributes: { new_replicaset: newest.name, serving_pods: servingPods, failing_pods: failing.length },
          suspects: [newId, ...failing.map((p) => nodeId('Pod', p.namespace, p.name)), ...newPods.filter((p) => !failing.includes(p)).map((p) => nodeId('Pod', p.namespace, p.name))],
        }),
      );
    }
  }
}

/** StatefulSets, DaemonSets and bare ReplicaSets own their pods directly; their own refusal (a finding on the same object) comes first. */
function analyzeDirectOwner(input: DiagnosisInput, w: ControllerObject | WorkloadObject, refused: Map<string, CurrentRefusal[]>, out: DraftFinding[]): void {
  const kind = w.kind;
  const object = nodeId(kind, w.namespace, w.name);
  if (w.desired === 0) {
    if (kind === 'StatefulSet') out.push(draft(object, w.namespace, 'ScaledToZero', 'info', `${w.name} is scaled to 0 replicas`, { evidence: [fact(object, 'spec.replicas is 0', 'spec')] }));
    return;
  }
  const isRefused = refused.has(ownerKey(w.namespace, kind, w.name));
  const finding = replicasUnavailable(
    {
      object,
      namespace: w.namespace,
      name: w.name,
      kindLabel: kind,
      desired: w.desired,
      available: w.available,
      createdAt: w.createdAt,
      replicaSets: [],
      pods: [...(input.podsByOwner.get(ownerKey(w.namespace, kind, w.name)) ?? [])].sort(byReadiness),
      refused: isRefused,
      firstSuspects: isRefused ? [object] : [],
      evidence: [],
      since: null,
    },
    input.now,
  );
  if (finding) out.push(finding);
}

function refusalAttributes(r: CurrentRefusal): Record<string, string> {
  const refusal = r.refusal;
  switch (refusal.kind) {
    case 'quota': {
      const resource = refusal.form === 'exceeded' ? refusal.overruns[0]?.resource : refusal.form === 'must_specify' ? refusal.missing[0] : undefined;
      return { refusal: 'quota', quota: refusal.quota, ...(resource ? { resource } : {}) };
    }
    case 'limitrange': {
      const first = refusal.violations[0];
      return { refusal: 'limitrange', ...(first ? { resource: first.resource, bound: first.bound, scope: first.scope } : {}) };
    }
    case 'webhook':
      return { refusal: 'webhook', webhook: refusal.webhook, ...(refusal.via === 'policy' ? { via: 'policy' } : {}) };
    case 'other':
      return { refusal: 'other' };
  }
}

function refusalSuspects(limitRanges: ReadonlyMap<string, readonly LimitRangeObject[]>, r: CurrentRefusal): string[] {
  const refusal = r.refusal;
  if (refusal.kind === 'quota') return [nodeId('ResourceQuota', r.namespace, refusal.quota)];
  if (refusal.kind !== 'limitrange') return [];
  const inNamespace = limitRanges.get(r.namespace) ?? [];
  const explaining = refusal.violations.flatMap((v) => explainingLimitRanges(v, inNamespace));
  return [...explaining, ...inNamespace].map((lr) => nodeId('LimitRange', lr.namespace, lr.name));
}

/** Evidence lines kept per refused controller: distinct refusals, newest first. */
const MAX_REFUSAL_FACTS = 3;

function replicaCreateFailed(limitRanges: ReadonlyMap<string, readonly LimitRangeObject[]>, refusals: CurrentRefusal[]): DraftFinding | null {
  const primary = refusals[0];
  if (!primary) return null;
  const object = nodeId(primary.kind, primary.namespace, primary.name);
  const distinct = new Map<string, CurrentRefusal>();
  for (const r of refusals) if (!distinct.has(describeRefusal(r.refusal))) distinct.set(describeRefusal(r.refusal), r);
  const shown = [...distinct.values()].slice(0, MAX_REFUSAL_FACTS);
  const since = refusals.reduce<string | null>((a, r) => (r.since !== null && (a === null || r.since < a) ? r.since : a), null);
  return draft(object, primary.namespace, 'ReplicaCreateFailed', 'critical', `${primary.kind} ${primary.name} cannot create ${primary.creating === 'claims' ? 'volume claims for its pods' : 'pods'}: ${describeRefusal(primary.refusal)}`, {
    evidence: shown.map((r) => fact(object, r.message, r.source === 'event' ? 'event' : 'status')),
    since,
    attributes: { ...refusalAttributes(primary), ...(primary.creating === 'claims' ? { creating: 'claims' } : {}) },
    suspects: [...new Set(shown.flatMap((r) => refusalSuspects(limitRanges, r)))],
  });
}

export const analyzeWorkloads: Analyzer = (input) => {
  const out: DraftFinding[] = [];
  const refused = refusalsByController(input);
  for (const w of input.view.workloads()) {
    if (w.kind === 'Deployment') analyzeDeployment(input, w, refused, out);
    else analyzeDirectOwner(input, w, refused, out);
  }
  for (const c of input.view.controllers()) {
    // A ReplicaSet a Deployment owns is judged through its Deployment.
    if (c.kind === 'StatefulSet' || (c.kind === 'ReplicaSet' && c.owner?.kind !== 'Deployment')) analyzeDirectOwner(input, c, refused, out);
  }
  // LimitRanges by namespace, read once: only refused controllers' namespaces need them.
  const limitRanges = new Map<string, LimitRangeObject[]>();
  if (refused.size > 0) {
    for (const lr of input.view.limitRanges()) {
      const list = limitRanges.get(lr.namespace);
      if (list) list.push(lr);
      else limitRanges.set(lr.namespace, [lr]);
    }
  }
  for (const refusals of refused.values()) {
    const finding = replicaCreateFailed(limitRanges, refusals);
    if (finding) out.push(finding);
  }
  return out;
};
