// The autoscaling analyzer (domain/diagnosis/analyzers/autoscaling.ts) at its boundaries: one
// table of HPAs and PDBs as their controllers report them, each row the exact findings.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterView, Condition, ControllerObject, HpaObject, PdbObject, WorkloadObject } from '../../domain/cluster/model.ts';
import { AUTOSCALING_CODES, AUTOSCALING_GRACE_SECS, analyzeAutoscaling } from '../../domain/diagnosis/analyzers/autoscaling.ts';
import { diagnosisInput, type DraftFinding } from '../../domain/diagnosis/input.ts';
import { emptyCluster } from '../support/services.ts';
import { controllerDefaults, workloadDefaults } from '../support/objects.ts';

const NOW = new Date('2026-11-27T12:00:00Z');
const ago = (secs: number) => new Date(NOW.getTime() - secs * 1000).toISOString();
const HOUR = 3600;
const cond = (type: string, status: string, reason: string, message = ''): Condition => ({ type, status, reason, message, lastTransition: ago(600) });

const hpa = (extra: Partial<HpaObject> = {}): HpaObject => ({
  namespace: 'shop', name: 'api', target: { kind: 'Deployment', name: 'api' }, minReplicas: 2, maxReplicas: 5, currentReplicas: 2, desiredReplicas: 2,
  conditions: [cond('AbleToScale', 'True', 'ReadyForNewScale'), cond('ScalingActive', 'True', 'ValidMetricFound'), cond('ScalingLimited', 'False', 'DesiredWithinRange')],
  createdAt: ago(HOUR), ...extra,
});
const pdb = (extra: Partial<PdbObject> = {}): PdbObject => ({
  namespace: 'shop', name: 'api', selector: { app: 'api' }, currentHealthy: 3, desiredHealthy: 2, disruptionsAllowed: 1, expectedPods: 3, createdAt: ago(HOUR), observedGeneration: 1, ...extra,
});
const deployment: WorkloadObject = { ...workloadDefaults, namespace: 'shop', name: 'api', kind: 'Deployment', desired: 2, available: 2 };
const statefulSet: ControllerObject = { ...controllerDefaults, namespace: 'shop', name: 'db', kind: 'StatefulSet', owner: null };

function run(hpas: HpaObject[], pdbs: PdbObject[] = [], workloads: WorkloadObject[] = [deployment], controllers: ControllerObject[] = [statefulSet]): DraftFinding[] {
  const view: ClusterView = { ...emptyCluster, hpas: () => hpas, pdbs: () => pdbs, workloads: () => workloads, controllers: () => controllers };
  return analyzeAutoscaling(diagnosisInput(view, NOW));
}

