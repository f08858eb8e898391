// The informers the diagnosis reads, against the real control plane: an agent with full rights
// syncs every one and follows objects created after it started; an agent whose RBAC leaves out
// ResourceQuotas and StorageClasses still becomes ready, says which two it may not read, and
// serves the rest.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ClusterView } from '../../domain/cluster/model.ts';
import type { RunningAgent } from '../../runtime/agent.ts';
import { k, serviceAccountKubeconfig, startTestAgent, waitFor } from '../support/cluster.ts';

const NS = 'capstan-diag-informers';
const STORAGE_CLASS = 'capstan-diag-fast';
const LIMITED_SA = 'capstan-diag-limited';

/** The informers this issue added, by the resource name syncStatus() reports. */
const DIAGNOSIS_INFORMERS = ['endpointslices', 'ingressclasses', 'storageclasses', 'leases', 'resourcequotas', 'limitranges', 'horizontalpodautoscalers', 'poddisruptionbudgets'];
const DENIED = ['resourcequotas', 'storageclasses'];

const OBJECTS = `
apiVersion: v1
kind: ResourceQuota
metadata: { name: pods, namespace: ${NS} }
spec: { hard: { pods: "5", requests.cpu: "2" } }
---
apiVersion: v1
kind: LimitRange
metadata: { name: limits, namespace: ${NS} }
spec:
  limits:
    - { type: Container, max: { cpu: "1" }, min: { cpu: 10m }, default: { cpu: 100m } }
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: { name: ${STORAGE_CLASS} }
provisioner: example.com/nothing
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: Service
metadata: { name: web, namespace: ${NS} }
spec: { ports: [{ name: http, port: 80, targetPort: 8080 }] }
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: web-manual
  namespace: ${NS}
  labels: { kubernetes.io/service-name: web, endpointslice.kubernetes.io/managed-by: capstan-tests }
addressType: IPv4
ports: [{ name: http, port: 8080, protocol: TCP }]
endpoints:
  - { addresses: [10.1.0.1], conditions: { ready: true } }
  - { addresses: [10.1.0.2], conditions: { ready: false }, targetRef: { kind: Pod, namespace: ${NS}, name: web-2 } }
  - { addresses: [10.1.0.3] }
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: { name: web, namespace: ${NS} }
spec:
  scaleTargetRef: { apiVersion: apps/v1, kind: Deployment, name: web }
  minReplicas: 2
  maxReplicas: 6
  metrics:
    - { type: Resource, resource: { name: cpu, target: { type: Utilization, averageUtilization: 80 } } }
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: { name: web, namespace: ${NS} }
spec: { minAvailable: 1, selector: { matchLabels: { app: web } } }
`;

/** What the limited agent may read: everything the full one does except ResourceQuotas and StorageClasses. */
const LIMITED_RBAC = `
apiVersion: v1
kind: ServiceAccount
metadata: { name: ${LIMITED_SA}, namespace: ${NS} }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: ${LIMITED_SA} }
rules:
  - apiGroups: [""]
    resources: [namespaces, pods, nodes, events, services, persistentvolumeclaims, persistentvolumes, configmaps, secrets, limitranges]
    verbs: [get, list, watch]
  - { apiGroups: [apps], resources: [deployments, daemonsets, replicasets, statefulsets], verbs: [get, list, watch] }
  - { apiGroups: [batch], resources: [jobs, cronjobs], verbs: [get, list, watch] }
  - { apiGroups: [networking.k8s.io], resources: [ingresses, ingressclasses], verbs: [get, list, watch] }
  - { apiGroups: [discovery.k8s.io], resources: [endpointslices], verbs: [get, list, watch] }
  - { apiGroups: [coordination.k8s.io], resources: [leases], verbs: [get, list, watch] }
  - { apiGroups: [autoscaling], resources: [horizontalpodautoscalers], verbs: [get, list, watch] }
  - { apiGroups: [policy], resources: [poddisruptionbudgets], verbs: [get, list, watch] }
  - { apiGroups: [metrics.k8s.io], resources: [pods], verbs: [get, list] }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: ${LIMITED_SA} }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: ${LIMITED_SA} }
subjects: [{ kind: ServiceAccount, name: ${LIMITED_SA}, namespace: ${NS} }]
`;

