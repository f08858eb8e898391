// The agent under rbac.clusterWide=false, on the real control plane: a ServiceAccount with a
// ClusterRole for nodes, namespaces and PersistentVolumes only and Roles in two namespaces,
// a token from the TokenRequest API, the real agent in CAPSTAN_WATCH_SCOPE=namespaces over
// those two. It turns ready, serves pods, incidents, overview and diagnosis there and never
// holds an object of any other namespace; a Role without Secrets in one namespace is named
// (resource and namespace) without holding readiness back; and the same account in cluster
// scope, refused every namespaced LIST, is still ready and says what it cannot read.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startAgent, type RunningAgent } from '../../runtime/agent.ts';
import type { WatchScope } from '../../runtime/kube/watch-scope.ts';
import { createLogger } from '../../runtime/log.ts';
import { k, serviceAccountKubeconfig, waitFor } from '../support/cluster.ts';

const NS_A = 'capstan-rbac-a';
const NS_B = 'capstan-rbac-b';
const NS_OTHER = 'capstan-rbac-other';
const SA = 'capstan-rbac';
const PASSWORD = 'namespaced-rbac-admin';
/** Cluster-scoped kinds the ClusterRole leaves out (spec §5 keeps nodes, namespaces, PVs): refused, never blocking. */
const CLUSTER_REFUSED = ['ingressclasses', 'storageclasses', 'leases'];

/** In each namespace: a healthy Deployment, a crash-looping one, and a Secret. */
const workloads = (ns: string) => `
apiVersion: apps/v1
kind: Deployment
metadata: { name: web, namespace: ${ns} }
spec:
  replicas: 1
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec: { containers: [{ name: web, image: example/web:1 }] }
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: flapper, namespace: ${ns} }
spec:
  replicas: 1
  selector: { matchLabels: { app: flapper } }
  template:
    metadata:
      labels: { app: flapper, sim.capstan.dev/behavior: crashloop }
      annotations: { sim.capstan.dev/crash-interval: 5s }
    spec: { containers: [{ name: flapper, image: example/flapper:1 }] }
---
apiVersion: v1
kind: Secret
metadata: { name: creds, namespace: ${ns} }
stringData: { token: not-a-real-one }
`;

/** get/list/watch on every namespaced kind the agent lists; Secrets only when `secrets`. */
const role = (ns: string, secrets: boolean) => `
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: { name: ${SA}, namespace: ${ns} }
rules:
  - apiGroups: [""]
    resources: [pods, events, services, persistentvolumeclaims, configmaps, resourcequotas, limitranges${secrets ? ', secrets' : ''}]
    verbs: [get, list, watch]
  - { apiGroups: [apps], resources: [deployments, daemonsets, replicasets, statefulsets], verbs: [get, list, watch] }
  - { apiGroups: [batch], resources: [jobs, cronjobs], verbs: [get, list, watch] }
  - { apiGroups: [networking.k8s.io], resources: [ingresses], verbs: [get, list, watch] }
  - { apiGroups: [discovery.k8s.io], resources: [endpointslices], verbs: [get, list, watch] }
  - { apiGroups: [autoscaling], resources: [horizontalpodautoscalers], verbs: [get, list, watch] }
  - { apiGroups: [policy], resources: [poddisruptionbudgets], verbs: [get, list, watch] }
  - { apiGroups: [metrics.k8s.io], resources: [pods], verbs: [get, list] }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: { name: ${SA}, namespace: ${ns} }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: Role, name: ${SA} }
subjects: [{ kind: ServiceAccount, name: ${SA}, namespace: ${NS_A} }]
`;

const CLUSTER_RBAC = `
apiVersion: v1
kind: ServiceAccount
metadata: { name: ${SA}, namespace: ${NS_A} }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: ${SA} }
rules:
  - { apiGroups: [""], resources: [nodes, namespaces, persistentvolumes], verbs: [get, list, watch] }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: ${SA} }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: ${SA} }
subjects: [{ kind: ServiceAccount, name: ${SA}, namespace: ${NS_A} }]
`;

/** `kubectl auth can-i` as the ServiceAccount (it exits 1 for "no"). */
const can = (verb: string, resource: string, ns: string | null) =>
  k(['auth', 'can-i', verb, resource, ...(ns === null ? ['--all-namespaces'] : ['-n', ns]), '--as', `system:serviceaccount:${NS_A}:${SA}`]).then(
    (out) => out.trim() === 'yes',
    () => false,
  );

interface Started {
  agent: RunningAgent;
  logs: string[];
  /** GET as the signed-in admin: the status, and the JSON body as the caller reads it. */
  get: (path: string) => Promise<{ status: number; body: unknown }>;
}

const running: RunningAgent[] = [];

