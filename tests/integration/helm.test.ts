// Helm through the expert pod on the real control plane: `capstan expert` as the real process
// with the cluster-admin account of its own ServiceAccount, the hop authenticated by a token
// projected for the expert audience and checked by the API server's TokenReview, the real helm
// installing a chart from a repository served over loopback. The API server's audit log proves
// who wrote what.
// test-plan: shares-cluster
import assert from 'node:assert/strict';
import { gunzipSync, gzipSync } from 'node:zlib';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { auditLogPath } from '../../dev/localcluster/cluster.ts';
import type { RunningAgent } from '../../runtime/agent.ts';
import { k, kJson, startTestAgent, testCluster, waitFor } from '../support/cluster.ts';
import { agentSession, signInAs } from '../support/agent-session.ts';
import { filesContaining } from '../support/files.ts';
import { provisionExpert, serveChartRepository, type ChartRepository, type ProvisionedExpert, type StartedExpert } from '../support/expert.ts';

const SYS = 'it-helm-sys';
const NS = 'it-helm';
const PASSWORD = 'helm-admin-password';
/** A chart value that must never come back: not in an answer, a Task, the agent's files or the expert's log. */
const VALUE_SECRET = 'hunter2-helm-value-secret';

let provisioned: ProvisionedExpert;
let expert: StartedExpert;
let repo: ChartRepository;
let agent: RunningAgent;
let dataDir = '';
let tokenFile = '';
let cookie = '';
/** Every answer body the tests saw is kept (`answers`), searched for the secret at the end. */
const { answers, call, task, taskEnded: ended } = agentSession(() => ({ url: agent.url, cookie }));

const helmBin = () => join(testCluster().binDir, 'helm');

interface ReleaseOut {
  name: string;
  namespace: string;
  revision: number;
  status: string;
  chart_version: string;
  stuck: null | { code: string; message: string; recovery: { action: string; to_revision?: number } };
}

