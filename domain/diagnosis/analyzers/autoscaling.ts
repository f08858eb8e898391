// Autoscalers and disruption budgets: HorizontalPodAutoscalers that cannot scale, cannot read
// their metrics or sit at their ceiling, and PodDisruptionBudgets that select nothing or let
// nothing be evicted. Pure: cached state in, draft findings out.
//
// Decisions (docs/diagnosis.md repeats them):
// - Every HPA verdict reads the conditions the HPA controller itself writes (AbleToScale,
//   ScalingActive, ScalingLimited), except a target that does not exist, which the cache shows
//   at once (the controller reports it as FailedGetScale too).
// - ScalingActive=False with reason ScalingDisabled is a target scaled to 0 on purpose: quiet.
// - A PDB's verdict reads the disruption controller's status. "Allows no disruption while all
//   its pods are healthy" is the budget that makes every node drain hang (minAvailable equal
//   to the replicas, or maxUnavailable 0); one that allows none because pods are unhealthy is
//   doing its job, and the unhealthy pods have their own findings.
// - An HPA or PDB younger than AUTOSCALING_GRACE_SECS (a PDB whose status the controller has
//   not written yet too) is not judged: applied with its workload, either may land first.
import type { HpaObject, PdbObject } from '../../cluster/model.ts';
import { nodeId } from '../../cluster/node-id.ts';
import type { CodeSpec } from '../codes.ts';
import { fact, findingBuilder } from '../draft.ts';
import type { Analyzer, DiagnosisInput, DraftFinding } from '../input.ts';

/** An HPA or PDB this young is not judged (seconds): applied with its workload, either may land first. */
export const AUTOSCALING_GRACE_SECS = 60;

/** Kinds an HPA can target whose existence the cache knows. */
const SCALABLE: Readonly<Record<string, 'Deployment' | 'StatefulSet' | 'ReplicaSet' | undefined>> = { Deployment: 'Deployment', StatefulSet: 'StatefulSet', ReplicaSet: 'ReplicaSet' };

export const AUTOSCALING_CODES: readonly CodeSpec[] = [
  {
    code: 'HpaTargetMissing',
    kind: 'HorizontalPodAutoscaler',
    severity: 'warning',
    rule: 'The HPA targets a Deployment, StatefulSet or ReplicaSet that does not exist in its namespace: it scales nothing.',
  },
  {
    code: 'HpaCannotScale',
    kind: 'HorizontalPodAutoscaler',
    severity: 'warning',
    rule: "The HPA controller reports AbleToScale=False (FailedGetScale, FailedUpdateScale...) for a target that exists; its message says why; the target is the suspect.",
  },
  {
    code: 'HpaMetricsUnavailable',
    kind: 'HorizontalPodAutoscaler',
    severity: 'warning',
    rule: "The HPA controller reports ScalingActive=False (not ScalingDisabled): it cannot compute a replica count; attribute cause is no_requests when the target's pods set no request for the metric's resource, metrics_api when the metrics API answers nothing, other otherwise.",
  },
  {
    code: 'HpaAtMaxReplicas',
    kind: 'HorizontalPodAutoscaler',
    severity: 'warning',
    rule: 'The HPA runs its maxReplicas and the controller reports ScalingLimited=True with TooManyReplicas: the load is above its target and it may not add more.',
  },
  {
    code: 'PdbNoMatchingPods',
    kind: 'PodDisruptionBudget',
    severity: 'warning',
    rule: 'The PodDisruptionBudget expects no pod: its selector matches none (a typo, or a workload that is gone), so it protects nothing.',
  },
  {
    code: 'PdbBlocksDisruption',
    kind: 'PodDisruptionBudget',
    severity: 'warning',
    rule: 'The PodDisruptionBudget allows 0 disruptions while every pod it expects is healthy: no pod of it can ever be evicted, so node drains hang (minAvailable equal to the replicas, or maxUnavailable 0).',
  },
];

const finding = findingBuilder(AUTOSCALING_CODES);

const conditionOf = (h: HpaObject, type: string) => h.conditions.find((c) => c.type === type);

function metricsCause(message: string): 'no_requests' | 'metrics_api' | 'other' {
  if (/missing request for/i.test(message)) return 'no_requests';
  if (/unable to (get|fetch) metrics|no metrics returned|the server could not find the requested resource|metrics API/i.test(message)) return 'metrics_api';
  return 'other';
}

function targetExists(input: DiagnosisInput, h: HpaObject): boolean | null {
  const kind = SCALABLE[h.target.kind];
  if (kind === undefined) return null; // a custom resource: the cache cannot tell
  if (kind === 'Deployment') return input.view.workloads().some((w) => w.kind === 'Deployment' && w.namespace === h.namespace && w.name === h.target.name);
  return input.view.controllers().some((c) => c.kind === kind && c.namespace === h.namespace && c.name === h.target.name);
}