/** The real agent with the ServiceAccount's kubeconfig; ready within a bounded wait, or the test fails saying so. */
async function startLimited(name: string, watchScope: WatchScope): Promise<Started> {
  const logs: string[] = [];
  const agent = await startAgent({
    kubeconfig: await serviceAccountKubeconfig(SA, NS_A),
    listen: '127.0.0.1:0',
    dataDir: mkdtempSync(join(tmpdir(), `capstan-${name}-`)),
    settings: { tenantNamespaces: [NS_A, NS_B] },
    watchScope,
    accounts: { adminPassword: PASSWORD },
    validateOutput: true,
    log: createLogger('capstan', (line) => logs.push(line)),
  });
  running.push(agent);
  await waitFor(`${name}: /readyz 200`, async () => (await fetch(`${agent.url}/readyz`)).status === 200, 60_000, 200);
  const login = await fetch(`${agent.url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: PASSWORD }) });
  assert.equal(login.status, 200);
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const get = async (path: string) => {
    const res = await fetch(`${agent.url}${path}`, { headers: { cookie } });
    return { status: res.status, body: (await res.json()) };
  };
  return { agent, logs, get };
}

type Answer<T> = { status: number; body: T };
interface Readiness {
  status: string;
  synced: string[];
  unreadable: string[];
}
interface Overview {
  namespaces: { namespace: string; health_score: string; reasons: string[] }[];
  unreadable: { resource: string; namespace: string | null }[];
}
interface Incidents {
  incidents: { namespace: string; pod: string; workload_name: string }[];
}
interface Diagnosis {
  silent: { resource: string; reason: string }[];
}

/** Every namespace the cache holds any namespaced object of. */
function cachedNamespaces(agent: RunningAgent): string[] {
  const c = agent.cache;
  const all = [c.pods(), c.events(), c.workloads(), c.services(), c.pvcs(), c.controllers(), c.ingresses(), c.configMaps(), c.secrets(), c.endpointSlices(), c.resourceQuotas(), c.limitRanges(), c.hpas(), c.pdbs()];
  return [...new Set(all.flatMap((list) => list.map((o) => o.namespace)))].sort();
}

describe('the agent under namespaced RBAC (rbac.clusterWide=false)', () => {
  before(async () => {
    for (const ns of [NS_A, NS_B, NS_OTHER]) await k(['create', 'namespace', ns]);
    // The namespace's default ServiceAccount and admission may lag a moment behind it: retry.
    for (const ns of [NS_A, NS_B, NS_OTHER]) await waitFor(`the workloads in ${ns}`, async () => (await k(['apply', '-f', '-'], workloads(ns))).includes('secret/creds'), 60_000);
    await k(['apply', '-f', '-'], CLUSTER_RBAC + role(NS_A, true) + role(NS_B, true));
    // RBAC reaches the authorizer through its own informers: wait until it answers for the account.
    await waitFor('the Roles in force', async () => (await can('list', 'secrets', NS_B)) && (await can('list', 'pods', NS_A)), 30_000, 200);
    assert.equal(await can('list', 'pods', null), false, 'no cluster-wide pod list');
    assert.equal(await can('list', 'pods', NS_OTHER), false);
    // The crash loop exists in every namespace before any agent looks.
    await waitFor('flapper crash-looping in every namespace', async () => {
      const pods = JSON.parse(await k(['get', 'pods', '-A', '-l', 'app=flapper', '-o', 'json'])) as { items: { metadata: { namespace: string }; status: { containerStatuses?: { restartCount: number }[] } }[] };
      const restarted = new Set(pods.items.filter((p) => (p.status.containerStatuses?.[0]?.restartCount ?? 0) > 0).map((p) => p.metadata.namespace));
      return [NS_A, NS_B, NS_OTHER].every((ns) => restarted.has(ns));
    }, 120_000);
  });

  after(async () => {
    await Promise.all(running.map((a) => a.close()));
    await k(['delete', 'namespace', NS_A, NS_B, NS_OTHER, '--wait=false', '--ignore-not-found']);
    await k(['delete', 'clusterrolebinding,clusterrole', SA, '--ignore-not-found']);
  });

  it('namespaces scope: ready, serves both namespaces, holds nothing of any other', async () => {
    const { agent, logs, get } = await startLimited('rbac-namespaces', 'namespaces');
    const scopeLine = logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.message === 'watching per namespace');
    assert.deepEqual(scopeLine && { scope: scopeLine.scope, namespaces: scopeLine.namespaces }, { scope: 'namespaces', namespaces: [NS_A, NS_B] });

    const ready = (await get('/readyz')) as Answer<Readiness>;
    assert.deepEqual([ready.status, ready.body.unreadable], [200, CLUSTER_REFUSED], 'only the cluster-scoped kinds the ClusterRole leaves out');
    assert.deepEqual(cachedNamespaces(agent), [NS_A, NS_B], 'the informers never saw another namespace');
    assert.ok(agent.cache.secrets().some((s) => s.namespace === NS_B && s.name === 'creds'));
    assert.ok(agent.cache.nodes().length > 0, 'nodes stay cluster-wide');

    for (const ns of [NS_A, NS_B]) {
      const pods = (await get(`/namespaces/${ns}/pods`)) as Answer<{ pods: { name: string }[] }>;
      assert.equal(pods.status, 200);
      assert.deepEqual(pods.body.pods.map((p) => p.name.split('-')[0]).sort(), ['flapper', 'web'], ns);
    }
    assert.equal((await get(`/namespaces/${NS_OTHER}/pods`)).status, 403);

    await waitFor('the crash loops as incidents in both namespaces', async () => {
      const { body } = (await get('/incidents')) as Answer<Incidents>;
      return [NS_A, NS_B].every((ns) => body.incidents.some((i) => i.namespace === ns && i.workload_name === 'flapper'));
    }, 120_000, 500);
    const incidents = (await get('/incidents')) as Answer<Incidents>;
    assert.deepEqual([...new Set(incidents.body.incidents.map((i) => i.namespace))].sort(), [NS_A, NS_B]);

    const overview = (await get('/overview')) as Answer<Overview>;
    assert.equal(overview.status, 200);
    assert.deepEqual(overview.body.namespaces.map((n) => n.namespace).sort(), [NS_A, NS_B]);
    assert.deepEqual(overview.body.unreadable, CLUSTER_REFUSED.map((resource) => ({ resource, namespace: null })));

    await waitFor('the diagnosis naming flapper in both namespaces', async () => {
      const text = JSON.stringify((await get('/diagnosis')).body);
      return [NS_A, NS_B].every((ns) => text.includes(`${ns}/flapper`));
    }, 60_000, 500);
    const diagnosis = (await get('/diagnosis')) as Answer<Diagnosis>;
    assert.ok(!JSON.stringify(diagnosis.body).includes(NS_OTHER), 'nothing of another namespace in the diagnosis');
    assert.deepEqual(
      diagnosis.body.silent.map((s) => s.reason),
      [
        'RBAC forbids reading ingressclasses: the network analyzer cannot see it and says nothing about it',
        'RBAC forbids reading leases: the nodes analyzer cannot see it and says nothing about it',
        'RBAC forbids reading storageclasses: the storage analyzer cannot see it and says nothing about it',
      ],
      'what the refused cluster-scoped kinds leave unchecked, and nothing namespaced',
    );
  });

  it('a Role without Secrets in one namespace: ready, Secrets named there, the rest served', async () => {
    await k(['apply', '-f', '-'], role(NS_B, false));
    await waitFor('Secrets refused in the second namespace', async () => !(await can('list', 'secrets', NS_B)), 30_000, 200);
    assert.equal(await can('list', 'secrets', NS_A), true);

    const { agent, get } = await startLimited('rbac-no-secrets', 'namespaces');
    const ready = (await get('/readyz')) as Answer<Readiness>;
    assert.equal(ready.status, 200);
    assert.deepEqual(ready.body.unreadable, ['secrets', ...CLUSTER_REFUSED]);
    assert.deepEqual(agent.cache.syncStatus().find((s) => s.resource === 'secrets'), { resource: 'secrets', synced: true, failing_since: null, forbidden: true, forbidden_namespaces: [NS_B] });
    assert.deepEqual(agent.cache.secrets().map((s) => `${s.namespace}/${s.name}`), [`${NS_A}/creds`], 'the namespace that grants Secrets is still read');
    assert.deepEqual(cachedNamespaces(agent), [NS_A, NS_B]);

    const overview = (await get('/overview')) as Answer<Overview>;
    assert.deepEqual(overview.body.unreadable, [{ resource: 'secrets', namespace: NS_B }, ...CLUSTER_REFUSED.map((resource) => ({ resource, namespace: null }))]);
    const diagnosis = (await get('/diagnosis')) as Answer<Diagnosis>;
    const secrets = diagnosis.body.silent.find((s) => s.resource === 'secrets');
    assert.match(secrets?.reason ?? '', new RegExp(`^RBAC forbids reading secrets in namespace ${NS_B}: the .* cannot see it`));
    const pods = (await get(`/namespaces/${NS_B}/pods`)) as Answer<{ pods: unknown[] }>;
    assert.equal(pods.body.pods.length, 2, 'pods in the namespace without Secrets are still served');
  });

  it('the same account in cluster scope: every namespaced LIST refused, still ready, and says so', async () => {
    const { agent, logs, get } = await startLimited('rbac-cluster', 'cluster');
    assert.ok(logs.some((l) => (JSON.parse(l) as { message?: string }).message === 'watching cluster-wide'));
    const ready = (await get('/readyz')) as Answer<Readiness>;
    assert.equal(ready.status, 200);
    for (const resource of ['pods', 'events', 'deployments', 'secrets']) assert.ok(ready.body.unreadable.includes(resource), resource);
    assert.ok(!ready.body.unreadable.includes('namespaces') && !ready.body.unreadable.includes('nodes'));
    assert.deepEqual(agent.cache.pods(), []);
    const overview = (await get('/overview')) as Answer<Overview>;
    assert.ok(overview.body.unreadable.some((u) => u.resource === 'pods' && u.namespace === null));
    assert.deepEqual(overview.body.namespaces.map((n) => n.namespace).sort(), [NS_A, NS_B], 'both tenants are listed, so the verdicts below are checked');
    for (const ns of overview.body.namespaces) {
      assert.equal(ns.health_score, 'unknown', ns.namespace);
      assert.match(ns.reasons.join(), /not fully judged: RBAC forbids Capstan to read pods, events, deployments, daemonsets, services, persistentvolumeclaims in this namespace/);
    }
  });
});
