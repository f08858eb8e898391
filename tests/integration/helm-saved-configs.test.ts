// Saved Helm configs on the real control plane: a real OCI registry (Debian's docker-registry
// behind htpasswd) holding a chart pushed by the real helm, a config saving its URL and password
// (sealed at rest), and an install through the expert pod whose chart the agent pulled with
// those credentials. The password must never come back: not in an answer, a file of the agent,
// its log or the expert pod's.
// test-plan: shares-cluster
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { RunningAgent } from '../../runtime/agent.ts';
import { createLogger } from '../../runtime/log.ts';
import { k, kJson, startTestAgent, testCluster } from '../support/cluster.ts';
import { agentSession, signInAs } from '../support/agent-session.ts';
import { filesContaining } from '../support/files.ts';
import { provisionExpert, type ProvisionedExpert } from '../support/expert.ts';
import { pushChart, startRegistry, type RunningRegistry } from '../support/registry.ts';

const SYS = 'it-helm-oci-sys';
const NS = 'it-helm-oci';
const PASSWORD = 'helm-oci-admin-password';
const REGISTRY_USER = 'ci-puller';
const REGISTRY_SECRET = 'registry-s3cret-never-shown';
const WRONG_SECRET = 'wrong-registry-password-never-shown';

let provisioned: ProvisionedExpert;
let registry: RunningRegistry;
let agent: RunningAgent;
let dataDir = '';
let cookie = '';
const agentLog: string[] = [];
const { answers, call, taskEnded: ended } = agentSession(() => ({ url: agent.url, cookie }));

