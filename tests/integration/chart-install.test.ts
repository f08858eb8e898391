// The chart installed into the suite's real control plane, and the RBAC proof: a token minted
// for the chart's ServiceAccount (TokenRequest) runs the real agent process out of cluster with
// exactly the environment the chart's Deployment gives it (its env, ConfigMap and Secrets read
// back from the API server), and it must answer everything an unrestricted agent answers; what
// that account may do is read from the API server itself (`kubectl auth can-i --list`). Then
// allowWrites, and clusterWide=false over two tenant namespaces. (What the chart renders for
// every value, and that an upgrade keeps the key and password, is tests/integration/chart.test.ts.)
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { RunningAgent } from '../../runtime/agent.ts';
import { spawnAgent, type AgentProcess } from '../support/agent-process.ts';
import { CHART_DIR, helm, k, kJson, serviceAccountKubeconfig, startTestAgent, waitFor, WRITE_VERBS } from '../support/cluster.ts';

const NAMESPACE = 'capstan-system';
const RELEASE = 'capstan';
const SERVICE_ACCOUNT = 'capstan';
const ADMIN_PASSWORD = 'chart-admin-password';
const TENANTS = ['shop', 'payments'];

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean }; configMapKeyRef?: { name: string; key: string; optional?: boolean } };
}
interface Deployment {
  spec: { template: { spec: { serviceAccountName: string; containers: { name: string; env?: EnvVar[]; envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[] }[] } } };
}
type DataObject = { data?: Record<string, string> };

const decode = (b64: string) => Buffer.from(b64, 'base64').toString('utf8');

/** The agent container's environment as the kubelet would build it: envFrom first, then env (later wins). */
async function chartAgentEnv(): Promise<Record<string, string>> {
  const deployment = await kJson<Deployment>(['get', 'deployment', 'capstan-agent', '-n', NAMESPACE]);
  assert.equal(deployment.spec.template.spec.serviceAccountName, SERVICE_ACCOUNT);
  const container = deployment.spec.template.spec.containers.find((c) => c.name === 'agent');
  assert.ok(container, 'the agent container');
  const env: Record<string, string> = {};
  for (const from of container.envFrom ?? []) {
    if (from.configMapRef) Object.assign(env, (await kJson<DataObject>(['get', 'configmap', from.configMapRef.name, '-n', NAMESPACE])).data ?? {});
    if (from.secretRef) for (const [key, value] of Object.entries((await kJson<DataObject>(['get', 'secret', from.secretRef.name, '-n', NAMESPACE])).data ?? {})) env[key] = decode(value);
  }
  for (const e of container.env ?? []) {
    if (e.value !== undefined) env[e.name] = e.value;
    const secret = e.valueFrom?.secretKeyRef;
    if (secret) {
      const value = (await kJson<DataObject>(['get', 'secret', secret.name, '-n', NAMESPACE])).data?.[secret.key];
      if (value !== undefined) env[e.name] = decode(value);
      else assert.ok(secret.optional, `${e.name}: secret ${secret.name} has no ${secret.key}`);
    }
    const config = e.valueFrom?.configMapKeyRef;
    if (config) {
      const value = (await kJson<DataObject>(['get', 'configmap', config.name, '-n', NAMESPACE])).data?.[config.key];
      if (value !== undefined) env[e.name] = value;
      else assert.ok(config.optional, `${e.name}: configmap ${config.name} has no ${config.key}`);
    }
  }
  return env;
}