async function release(name: string): Promise<ReleaseOut | undefined> {
  const res = await call('GET', `/helm/releases?namespace=${NS}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (res.body.releases as ReleaseOut[]).find((r) => r.name === name);
}

/** Waits until the release list (cached a few seconds by the agent) shows `want`. */
async function releaseBecomes(name: string, want: (r: ReleaseOut | undefined) => boolean, what: string): Promise<ReleaseOut | undefined> {
  let last: ReleaseOut | undefined;
  await waitFor(
    what,
    async () => {
      last = await release(name);
      return want(last);
    },
    30_000,
    500,
  );
  return last;
}

const chart = (version: string) => ({ repo_url: repo.url, name: 'hello', version });

const token = (account: string, audience: string) => provisioned.token(account, audience);

interface AuditEntry {
  verb: string;
  user: { username: string };
  objectRef?: { resource?: string; namespace?: string; name?: string };
}
/** The API server's record of every write to one object. */
function writesTo(resource: string, name: string): AuditEntry[] {
  return readFileSync(auditLogPath(testCluster().dir), 'utf8')
    .split('\n')
    .filter((l) => l.includes(`"${name}"`))
    .map((l) => JSON.parse(l) as AuditEntry)
    .filter((e) => e.objectRef?.resource === resource && e.objectRef.namespace === NS && e.objectRef.name === name && !['get', 'list', 'watch'].includes(e.verb));
}

async function startAgent(): Promise<void> {
  agent = await startTestAgent('helm', { dataDir, accounts: { adminPassword: PASSWORD }, expert: { url: expert.url, tokenFile }, outbound: { allowLoopback: true, kubernetesApiHosts: [] } });
  cookie = await signInAs(agent.url, 'admin', PASSWORD);
}

describe('Helm through the expert pod', () => {
  before(async () => {
    await k(['create', 'namespace', NS]);
    repo = await serveChartRepository(helmBin(), join(import.meta.dirname, '../fixtures/charts/hello'), ['0.1.0', '0.2.0']);
    provisioned = await provisionExpert(SYS);
    expert = provisioned.expert;
    tokenFile = provisioned.tokenFile;
    dataDir = mkdtempSync(join(tmpdir(), 'capstan-helm-agent-'));
    await startAgent();
  });
  after(async () => {
    await agent.close();
    await provisioned.remove();
    await repo.close();
    await k(['delete', 'namespace', NS, '--wait=false']);
  });

  it("the hop answers only the agent's token for the expert audience, checked by TokenReview", async () => {
    const status = async (authorization?: string) => (await fetch(`${expert.url}/releases`, { headers: authorization ? { authorization } : {} })).status;
    assert.equal(await status(), 401, 'no token');
    assert.equal(await status('Bearer not-a-token'), 401, 'a forged token');
    assert.equal(await status(`Bearer ${await token('capstan', 'some-other-audience')}`), 401, "the agent's token for another audience");
    assert.equal(await status(`Bearer ${await token('intruder', 'capstan-expert')}`), 401, "another account's token for the expert audience");
    assert.equal(await status(`Bearer ${readFileSync(tokenFile, 'utf8')}`), 200, "the agent's projected token");
    assert.match(expert.log(), /may not call the expert pod/);
  });

  it('every Helm route is closed until an admin turns expert mode on, which no API key can do', async () => {
    const key = ((await call('POST', '/me/api-keys', { name: 'helm-ci', scopes: ['helm:read', 'helm:write'] })).body as { key: string }).key;
    assert.equal((await call('GET', '/helm/releases', undefined, { key })).body.error, 'expert_mode_disabled');
    assert.equal((await call('GET', '/helm/releases')).body.error, 'expert_mode_disabled');
    const byKey = await call('PUT', '/admin/expert-mode', { enabled: true }, { key });
    assert.deepEqual([byKey.status, byKey.body.error], [403, 'api_key_forbidden']);
    const on = await call('PUT', '/admin/expert-mode', { enabled: true });
    assert.deepEqual(on.body, { enabled: true, provisioned: true });
    assert.equal((await call('GET', '/helm/releases', undefined, { key })).status, 200);
  });

  it("the dry run shows what an install would create, Secrets' data hidden", async () => {
    const res = await call('POST', `/helm/releases/${NS}/web/diff`, { chart: chart('0.1.0'), values: { greeting: 'first', password: VALUE_SECRET } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.installed, false);
    assert.equal(res.body.chart_version, '0.1.0');
    assert.equal(res.body.removed, 0);
    assert.ok((res.body.added as number) > 5);
    assert.match(res.body.diff as string, /^\+ {2}greeting: first$/m);
    assert.match(res.body.diff as string, /password: "?\[REDACTED\]"?/);
    assert.equal((await release('web')) ?? null, null, 'a dry run installs nothing');
  });

  it('install → upgrade → rollback → uninstall of a real chart, each a Task, each written by the expert account', async () => {
    const install = await call('POST', '/helm/releases', { namespace: NS, name: 'web', chart: chart('0.1.0'), values: { greeting: 'first', password: VALUE_SECRET } });
    assert.equal(install.status, 200, JSON.stringify(install.body));
    const installed = await ended(install.body.task_id as string);
    assert.deepEqual([installed.kind, installed.state, installed.actor], ['helm_install', 'finished', 'admin'], installed.detail);
    assert.match(installed.detail, /revision 1, deployed/);
    const greeting = async () => (await kJson<{ data: { greeting: string; chart: string } }>(['get', 'configmap', 'web-greeting', '-n', NS])).data;
    assert.deepEqual(await greeting(), { greeting: 'first', chart: '0.1.0' });

    const detail = await call('GET', `/helm/releases/${NS}/web`);
    assert.equal(detail.status, 200, JSON.stringify(detail.body));
    assert.deepEqual(detail.body.values, { greeting: 'first', password: '[REDACTED]' });

    const diff = await call('POST', `/helm/releases/${NS}/web/diff`, { chart: chart('0.2.0'), values: { greeting: 'second', password: VALUE_SECRET } });
    assert.equal(diff.body.installed, true);
    assert.match(diff.body.diff as string, /^- {2}greeting: first$/m);
    assert.match(diff.body.diff as string, /^\+ {2}greeting: second$/m);

    const upgrade = await call('POST', `/helm/releases/${NS}/web/upgrade`, { chart: chart('0.2.0'), values: { greeting: 'second', password: VALUE_SECRET } });
    assert.equal((await ended(upgrade.body.task_id as string)).state, 'finished');
    assert.deepEqual(await greeting(), { greeting: 'second', chart: '0.2.0' });
    const upgraded = await releaseBecomes('web', (r) => r?.revision === 2, 'revision 2 listed');
    assert.deepEqual([upgraded?.status, upgraded?.chart_version], ['deployed', '0.2.0']);

    const rollback = await call('POST', `/helm/releases/${NS}/web/rollback`, { revision: 1 });
    const rolled = await ended(rollback.body.task_id as string);
    assert.deepEqual([rolled.kind, rolled.state], ['helm_rollback', 'finished']);
    assert.deepEqual(await greeting(), { greeting: 'first', chart: '0.1.0' });
    await releaseBecomes('web', (r) => r?.revision === 3 && r.chart_version === '0.1.0', 'revision 3 (the rollback) listed');
    const history = (await call('GET', `/helm/releases/${NS}/web`)).body.history as { revision: number; status: string }[];
    assert.deepEqual(history.map((h) => `${String(h.revision)}:${h.status}`), ['3:deployed', '2:superseded', '1:superseded']);

    const uninstall = await call('DELETE', `/helm/releases/${NS}/web`);
    assert.equal((await ended(uninstall.body.task_id as string)).state, 'finished');
    await releaseBecomes('web', (r) => r === undefined, 'the release gone from the list');
    assert.equal((await k(['get', 'configmap', '-n', NS, '-o', 'name'])).includes('web-greeting'), false);

    const writes = writesTo('configmaps', 'web-greeting');
    assert.deepEqual([...new Set(writes.map((w) => w.verb))].sort(), ['create', 'delete', 'patch']);
    assert.deepEqual([...new Set(writes.map((w) => w.user.username))], [provisioned.expertUser], 'only the expert account wrote');
    assert.ok(writesTo('secrets', 'web-creds').every((w) => w.user.username === provisioned.expertUser));
  });

  it('a release stuck in pending-upgrade is diagnosed, upgrades fail, and the rollback it offers recovers it', async () => {
    const install = await call('POST', '/helm/releases', { namespace: NS, name: 'stuck', chart: chart('0.1.0') });
    assert.equal((await ended(install.body.task_id as string)).state, 'finished');
    // What a helm killed mid-upgrade leaves: a newer revision, pending, written long ago.
    const first = await kJson<{ data: { release: string } }>(['get', 'secret', 'sh.helm.release.v1.stuck.v1', '-n', NS]);
    const record = JSON.parse(gunzipSync(Buffer.from(Buffer.from(first.data.release, 'base64').toString(), 'base64')).toString()) as { version: number; info: { status: string; last_deployed: string } };
    record.version = 2;
    record.info.status = 'pending-upgrade';
    record.info.last_deployed = new Date(Date.now() - 10 * 60 * 1000).toISOString();
    const encoded = gzipSync(JSON.stringify(record)).toString('base64');
    await k(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Secret', type: 'helm.sh/release.v1', metadata: { name: 'sh.helm.release.v1.stuck.v2', namespace: NS, labels: { owner: 'helm', name: 'stuck', status: 'pending-upgrade', version: '2' } }, data: { release: Buffer.from(encoded).toString('base64') } }));

    const stuck = await releaseBecomes('stuck', (r) => r?.stuck !== null && r?.stuck !== undefined, 'the stuck diagnosis');
    assert.ok(stuck?.stuck);
    assert.equal(stuck.stuck.code, 'helm_release_stuck');
    assert.deepEqual(stuck.stuck.recovery, { action: 'rollback', to_revision: 1 });

    const upgrade = await call('POST', `/helm/releases/${NS}/stuck/upgrade`, { chart: chart('0.2.0') });
    const refused = await ended(upgrade.body.task_id as string);
    assert.deepEqual([refused.state, refused.reason], ['failed', 'HelmFailed']);
    assert.match(refused.detail, /another operation/);

    const rollback = await call('POST', `/helm/releases/${NS}/stuck/rollback`, { revision: 1 });
    assert.equal((await ended(rollback.body.task_id as string)).state, 'finished');
    const recovered = await releaseBecomes('stuck', (r) => r?.revision === 3, 'the rollback listed');
    assert.deepEqual([recovered?.status, recovered?.stuck], ['deployed', null]);
  });

  it('an operation past its timeout is a failed Task, never a finished one; a second one meanwhile is refused, changing nothing', async () => {
    // A LoadBalancer Service KWOK never gives an address: --wait waits until the timeout.
    const install = await call('POST', '/helm/releases', { namespace: NS, name: 'slow', chart: chart('0.1.0'), values: { loadBalancer: true }, wait: true, timeout_secs: 10 });
    // While it waits, a second operation on the same release is refused by the expert pod before anything runs.
    const second = await call('POST', `/helm/releases/${NS}/slow/upgrade`, { chart: chart('0.2.0') });
    const busy = await ended(second.body.task_id as string);
    assert.deepEqual([busy.state, busy.reason], ['failed', 'ExpertBusy'], busy.detail);
    assert.match(busy.detail, /another operation on it-helm\/slow is running/);
    const failed = await ended(install.body.task_id as string);
    assert.deepEqual([failed.state, failed.reason], ['failed', 'DeadlineExceeded']);
  });

  it('an agent restart mid-operation leaves the Task stopped reporting (amber), never finished', async () => {
    const install = await call('POST', '/helm/releases', { namespace: NS, name: 'restarted', chart: chart('0.1.0'), values: { loadBalancer: true }, wait: true, timeout_secs: 10 });
    const id = install.body.task_id as string;
    assert.equal((await task(id))?.state, 'running');
    await agent.close();
    await startAgent();
    const after = await task(id);
    assert.deepEqual([after?.state, after?.reason], ['stopped_reporting', 'AgentRestarted']);
  });

  it('a value given to a chart never comes back: not in an answer, a Task, the agent files or the expert log', async () => {
    assert.deepEqual(answers.filter((a) => a.includes(VALUE_SECRET)), []);
    assert.deepEqual(filesContaining(dataDir, VALUE_SECRET), []);
    assert.equal(expert.log().includes(VALUE_SECRET), false);
    // The restarted agent's operation is still waiting in the expert pod, until its timeout.
    await waitFor('every operation to remove its private directory', () => Promise.resolve(readdirSync(expert.workDir).length === 0), 60_000, 500);
  });
});