describe('saved Helm configs and an OCI registry with a password', () => {
  let configId = 0;
  before(async () => {
    await k(['create', 'namespace', NS]);
    registry = await startRegistry({ username: REGISTRY_USER, password: REGISTRY_SECRET });
    await pushChart(join(testCluster().binDir, 'helm'), join(import.meta.dirname, '../fixtures/charts/hello'), '0.3.0', { host: registry.host, path: 'charts', username: REGISTRY_USER, password: REGISTRY_SECRET });
    provisioned = await provisionExpert(SYS);
    dataDir = mkdtempSync(join(tmpdir(), 'capstan-helm-oci-agent-'));
    agent = await startTestAgent('helm-oci', {
      dataDir,
      accounts: { adminPassword: PASSWORD },
      expert: { url: provisioned.expert.url, tokenFile: provisioned.tokenFile },
      outbound: { allowLoopback: true, kubernetesApiHosts: [] },
      log: createLogger('capstan', (line) => agentLog.push(line)),
    });
    cookie = await signInAs(agent.url, 'admin', PASSWORD);
    assert.equal((await call('PUT', '/admin/expert-mode', { enabled: true })).status, 200);
  });
  after(async () => {
    await agent.close();
    await provisioned.remove();
    await registry.close();
    await k(['delete', 'namespace', NS, '--wait=false']);
  });

  it('are an admin session\'s only, with a write-only password shown as ••••', async () => {
    const key = ((await call('POST', '/me/api-keys', { name: 'helm-ci', scopes: ['helm:write'] })).body as { key: string }).key;
    for (const [method, path] of [['GET', '/helm/configs'], ['POST', '/helm/configs'], ['DELETE', '/helm/configs/1']] as const) {
      const res = await call(method, path, method === 'POST' ? { name: 'x', url: 'https://charts.example.com' } : undefined, { key });
      assert.deepEqual([res.status, res.body.error], [403, 'api_key_forbidden'], `${method} ${path}`);
    }
    const saved = await call('POST', '/helm/configs', { name: 'Team registry', url: `oci://${registry.host}/charts`, username: REGISTRY_USER, password: REGISTRY_SECRET, plain_http: true });
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    assert.deepEqual([saved.body.kind, saved.body.username, saved.body.password, saved.body.plain_http], ['oci', REGISTRY_USER, '••••', true]);
    configId = saved.body.id as number;
    const listed = (await call('GET', '/helm/configs')).body.configs as { id: number; password: string | null }[];
    assert.deepEqual(listed.map((c) => [c.id, c.password]), [[configId, '••••']]);

    const twice = await call('POST', '/helm/configs', { name: 'team REGISTRY', url: 'https://charts.example.com' });
    assert.deepEqual([twice.status, twice.body.error, twice.body.field], [409, 'conflict', 'name']);
    const bad = await call('POST', '/helm/configs', { name: 'ftp', url: 'ftp://charts.example.com' });
    assert.deepEqual([bad.status, bad.body.field], [400, 'url']);
    const metadata = await call('POST', '/helm/configs', { name: 'metadata', url: 'http://169.254.169.254/charts' });
    assert.deepEqual([metadata.status, metadata.body.field], [400, 'url']);
  });

  it("installs a chart pulled from the registry with the saved config's credentials", async () => {
    const anonymous = await call('POST', `/helm/releases/${NS}/oci-web/diff`, { chart: { oci_url: `oci://${registry.host}/charts`, name: 'hello', version: '0.3.0', plain_http: true } });
    assert.deepEqual([anonymous.status, anonymous.body.field], [400, 'chart.oci_url']);
    assert.match(anonymous.body.message as string, /refused the credentials/);

    const install = await call('POST', '/helm/releases', { namespace: NS, name: 'oci-web', chart: { config_id: configId, name: 'hello', version: '0.3.0' }, values: { greeting: 'from-oci' } });
    assert.equal(install.status, 200, JSON.stringify(install.body));
    const task = await ended(install.body.task_id as string);
    assert.equal(task.state, 'finished', task.detail);
    const data = (await kJson<{ data: { greeting: string; chart: string } }>(['get', 'configmap', 'oci-web-greeting', '-n', NS])).data;
    assert.deepEqual(data, { greeting: 'from-oci', chart: '0.3.0' });
  });

  it('a wrong password is refused by the registry, an update without one keeps the saved one', async () => {
    const config = { name: 'Team registry', url: `oci://${registry.host}/charts`, username: REGISTRY_USER, plain_http: true };
    assert.equal((await call('PUT', `/helm/configs/${String(configId)}`, { ...config, password: WRONG_SECRET })).status, 200);
    const refused = await call('POST', `/helm/releases/${NS}/oci-web/diff`, { chart: { config_id: configId, name: 'hello', version: '0.3.0' } });
    assert.deepEqual([refused.status, refused.body.field], [400, 'chart.config_id']);
    assert.match(refused.body.message as string, /refused the credentials/);

    assert.equal((await call('PUT', `/helm/configs/${String(configId)}`, { ...config, password: REGISTRY_SECRET })).status, 200);
    const kept = await call('PUT', `/helm/configs/${String(configId)}`, { ...config, name: 'Team registry (renamed)' });
    assert.equal(kept.body.password, '••••');
    const diff = await call('POST', `/helm/releases/${NS}/oci-web/diff`, { chart: { config_id: configId, name: 'hello', version: '0.3.0' }, values: { greeting: 'changed' } });
    assert.equal(diff.status, 200, JSON.stringify(diff.body));
    assert.match(diff.body.diff as string, /^\+ {2}greeting: changed$/m);

    const removed = await call('PUT', `/helm/configs/${String(configId)}`, { ...config, password: '' });
    assert.equal(removed.body.password, null);
    assert.equal((await call('DELETE', `/helm/configs/${String(configId)}`)).status, 200);
    assert.equal((await call('POST', `/helm/releases/${NS}/oci-web/diff`, { chart: { config_id: configId, name: 'hello', version: '0.3.0' } })).body.field, 'chart.config_id');
  });

  it('the registry password never appears in any answer, a file of the agent, its log or the expert log', () => {
    for (const secret of [REGISTRY_SECRET, WRONG_SECRET]) {
      assert.deepEqual(answers.filter((a) => a.includes(secret)), [], 'answers');
      assert.deepEqual(filesContaining(dataDir, secret), [], 'the database is sealed (and its WAL)');
      assert.deepEqual(agentLog.filter((l) => l.includes(secret)), [], "the agent's log");
      assert.equal(provisioned.expert.log().includes(secret), false, "the expert's log");
    }
    assert.ok(agentLog.length > 0, 'the agent logged, so the search above searched something');
  });
});
