// Two chains on the real control plane, each then fixed while the agent keeps running: the
// finding must go away on its own (informers, not a restart).
//   quota:  Deployment api ← ReplicaSet cannot create pods ← quota `pods` is full (2/2)
//   claim:  pod Unschedulable ← claim Pending ← its StorageClass does not exist, and beside it
//           an API crash-looping whose ARCHIVE_URL names the archive-db Service, which serves
//           nothing because that pod cannot start: the API's crash is chained to the claim too
//           (a dependency named only in configuration), on /diagnosis and /incidents alike.
// Beside other such files (tests/support/run-plan.ts): both chains live in their own dq-chain-*
// namespaces and StorageClass, and only their answers are judged.
// test-plan: shares-cluster
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningAgent } from '../../runtime/agent.ts';
import type { Diagnosis, RootCause } from '../../schema/diagnosis.ts';
import { agentDiagnose, diagnosisApiKey } from '../diagnosis/agent.ts';
import type { Diagnose } from '../diagnosis/harness.ts';
import { k, startTestAgent, waitFor } from '../support/cluster.ts';

const PASSWORD = 'diagnosis-chains-admin-password';
let agent: RunningAgent;
let diagnose: Diagnose;
let apiKey: string;

const rootsOf = (d: Diagnosis) => d.root_causes.map((r) => `${r.finding.code} ${r.finding.object}`).join('; ') || '(none)';

/** Polls the namespace's answer until `test` accepts it; the last answer is in the failure. */
async function answerUntil(namespace: string, what: string, test: (d: Diagnosis) => boolean, timeoutMs = 120_000): Promise<Diagnosis> {
  const seen: { last: Diagnosis | null } = { last: null };
  try {
    await waitFor(what, async () => {
      seen.last = await diagnose(namespace);
      return test(seen.last);
    }, timeoutMs, 2000);
  } catch (err) {
    throw new Error(`${(err as Error).message}; last root causes: ${seen.last ? rootsOf(seen.last) : 'no answer'}`);
  }
  if (!seen.last) throw new Error(`no answer while waiting for ${what}`);
  return seen.last;
}

async function removeNamespace(ns: string): Promise<void> {
  await k(['delete', 'namespace', ns, '--ignore-not-found', '--wait=false']);
  await waitFor(`namespace ${ns} to go`, async () => (await k(['get', 'namespace', ns, '--ignore-not-found', '-o', 'name'])).trim() === '', 120_000, 1000);
}