function analyzeHpa(input: DiagnosisInput, h: HpaObject): DraftFinding[] {
  const id = nodeId('HorizontalPodAutoscaler', h.namespace, h.name);
  const target = `${h.target.kind}/${h.target.name}`;
  const targetKind = SCALABLE[h.target.kind];
  const targetId = targetKind === undefined ? null : nodeId(targetKind, h.namespace, h.target.name);
  if (ageSecs(input.now, h.createdAt) < AUTOSCALING_GRACE_SECS) return [];
  const exists = targetExists(input, h);
  if (exists === false) {
    return [finding(id, h.namespace, 'HpaTargetMissing', `${h.name} scales ${target}, which does not exist`, [fact(id, `scaleTargetRef: ${target} (not found in ${h.namespace})`, 'spec')], { attributes: { target } })];
  }
  const out: DraftFinding[] = [];
  const able = conditionOf(h, 'AbleToScale');
  if (able?.status === 'False') {
    out.push(
      finding(id, h.namespace, 'HpaCannotScale', `${h.name} cannot scale ${target}: ${able.reason ?? 'AbleToScale is False'}`, [fact(id, `AbleToScale=False (${able.reason ?? '?'})${able.message ? `: ${able.message}` : ''}`, 'status')], {
        since: able.lastTransition,
        attributes: { target, ...(able.reason ? { reason: able.reason } : {}) },
        suspects: targetId ? [targetId] : [],
      }),
    );
  }
  const active = conditionOf(h, 'ScalingActive');
  if (active?.status === 'False' && active.reason !== 'ScalingDisabled') {
    const cause = metricsCause(active.message ?? '');
    const words = { no_requests: "its target's pods set no request for the metric's resource", metrics_api: 'the metrics API answers nothing for it', other: active.reason ?? 'ScalingActive is False' }[cause];
    out.push(
      finding(id, h.namespace, 'HpaMetricsUnavailable', `${h.name} cannot read its metrics: ${words}`, [fact(id, `ScalingActive=False (${active.reason ?? '?'})${active.message ? `: ${active.message}` : ''}`, 'status')], {
        since: active.lastTransition,
        attributes: { target, cause, ...(active.reason ? { reason: active.reason } : {}) },
      }),
    );
  }
  const limited = conditionOf(h, 'ScalingLimited');
  if (limited?.status === 'True' && limited.reason === 'TooManyReplicas' && h.currentReplicas >= h.maxReplicas && h.maxReplicas > 0) {
    out.push(
      finding(id, h.namespace, 'HpaAtMaxReplicas', `${h.name} runs its maximum of ${h.maxReplicas} replicas and wants more`, [fact(id, `ScalingLimited=True (TooManyReplicas)${limited.message ? `: ${limited.message}` : ''}; ${h.currentReplicas} of at most ${h.maxReplicas}`, 'status')], {
        since: limited.lastTransition,
        attributes: { target, max_replicas: h.maxReplicas, current_replicas: h.currentReplicas },
      }),
    );
  }
  return out;
}

function analyzePdb(input: DiagnosisInput, p: PdbObject): DraftFinding[] {
  const id = nodeId('PodDisruptionBudget', p.namespace, p.name);
  const selector = Object.entries(p.selector).map(([k, v]) => `${k}=${v}`).join(',') || '(empty)';
  // The controller has not looked yet, or the budget is too new for its pods to exist.
  if (p.observedGeneration === null || ageSecs(input.now, p.createdAt) < AUTOSCALING_GRACE_SECS) return [];
  if (p.expectedPods === 0) {
    return [finding(id, p.namespace, 'PdbNoMatchingPods', `${p.name} protects nothing: its selector ${selector} matches no pod`, [fact(id, `selector ${selector}; expectedPods 0`, 'status')], { attributes: { selector } })];
  }
  if (p.disruptionsAllowed === 0 && p.currentHealthy >= p.expectedPods) {
    return [
      finding(id, p.namespace, 'PdbBlocksDisruption', `${p.name} allows no disruption although all ${p.expectedPods} of its pods are healthy: node drains will hang`, [fact(id, `disruptionsAllowed 0; currentHealthy ${p.currentHealthy}, desiredHealthy ${p.desiredHealthy}, expectedPods ${p.expectedPods}`, 'status')], {
        attributes: { expected_pods: p.expectedPods, desired_healthy: p.desiredHealthy },
      }),
    ];
  }
  return [];
}

const ageSecs = (now: Date, iso: string | null): number => (iso === null ? Number.POSITIVE_INFINITY : (now.getTime() - Date.parse(iso)) / 1000);

export const analyzeAutoscaling: Analyzer = (input) => [...input.view.hpas().flatMap((h) => analyzeHpa(input, h)), ...input.view.pdbs().flatMap((p) => analyzePdb(input, p))];