/** `capstan agent` as its own process, authenticated as the chart's ServiceAccount, with the chart's environment. */
async function agentAsServiceAccount(): Promise<AgentProcess> {
  const kubeconfig = await serviceAccountKubeconfig(SERVICE_ACCOUNT, NAMESPACE);
  const dataDir = mkdtempSync(join(tmpdir(), 'capstan-chart-agent-'));
  // Only what a container would have besides the chart's environment: no inherited CAPSTAN_*.
  const agent = await spawnAgent({ kubeconfig, dataDir, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...(await chartAgentEnv()) } });
  await waitFor('the agent as the chart ServiceAccount to be ready', async () => (await fetch(`${agent.url}/readyz`)).status === 200, 180_000, 500).catch((err: unknown) => {
    throw new Error(`${err instanceof Error ? err.message : String(err)}\n${agent.stderr()}`);
  });
  return {
    ...agent,
    stop: async () => {
      await agent.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function signIn(url: string, password: string): Promise<string> {
  const res = await fetch(`${url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password }) });
  assert.equal(res.status, 200, await res.text());
  return (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
}

async function read<T>(url: string, cookie: string, path: string): Promise<T> {
  const res = await fetch(`${url}${path}`, { headers: { cookie } });
  assert.equal(res.status, 200, `${path}: ${await res.clone().text()}`);
  return (await res.json()) as T;
}

interface Namespaces { namespaces: { name: string }[] }
interface Incidents { incidents: { namespace: string; pod: string; reason: string }[] }
interface Overview { namespaces: { namespace?: string; name?: string }[] }
interface Diagnosis { root_causes: { finding: { code: string; object: string } }[] }

const namesOf = (n: Namespaces) => n.namespaces.map((x) => x.name).sort();

/** Verbs per resource, as the API server says this account may use them in `namespace` (or cluster-wide). */
async function canI(namespace: string | null): Promise<Map<string, Set<string>>> {
  const out = await k(['auth', 'can-i', '--list', `--as=system:serviceaccount:${NAMESPACE}:${SERVICE_ACCOUNT}`, ...(namespace === null ? [] : ['-n', namespace]), '--no-headers']);
  const verbs = new Map<string, Set<string>>();
  for (const line of out.split('\n')) {
    // Resources  Non-Resource URLs  Resource Names  Verbs, columns padded with spaces; the verbs are the last [..].
    const match = /^(\S+)\s+.*\[([^\]]*)\]\s*$/.exec(line.trim());
    if (!match?.[1] || match[1].startsWith('[')) continue;
    const set = verbs.get(match[1]) ?? new Set<string>();
    for (const verb of (match[2] ?? '').split(/\s+/).filter(Boolean)) set.add(verb);
    verbs.set(match[1], set);
  }
  return verbs;
}

/** Every (resource, write verb) pair the account holds. */
function writes(verbs: Map<string, Set<string>>): string[] {
  const out: string[] = [];
  for (const [resource, set] of verbs) for (const verb of set) if (WRITE_VERBS.has(verb)) out.push(`${resource} ${verb}`);
  return out.sort();
}

/** The writes any ServiceAccount holds without our chart (self-reviews every authenticated user may create). */
const ALWAYS_ALLOWED = new Set(['selfsubjectaccessreviews.authorization.k8s.io create', 'selfsubjectreviews.authentication.k8s.io create', 'selfsubjectrulesreviews.authorization.k8s.io create']);

describe('the chart installed, and the RBAC proof', () => {
  let reference: RunningAgent;
  let referenceCookie: string;

  before(async () => {
    await helm(['install', RELEASE, CHART_DIR, '-n', NAMESPACE, '--create-namespace', '--set', `security.adminPassword=${ADMIN_PASSWORD}`]);
    // The same agent with the suite's admin kubeconfig: what "nothing missing" is measured against.
    reference = await startTestAgent('chart-reference', { accounts: { adminPassword: ADMIN_PASSWORD } });
    referenceCookie = await signIn(reference.url, ADMIN_PASSWORD);
  });
  after(async () => {
    await reference.close();
    await helm(['uninstall', RELEASE, '-n', NAMESPACE, '--wait']);
    // The key Secret and the volume outlive an uninstall by design; the next test file installs afresh.
    await k(['delete', 'namespace', NAMESPACE, '--ignore-not-found', '--wait=true', '--timeout=100s']);
  });

  it('by default: the agent as the chart ServiceAccount answers everything an unrestricted agent answers, and holds no workload write or Secret delete', async () => {
    const agent = await agentAsServiceAccount();
    try {
      // The admin password the chart seeded signs in.
      const cookie = await signIn(agent.url, ADMIN_PASSWORD);
      const ready = await fetch(`${agent.url}/readyz`);
      assert.equal(ready.status, 200);
      assert.deepEqual(((await ready.json()) as { unreadable: string[] }).unreadable, [], 'no informer was refused');
      const [mine, theirs] = [await read<Namespaces>(agent.url, cookie, '/namespaces'), await read<Namespaces>(reference.url, referenceCookie, '/namespaces')];
      assert.deepEqual(namesOf(mine), namesOf(theirs));
      assert.ok(namesOf(mine).includes('shop'));
      const overview = await read<Overview>(agent.url, cookie, '/overview');
      assert.equal(overview.namespaces.length, theirs.namespaces.length);
      // The demo's crash loop, seen through the chart's RBAC: incidents, their story's root cause, the model.
      await waitFor('the crash loop as an incident', async () => (await read<Incidents>(agent.url, cookie, '/incidents')).incidents.some((i) => i.namespace === 'shop' && i.reason === 'CrashLoopBackOff'), 60_000);
      const diagnosis = await read<Diagnosis>(agent.url, cookie, '/diagnosis?namespace=shop');
      assert.ok(diagnosis.root_causes.some((r) => r.finding.code === 'CrashLoopBackOff'), JSON.stringify(diagnosis.root_causes.map((r) => r.finding.code)));
      const referenceCodes = new Set((await read<Diagnosis>(reference.url, referenceCookie, '/diagnosis')).root_causes.map((r) => r.finding.code));
      const codes = new Set((await read<Diagnosis>(agent.url, cookie, '/diagnosis')).root_causes.map((r) => r.finding.code));
      assert.deepEqual([...codes].sort(), [...referenceCodes].sort(), 'the same kinds of root cause across the cluster');
      await read(agent.url, cookie, '/graph/subgraph?focus=namespace:shop');
    } finally {
      await agent.stop();
    }

    const shop = writes(await canI('shop')).filter((w) => !ALWAYS_ALLOWED.has(w));
    assert.deepEqual(shop, [], 'no write verb in a workload namespace');
    const own = await canI(NAMESPACE);
    assert.ok(own.get('secrets')?.has('create'), 'its own namespace: Secret writes');
    for (const [resource, verbs] of own) {
      if (resource !== 'secrets') for (const verb of verbs) assert.ok(!WRITE_VERBS.has(verb) || ALWAYS_ALLOWED.has(`${resource} ${verb}`), `its own namespace: ${resource} ${verb}`);
    }
  });

  it('rbac.allowWrites adds exactly the spec writes', async () => {
    await helm(['upgrade', RELEASE, CHART_DIR, '-n', NAMESPACE, '--reuse-values', '--set', 'rbac.allowWrites=true']);
    const granted = writes(await canI('shop')).filter((w) => !ALWAYS_ALLOWED.has(w));
    assert.deepEqual(granted, ['deployments.apps patch', 'deployments.apps update', 'namespaces create', 'pods create', 'pods delete', 'pods/exec create', 'secrets create', 'secrets patch', 'secrets update']);
    assert.ok(!granted.some((w) => w.startsWith('secrets delete')), 'Secret delete never');
    await helm(['upgrade', RELEASE, CHART_DIR, '-n', NAMESPACE, '--reuse-values', '--set', 'rbac.allowWrites=false']);
    assert.deepEqual(writes(await canI('shop')).filter((w) => !ALWAYS_ALLOWED.has(w)), [], 'and takes them back');
  });

  it('rbac.clusterWide=false over two tenant namespaces: the agent works in those two and sees nothing else', async () => {
    await helm(['upgrade', RELEASE, CHART_DIR, '-n', NAMESPACE, '--reuse-values', '--set', 'rbac.clusterWide=false', '--set', `tenantNamespaces={${TENANTS.join(',')}}`]);
    const elsewhere = await canI('marketing');
    assert.ok(!elsewhere.get('pods')?.has('list'), 'no pod reads outside the tenants');
    assert.ok((await canI('shop')).get('pods')?.has('list'), 'pod reads in a tenant');
    const agent = await agentAsServiceAccount();
    try {
      const cookie = await signIn(agent.url, ADMIN_PASSWORD);
      assert.deepEqual(namesOf(await read<Namespaces>(agent.url, cookie, '/namespaces')), [...TENANTS].sort());
      await waitFor('the crash loop in shop', async () => (await read<Incidents>(agent.url, cookie, '/incidents')).incidents.some((i) => i.namespace === 'shop' && i.reason === 'CrashLoopBackOff'), 60_000);
      const incidents = await read<Incidents>(agent.url, cookie, '/incidents');
      assert.deepEqual([...new Set(incidents.incidents.map((i) => i.namespace))].filter((n) => !TENANTS.includes(n)), [], 'no incident from another namespace');
      const diagnosis = await read<Diagnosis>(agent.url, cookie, '/diagnosis');
      const foreign = diagnosis.root_causes.map((r) => r.finding.object).filter((id) => /^[a-z]+:[^/]+\//.test(id) && !TENANTS.some((t) => id.includes(`:${t}/`)));
      assert.deepEqual(foreign, [], 'no root cause about another namespace');
      assert.match(agent.stderr(), /"message":"watching per namespace"/, 'it says at start that it watches per namespace');
    } finally {
      await agent.stop();
    }
    await helm(['upgrade', RELEASE, CHART_DIR, '-n', NAMESPACE, '--reuse-values', '--set', 'rbac.clusterWide=true', '--set-json', 'tenantNamespaces=[]']);
  });
});