describe('diagnosis chains, then fixed', () => {
  before(async () => {
    agent = await startTestAgent('diagnosis-chains', { accounts: { adminPassword: PASSWORD } });
    apiKey = await diagnosisApiKey(agent.url, PASSWORD);
    diagnose = agentDiagnose(agent.url, apiKey);
  });
  after(() => agent.close());

  it('a full quota: Deployment ← ReplicaSet ← quota; raising the quota clears it', { timeout: 400_000 }, async () => {
    const ns = 'dq-chain-quota';
    try {
      await k(['create', 'namespace', ns]);
      await waitFor('the default ServiceAccount', async () => (await k(['get', 'serviceaccount', 'default', '-n', ns, '--ignore-not-found', '-o', 'name'])).trim() !== '', 60_000);
      await k(['apply', '-n', ns, '-f', '-'], QUOTA_CHAIN);

      const broken = await answerUntil(ns, 'the quota as the root cause', (d) => d.root_causes[0]?.finding.id === `resourcequota:${ns}/pods#QuotaExhausted`);
      const root = broken.root_causes[0] as RootCause;
      const effects = root.effects.map((e) => e.object);
      assert.ok(effects.includes(`deployment:${ns}/api`), `the Deployment is an effect: ${effects.join(', ')}`);
      assert.ok(effects.some((id) => id.startsWith(`replicaset:${ns}/api-`)), `its ReplicaSet is an effect: ${effects.join(', ')}`);
      const rs = root.effects.find((e) => e.object.startsWith(`replicaset:${ns}/api-`));
      assert.ok(rs);
      assert.equal(rs.code, 'ReplicaCreateFailed');
      assert.equal(rs.attributes.refusal, 'quota');
      assert.match(root.finding.summary, /2\/2/, 'the summary gives used/hard');
      assert.equal(broken.root_causes.length, 1, `one root cause: ${rootsOf(broken)}`);

      await k(['patch', 'resourcequota', 'pods', '-n', ns, '--type=merge', '-p', '{"spec":{"hard":{"pods":"10"}}}']);
      await waitFor('api to have its 4 replicas', async () => (await k(['get', 'deployment', 'api', '-n', ns, '-o', 'jsonpath={.status.availableReplicas}'])).trim() === '4', 180_000, 2000);
      await answerUntil(ns, 'no root cause once the quota is raised', (d) => d.root_causes.length === 0);
    } finally {
      await removeNamespace(ns);
    }
  });

  it('a pending claim: pod ← claim ← missing StorageClass, and an API that needs it; creating the class and a volume clears both', { timeout: 400_000 }, async () => {
    const ns = 'dq-chain-claim';
    try {
      await k(['create', 'namespace', ns]);
      await waitFor('the default ServiceAccount', async () => (await k(['get', 'serviceaccount', 'default', '-n', ns, '--ignore-not-found', '-o', 'name'])).trim() !== '', 60_000);
      await k(['apply', '-n', ns, '-f', '-'], CLAIM_CHAIN);

      const crashOfOrders = (root: RootCause | undefined) => root?.effects.some((e) => e.object.startsWith(`pod:${ns}/orders-`) && e.code === 'CrashLoopBackOff') === true;
      const broken = await answerUntil(ns, "the claim as the root cause, the orders API's crash among its effects", (d) => d.root_causes[0]?.finding.id === `pvc:${ns}/archive#PvcStorageClassMissing` && crashOfOrders(d.root_causes[0]));
      const root = broken.root_causes[0] as RootCause;
      const evidence = root.finding.evidence.map((e) => e.node_id);
      assert.ok(evidence.includes('storageclass:dq-chain-archive'), `the missing class is evidence: ${evidence.join(', ')}`);
      assert.ok(root.effects.some((e) => e.object.startsWith(`pod:${ns}/archiver-`) && e.code === 'Unschedulable'), `the pod is an effect: ${root.effects.map((e) => e.id).join(', ')}`);
      assert.ok(root.effects.some((e) => e.id === `service:${ns}/archive-db#ServiceEndpointsNotReady`), `the Service is the link: ${root.effects.map((e) => e.id).join(', ')}`);
      const crash = root.effects.find((e) => e.object.startsWith(`pod:${ns}/orders-`));
      assert.ok(crash?.evidence.some((e) => e.fact.includes('archive-db in ARCHIVE_URL')), 'the variable that names it is the evidence');
      assert.equal(broken.root_causes.length, 1, `one root cause: ${rootsOf(broken)}`);
      // The incident says the same: the API's crash, caused by the claim.
      const incidents = (await (await fetch(`${agent.url}/incidents?namespace=${ns}`, { headers: { 'x-api-key': apiKey } })).json()) as { incidents: { pod: string; reason: string; root_cause: { node_id: string } | null }[] };
      const orders = incidents.incidents.find((i) => i.pod.startsWith('orders-'));
      assert.deepEqual([orders?.reason, orders?.root_cause?.node_id], ['CrashLoopBackOff', `pvc:${ns}/archive`]);

      await k(['apply', '-f', '-'], CLAIM_FIX);
      await waitFor('the claim to bind', async () => (await k(['get', 'pvc', 'archive', '-n', ns, '-o', 'jsonpath={.status.phase}'])).trim() === 'Bound', 120_000, 1000);
      await waitFor('archiver to be available', async () => (await k(['get', 'deployment', 'archiver', '-n', ns, '-o', 'jsonpath={.status.availableReplicas}'])).trim() === '1', 180_000, 2000);
      // With its database up the API would stop crashing; KWOK cannot make the same simulated
      // container recover, so the API's recovery is rolled out: its template without the crash label.
      await k(['patch', 'deployment', 'orders', '-n', ns, '--type=json', '-p', '[{"op":"remove","path":"/spec/template/metadata/labels/sim.capstan.dev~1behavior"}]']);
      await waitFor('orders to be available', async () => (await k(['get', 'deployment', 'orders', '-n', ns, '-o', 'jsonpath={.status.availableReplicas}'])).trim() === '1', 180_000, 2000);
      await answerUntil(ns, 'no root cause once the claim is bound and the API runs', (d) => d.root_causes.length === 0);
    } finally {
      await removeNamespace(ns);
      await k(['delete', 'persistentvolume', 'dq-chain-archive-pv', '--ignore-not-found', '--wait=false']);
      await k(['delete', 'storageclass', 'dq-chain-archive', '--ignore-not-found']);
    }
  });
});

const QUOTA_CHAIN = `
apiVersion: v1
kind: ResourceQuota
metadata: {name: pods}
spec:
  hard: {pods: "2"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api}
spec:
  replicas: 4
  selector: {matchLabels: {app: api}}
  template:
    metadata:
      labels: {app: api}
    spec:
      containers:
        - name: api
          image: registry.example.com/shop/api:2.3.1
          resources: {requests: {cpu: 50m, memory: 64Mi}}
`;

const CLAIM_CHAIN = `
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: archive}
spec:
  storageClassName: dq-chain-archive
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 5Gi}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: archiver}
spec:
  replicas: 1
  strategy: {type: Recreate}
  selector: {matchLabels: {app: archiver}}
  template:
    metadata:
      labels: {app: archiver}
    spec:
      containers:
        - name: archiver
          image: registry.example.com/finance/archiver:1.0.0
          volumeMounts: [{name: archive, mountPath: /archive}]
          resources: {requests: {cpu: 50m, memory: 64Mi}}
      volumes:
        - name: archive
          persistentVolumeClaim: {claimName: archive}
---
apiVersion: v1
kind: Service
metadata: {name: archive-db}
spec:
  selector: {app: archiver}
  ports: [{port: 5432, targetPort: 5432}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: orders}
spec:
  replicas: 1
  selector: {matchLabels: {app: orders}}
  template:
    metadata:
      labels: {app: orders, sim.capstan.dev/behavior: crashloop}
      annotations: {sim.capstan.dev/crash-interval: 5s}
    spec:
      containers:
        - name: orders
          image: registry.example.com/shop/orders:3.0.0
          env: [{name: ARCHIVE_URL, value: "postgres://orders:example@archive-db:5432/archive"}]
          resources: {requests: {cpu: 50m, memory: 64Mi}}
`;

// Nothing provisions volumes in the local cluster, so the fix is what an operator of a static
// class does: create the class and a volume for the claim.
const CLAIM_FIX = `
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: dq-chain-archive}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: Immediate
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: dq-chain-archive-pv}
spec:
  storageClassName: dq-chain-archive
  capacity: {storage: 10Gi}
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Retain
  hostPath: {path: /var/lib/dq-chain-archive}
  claimRef: {namespace: dq-chain-claim, name: archive}
`;