function syncOf(view: ClusterView, resource: string) {
  const status = view.syncStatus().find((s) => s.resource === resource);
  assert.ok(status, `no informer for ${resource}`);
  return status;
}

/** Names of a kube-node-lease listing, from the API server itself. */
async function nodeLeaseNames(): Promise<string[]> {
  const list = JSON.parse(await k(['get', 'leases', '-n', 'kube-node-lease', '-o', 'json'])) as { items: { metadata: { name: string } }[] };
  return list.items.map((l) => l.metadata.name).sort();
}

describe('diagnosis informers against the real API server', () => {
  let full: RunningAgent | null = null;
  let limited: RunningAgent | null = null;

  before(async () => {
    await k(['create', 'namespace', NS]);
    // The namespace's default ServiceAccount and admission may lag a moment behind it: retry.
    await waitFor('the diagnosis objects', async () => (await k(['apply', '-f', '-'], OBJECTS)).includes('poddisruptionbudget'), 60_000);
    full = await startTestAgent('diag-full', {});
  });

  after(async () => {
    await Promise.all([full?.close(), limited?.close()]);
    await k(['delete', 'namespace', NS, '--wait=false', '--ignore-not-found']);
    await k(['delete', 'storageclass', STORAGE_CLASS, '--ignore-not-found']);
    await k(['delete', 'clusterrolebinding,clusterrole', LIMITED_SA, '--ignore-not-found']);
  });

  it('an agent with full rights syncs every new informer, none forbidden', () => {
    const view = full?.cache;
    assert.ok(view);
    for (const resource of DIAGNOSIS_INFORMERS) assert.deepEqual(syncOf(view, resource), { resource, synced: true, failing_since: null, forbidden: false, forbidden_namespaces: [] });
  });

  it('sees the quota (with its usage), LimitRange, StorageClass, EndpointSlice, node Leases, HPA and PDB', async () => {
    const view = full?.cache;
    assert.ok(view);
    await waitFor('the quota with its status', () => Promise.resolve(view.resourceQuotas().some((q) => q.namespace === NS && q.used.pods === '0')), 30_000, 200);
    assert.deepEqual(view.resourceQuotas().find((q) => q.namespace === NS), { namespace: NS, name: 'pods', hard: { pods: '5', 'requests.cpu': '2' }, used: { pods: '0', 'requests.cpu': '0' } });
    assert.deepEqual(view.limitRanges().find((l) => l.namespace === NS), { namespace: NS, name: 'limits', limits: [{ type: 'Container', max: { cpu: '1' }, min: { cpu: '10m' } }] });
    assert.deepEqual(view.storageClasses().find((s) => s.name === STORAGE_CLASS), { name: STORAGE_CLASS, provisioner: 'example.com/nothing', isDefault: false, bindingMode: 'WaitForFirstConsumer' });
    // Ready, not ready, and unset (counted as ready, as the API says consumers should).
    assert.deepEqual(view.endpointSlices().find((s) => s.namespace === NS && s.name === 'web-manual'), { namespace: NS, name: 'web-manual', service: 'web', ready: 2, notReady: 1, notReadyPods: ['web-2'] });
    const hpa = view.hpas().find((h) => h.namespace === NS);
    assert.deepEqual(hpa && { target: hpa.target, minReplicas: hpa.minReplicas, maxReplicas: hpa.maxReplicas }, { target: { kind: 'Deployment', name: 'web' }, minReplicas: 2, maxReplicas: 6 });
    const pdb = view.pdbs().find((p) => p.namespace === NS);
    assert.deepEqual(pdb?.selector, { app: 'web' });
    // Every node Lease the API server holds, and only kube-node-lease ones (the control plane's
    // leader-election Leases live in kube-system).
    const leases = await nodeLeaseNames();
    assert.ok(leases.length > 0, 'the local cluster keeps node Leases');
    await waitFor('every node Lease', () => Promise.resolve(view.nodeLeases().map((l) => l.name).sort().join() === leases.join()), 30_000, 200);
    for (const lease of view.nodeLeases()) assert.ok(lease.renewTime !== null && lease.durationSecs !== null, JSON.stringify(lease));
    assert.ok(!view.nodeLeases().some((l) => l.name === 'kube-controller-manager' || l.name === 'kube-scheduler'));
  });

  it('follows changes through the watch: a quota raised, a slice turning ready, a PDB removed', async () => {
    const view = full?.cache;
    assert.ok(view);
    await k(['patch', 'resourcequota', 'pods', '-n', NS, '--type=merge', '-p', '{"spec":{"hard":{"pods":"7"}}}']);
    await waitFor('the raised quota', () => Promise.resolve(view.resourceQuotas().find((q) => q.namespace === NS)?.hard.pods === '7'), 30_000, 200);
    await k(['patch', 'endpointslice', 'web-manual', '-n', NS, '--type=json', '-p', '[{"op":"replace","path":"/endpoints/1/conditions/ready","value":true}]']);
    await waitFor('the slice all ready', () => Promise.resolve(view.endpointSlices().find((s) => s.namespace === NS)?.notReady === 0), 30_000, 200);
    await k(['delete', 'pdb', 'web', '-n', NS]);
    await waitFor('the PDB gone', () => Promise.resolve(!view.pdbs().some((p) => p.namespace === NS)), 30_000, 200);
    await k(['apply', '-f', '-'], OBJECTS);
  });

  it('an agent that may not list quotas and StorageClasses becomes ready, says so, and serves the rest', async () => {
    await k(['apply', '-f', '-'], LIMITED_RBAC);
    // `kubectl auth can-i` exits 1 for "no".
    const canList = (resource: string) => k(['auth', 'can-i', 'list', resource, '--all-namespaces', '--as', `system:serviceaccount:${NS}:${LIMITED_SA}`]).then((out) => out.trim() === 'yes', () => false);
    // RBAC reaches the authorizer through its own informers: wait until it answers for the SA.
    await waitFor('the limited role in force', () => canList('limitranges'), 30_000, 200);
    assert.equal(await canList('resourcequotas'), false);
    assert.equal(await canList('storageclasses'), false);

    limited = await startTestAgent('diag-limited', { kubeconfig: await serviceAccountKubeconfig(LIMITED_SA, NS) });
    const view = limited.cache;
    const ready = await fetch(`${limited.url}/readyz`);
    assert.equal(ready.status, 200);

    for (const resource of DENIED) assert.deepEqual(syncOf(view, resource), { resource, synced: true, failing_since: null, forbidden: true, forbidden_namespaces: [] });
    const others = view.syncStatus().filter((s) => !DENIED.includes(s.resource));
    assert.deepEqual(others.filter((s) => !s.synced || s.forbidden || s.failing_since !== null), [], 'every other informer synced and permitted');
    assert.deepEqual(view.resourceQuotas(), []);
    assert.deepEqual(view.storageClasses(), []);

    // What it may read, it reads, and keeps following.
    assert.ok(view.pods().length > 0);
    assert.ok(view.limitRanges().some((l) => l.namespace === NS));
    assert.ok(view.endpointSlices().some((s) => s.namespace === NS && s.name === 'web-manual'));
    assert.ok(view.hpas().some((h) => h.namespace === NS));
    assert.deepEqual(view.nodeLeases().map((l) => l.name).sort(), await nodeLeaseNames());
    await k(['apply', '-f', '-'], `apiVersion: v1\nkind: LimitRange\nmetadata: { name: later, namespace: ${NS} }\nspec: { limits: [{ type: Container, max: { memory: 1Gi } }] }\n`);
    await waitFor('a LimitRange created after the start', () => Promise.resolve(view.limitRanges().some((l) => l.namespace === NS && l.name === 'later')), 30_000, 200);
    // The refusal is not sticky state: still forbidden, still empty, after the others moved on.
    for (const resource of DENIED) assert.equal(syncOf(view, resource).forbidden, true);
  });
});
