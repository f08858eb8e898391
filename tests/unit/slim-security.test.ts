// Which slimmed objects keep the compact pod spec the security checks read: every workload's
// pod template and bare pods, never a replica pod, a Deployment's ReplicaSet or a CronJob's
// Job (their template is judged once, on the workload), so 5000 replicas add nothing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { podSecuritySpec } from '../../domain/security/pod-spec.ts';
import { slimPod } from '../../runtime/kube/slim-pod.ts';
import { slimController, slimDaemonSet, slimDeployment } from '../../runtime/kube/slim.ts';
import { meta } from '../support/slim-table.ts';

const podSpec = {
  serviceAccountName: 'api',
  containers: [
    {
      name: 'api',
      image: 'ghcr.io/acme/api:1.0.0',
      securityContext: { privileged: true, capabilities: { add: ['NET_ADMIN'], drop: ['ALL'] } },
      env: [
        { name: 'DB_PASSWORD', value: 'hunter2-do-not-keep' },
        { name: 'API_TOKEN', valueFrom: { secretKeyRef: { name: 'api', key: 'token' } } },
        { name: 'GREETING', value: 'hello-not-kept-either' },
      ],
    },
  ],
};
const annotations = { 'container.apparmor.security.beta.kubernetes.io/api': 'unconfined', 'kubectl.kubernetes.io/restartedAt': '2026-11-21T12:00:00Z' };
const template = { metadata: { labels: { app: 'api' }, annotations }, spec: podSpec };
const want = podSecuritySpec(podSpec, annotations);
const owned = (kind: string, name: string) => ({ ownerReferences: [{ apiVersion: 'apps/v1', kind, name, uid: 'u', controller: true }] });

describe('slim: the security spec is kept for templates and bare pods only', () => {
  it('Deployments and DaemonSets keep their template, AppArmor annotation included', () => {
    assert.deepEqual(slimDeployment({ metadata: meta('api', 'shop'), spec: { replicas: 2, template } })?.security, want);
    assert.deepEqual(slimDaemonSet({ metadata: meta('agent', 'shop'), spec: { template } })?.security, want);
    assert.equal(want.containers[0]?.appArmorAnnotation, 'unconfined');
  });

  it('StatefulSets, standalone Jobs and ReplicaSets keep spec.template; CronJobs spec.jobTemplate.spec.template', () => {
    assert.deepEqual(slimController('StatefulSet')({ metadata: meta('db', 'shop'), spec: { template } })?.security, want);
    assert.deepEqual(slimController('Job')({ metadata: meta('once', 'shop'), spec: { template } })?.security, want);
    assert.deepEqual(slimController('ReplicaSet')({ metadata: meta('bare-rs', 'shop'), spec: { template } })?.security, want);
    assert.deepEqual(slimController('CronJob')({ metadata: meta('nightly', 'shop'), spec: { schedule: '0 3 * * *', jobTemplate: { spec: { template } } } })?.security, want);
  });

  it("a Deployment's ReplicaSet and a CronJob's Job do not: their owner is judged", () => {
    assert.equal('security' in (slimController('ReplicaSet')({ metadata: meta('api-7d9f8', 'shop', owned('Deployment', 'api')), spec: { template } }) ?? {}), false);
    assert.equal('security' in (slimController('Job')({ metadata: meta('nightly-2911', 'shop', owned('CronJob', 'nightly')), spec: { template } }) ?? {}), false);
  });

  it('a bare pod keeps its own spec; a replica pod (any controller owner) keeps nothing', () => {
    assert.deepEqual(slimPod({ metadata: meta('debug', 'shop', { annotations }), spec: podSpec })?.security, want);
    for (const kind of ['ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job', 'Node']) {
      const replica = slimPod({ metadata: meta('api-7d9f8-x2k4q', 'shop', { annotations, ...owned(kind, 'api-7d9f8') }), spec: podSpec });
      assert.equal(replica !== null && 'security' in replica, false, kind);
    }
  });

  it('no env value survives: only secret-looking names and whether they are literals', () => {
    const kept = JSON.stringify(slimDeployment({ metadata: meta('api', 'shop'), spec: { template } }));
    assert.ok(!kept.includes('hunter2') && !kept.includes('hello-not-kept') && !kept.includes('GREETING'), kept);
    assert.deepEqual(want.containers[0]?.secretEnv, [
      { name: 'DB_PASSWORD', literal: true },
      { name: 'API_TOKEN', literal: false },
    ]);
  });
});