const rows: { name: string; hpas?: HpaObject[]; pdbs?: PdbObject[]; want: Partial<DraftFinding>[] }[] = [
  { name: 'a healthy HPA and PDB: nothing', hpas: [hpa()], pdbs: [pdb()], want: [] },
  // HpaTargetMissing
  { name: 'targets a Deployment that does not exist', hpas: [hpa({ target: { kind: 'Deployment', name: 'ap1' } })], want: [{ id: 'hpa:shop/api#HpaTargetMissing', summary: 'api scales Deployment/ap1, which does not exist', attributes: { target: 'Deployment/ap1' } }] },
  { name: 'targets an existing StatefulSet: nothing', hpas: [hpa({ target: { kind: 'StatefulSet', name: 'db' } })], want: [] },
  { name: 'targets a custom resource the cache cannot see: not judged', hpas: [hpa({ target: { kind: 'Rollout', name: 'api' } })], want: [] },
  { name: `missing target, HPA ${AUTOSCALING_GRACE_SECS - 1} s old: not yet`, hpas: [hpa({ target: { kind: 'Deployment', name: 'ap1' }, createdAt: ago(AUTOSCALING_GRACE_SECS - 1) })], want: [] },
  { name: `missing target, HPA ${AUTOSCALING_GRACE_SECS} s old: reported`, hpas: [hpa({ target: { kind: 'Deployment', name: 'ap1' }, createdAt: ago(AUTOSCALING_GRACE_SECS) })], want: [{ id: 'hpa:shop/api#HpaTargetMissing' }] },
  // HpaCannotScale
  {
    name: 'AbleToScale False for an existing target: its reason, the target suspected',
    hpas: [hpa({ conditions: [cond('AbleToScale', 'False', 'FailedGetScale', 'the HPA controller was unable to get the target\'s current scale: deployments/scale.apps "api" is forbidden')] })],
    want: [{ id: 'hpa:shop/api#HpaCannotScale', attributes: { target: 'Deployment/api', reason: 'FailedGetScale' }, suspects: ['deployment:shop/api'] }],
  },
  // HpaMetricsUnavailable
  {
    name: 'no requests on the target pods',
    hpas: [hpa({ conditions: [cond('AbleToScale', 'True', 'SucceededGetScale'), cond('ScalingActive', 'False', 'FailedGetResourceMetric', 'the HPA was unable to compute the replica count: failed to get cpu utilization: missing request for cpu in container api of Pod api-7d9f-x')] })],
    want: [{ id: 'hpa:shop/api#HpaMetricsUnavailable', summary: "api cannot read its metrics: its target's pods set no request for the metric's resource", attributes: { target: 'Deployment/api', cause: 'no_requests', reason: 'FailedGetResourceMetric' } }],
  },
  {
    name: 'the metrics API answers nothing',
    hpas: [hpa({ conditions: [cond('ScalingActive', 'False', 'FailedGetResourceMetric', 'the HPA was unable to compute the replica count: failed to get cpu utilization: unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: the server could not find the requested resource (get pods.metrics.k8s.io)')] })],
    want: [{ id: 'hpa:shop/api#HpaMetricsUnavailable', attributes: { target: 'Deployment/api', cause: 'metrics_api', reason: 'FailedGetResourceMetric' } }],
  },
  { name: 'ScalingDisabled (target scaled to 0 on purpose): nothing', hpas: [hpa({ conditions: [cond('ScalingActive', 'False', 'ScalingDisabled', 'scaling is disabled since the replica count of the target is zero')] })], want: [] },
  // HpaAtMaxReplicas
  {
    name: 'at maxReplicas and wanting more',
    hpas: [hpa({ currentReplicas: 5, desiredReplicas: 5, conditions: [cond('ScalingLimited', 'True', 'TooManyReplicas', 'the desired replica count is more than the maximum replica count')] })],
    want: [{ id: 'hpa:shop/api#HpaAtMaxReplicas', summary: 'api runs its maximum of 5 replicas and wants more', attributes: { target: 'Deployment/api', max_replicas: 5, current_replicas: 5 } }],
  },
  { name: 'limited, but still below its maximum (scaling up): nothing', hpas: [hpa({ currentReplicas: 4, conditions: [cond('ScalingLimited', 'True', 'TooManyReplicas')] })], want: [] },
  { name: 'at maxReplicas but within range (the load fits): nothing', hpas: [hpa({ currentReplicas: 5, conditions: [cond('ScalingLimited', 'False', 'DesiredWithinRange')] })], want: [] },
  { name: 'at minReplicas, limited by TooFewReplicas: nothing', hpas: [hpa({ conditions: [cond('ScalingLimited', 'True', 'TooFewReplicas')] })], want: [] },
  // PdbNoMatchingPods
  { name: 'a PDB that expects no pod', pdbs: [pdb({ selector: { app: 'apii' }, expectedPods: 0, currentHealthy: 0, desiredHealthy: 0, disruptionsAllowed: 0 })], want: [{ id: 'pdb:shop/api#PdbNoMatchingPods', summary: 'api protects nothing: its selector app=apii matches no pod', attributes: { selector: 'app=apii' } }] },
  { name: 'expects no pod, but its status was never written: not judged', pdbs: [pdb({ expectedPods: 0, observedGeneration: null })], want: [] },
  { name: `expects no pod, PDB ${AUTOSCALING_GRACE_SECS - 1} s old: not yet`, pdbs: [pdb({ expectedPods: 0, createdAt: ago(AUTOSCALING_GRACE_SECS - 1) })], want: [] },
  // PdbBlocksDisruption
  { name: 'allows 0 disruptions with every pod healthy: drains hang', pdbs: [pdb({ currentHealthy: 2, desiredHealthy: 2, disruptionsAllowed: 0, expectedPods: 2 })], want: [{ id: 'pdb:shop/api#PdbBlocksDisruption', attributes: { expected_pods: 2, desired_healthy: 2 } }] },
  { name: 'allows 0 because a pod is unhealthy: the budget doing its job, nothing', pdbs: [pdb({ currentHealthy: 1, desiredHealthy: 2, disruptionsAllowed: 0, expectedPods: 2 })], want: [] },
  { name: 'allows one: nothing', pdbs: [pdb({ currentHealthy: 2, desiredHealthy: 1, disruptionsAllowed: 1, expectedPods: 2 })], want: [] },
];

describe('autoscaling analyzer', () => {
  for (const row of rows) {
    it(row.name, () => {
      const got = run(row.hpas ?? [], row.pdbs ?? []);
      assert.deepEqual(got.map((f) => f.id).sort(), row.want.map((w) => w.id).sort(), JSON.stringify(got.map((f) => f.summary)));
      for (const want of row.want) {
        const finding = got.find((f) => f.id === want.id);
        assert.ok(finding);
        for (const [key, value] of Object.entries(want)) assert.deepEqual(finding[key as keyof DraftFinding], value, `${String(want.id)}.${key}`);
        assert.ok(finding.evidence.length > 0);
      }
    });
  }

  it('declares every code the table produces, each exercised', () => {
    const produced = new Set(rows.flatMap((r) => run(r.hpas ?? [], r.pdbs ?? []).map((f) => f.code)));
    assert.deepEqual([...produced].sort(), AUTOSCALING_CODES.map((c) => c.code).sort());
  });
});
