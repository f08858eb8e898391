// Terminal sessions separated by privilege (docs/terminal.md, "What a session may do"), on the
// real control plane: both sidecars as the real process (`capstan terminal`), each as the
// chart runs it, under its own Unix user (viewer 65533, admin 65531) with its own key; the
// agent routes an admin's session to the admin sidecar with a token for the writer account
// and a viewer's to the terminal sidecar with the read-only one. The accounts and their RBAC
// are the chart's own objects (rendered with this namespace as a tenant), so the API server
// judges exactly what an install grants, and its audit log names who wrote.
// test-plan: shares-cluster
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { auditLogPath } from '../../dev/localcluster/cluster.ts';
import type { RunningAgent } from '../../runtime/agent.ts';
import { TERMINAL_KEY_HEADER } from '../../runtime/terminal/sidecar.ts';
import { k, startTestAgent, testCluster, waitFor } from '../support/cluster.ts';
import { render, toManifest, type KubeObject } from '../support/chart-render.ts';
import { openTerminal, startSidecarProcess, toolsForAnyUser, type StartedSidecar, type TerminalClient } from '../support/terminal.ts';
import { provisionExpert, type ProvisionedExpert } from '../support/expert.ts';

const NS = 'it-terminal-admin';
const VIEWER_UID = 65533;
const ADMIN_UID = 65531;
const ADMIN_PASSWORD = 'terminal-admin-password';
const VIEWER_PASSWORD = 'terminal-viewer-password';
const READER = `system:serviceaccount:${NS}:capstan-terminal`;
const WRITER = `system:serviceaccount:${NS}:capstan-terminal-admin`;

let viewerSidecar: StartedSidecar;
let adminSidecar: StartedSidecar;
let agent: RunningAgent;
let agentDataDir = '';
let provisioned: ProvisionedExpert;
let tools = '';
const cookies = { admin: '', viewer: '' };
const open: TerminalClient[] = [];

interface AuditEntry {
  verb: string;
  user: { username: string };
  objectRef?: { resource?: string; namespace?: string; name?: string };
  responseStatus?: { code?: number };
}

/**
 * The API server's own record of requests to create a Secret in this test's namespace, by
 * the terminal accounts (a refused create names no object: the name is in the body).
 */
function secretCreates(): AuditEntry[] {
  return readFileSync(auditLogPath(testCluster().dir), 'utf8')
    .split('\n')
    .filter((l) => l.includes(`"${NS}"`) && l.includes('capstan-terminal'))
    .map((l) => JSON.parse(l) as AuditEntry)
    .filter((e) => e.verb === 'create' && e.objectRef?.resource === 'secrets' && e.objectRef.namespace === NS);
}

async function signIn(username: string, password: string): Promise<string> {
  const res = await fetch(`${agent.url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });
  return (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
}

async function terminal(as: 'admin' | 'viewer', session?: string): Promise<TerminalClient> {
  const client = await openTerminal(`${agent.url.replace('http:', 'ws:')}/api/agent/terminal/ws?namespace=${NS}${session === undefined ? '' : `&session=${session}`}`, { cookie: cookies[as], origin: agent.url });
  open.push(client);
  if (session === undefined) await client.waitFor(new RegExp(`${as}@capstan:~\\$ $`, 'm'));
  return client;
}

/** The sidecar's answer to a connection with this key: its first frame, or the HTTP status it refused the upgrade with. */
function sidecarAnswer(url: string, key: string, first: Record<string, unknown>): Promise<string> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: { [TERMINAL_KEY_HEADER]: key } });
    ws.once('unexpected-response', (_req, res) => resolve(`HTTP ${String(res.statusCode)}`));
    ws.once('open', () => ws.send(JSON.stringify(first)));
    ws.once('message', (raw: Buffer) => {
      resolve(raw.toString());
      ws.close();
    });
    ws.once('error', reject);
  });
}

describe('terminal sessions separated by privilege', () => {
  before(async () => {
    await k(['create', 'namespace', NS]);
    // The chart's terminal accounts and their grants, released into this namespace as its one tenant.
    const objects = await render({ terminal: { enabled: true }, rbac: { allowWrites: true, clusterWide: false }, tenantNamespaces: [NS] }, [], { namespace: NS });
    const terminalAccount = (o: KubeObject) => ((o.subjects as { name: string }[] | undefined) ?? []).some((s) => s.name.startsWith('capstan-terminal'));
    const wanted = objects.filter((o) => o.metadata.namespace === NS && ((o.kind === 'ServiceAccount' && o.metadata.name.startsWith('capstan-terminal')) || (o.kind === 'Role' && o.metadata.name === 'capstan-writer') || (o.kind === 'RoleBinding' && terminalAccount(o))));
    assert.deepEqual(wanted.map((o) => `${o.kind}/${o.metadata.name}`).sort(), ['Role/capstan-writer', 'RoleBinding/capstan-terminal-admin-writer', 'RoleBinding/capstan-terminal-view', 'ServiceAccount/capstan-terminal', 'ServiceAccount/capstan-terminal-admin']);
    await k(['apply', '-f', '-'], toManifest(wanted));
    tools = toolsForAnyUser(testCluster().binDir, ['kubectl']);
    const path = `${tools}:/usr/bin:/bin`;
    viewerSidecar = await startSidecarProcess({ path, graceSecs: 30, uid: VIEWER_UID });
    adminSidecar = await startSidecarProcess({ path, graceSecs: 30, uid: ADMIN_UID });
    // The expert pod, whose hop shares the pod's network with the shells.
    provisioned = await provisionExpert(`${NS}-sys`);
    agentDataDir = mkdtempSync(join(tmpdir(), 'capstan-terminal-admin-agent-'));
    agent = await startTestAgent('terminal-admin', {
      dataDir: agentDataDir,
      expert: { url: provisioned.expert.url, tokenFile: provisioned.tokenFile },
      accounts: { adminPassword: ADMIN_PASSWORD, viewerPassword: VIEWER_PASSWORD },
      terminal: {
        sidecarUrl: viewerSidecar.url,
        key: viewerSidecar.key,
        serviceAccount: { namespace: NS, name: 'capstan-terminal' },
        reattachGraceSecs: 30,
        admin: { sidecarUrl: adminSidecar.url, key: adminSidecar.key, serviceAccount: { namespace: NS, name: 'capstan-terminal-admin' } },
      },
    });
    cookies.admin = await signIn('admin', ADMIN_PASSWORD);
    cookies.viewer = await signIn('viewer', VIEWER_PASSWORD);
  });
  after(async () => {
    for (const client of open) await client.close();
    await agent.close();
    await viewerSidecar.stop();
    await adminSidecar.stop();
    await provisioned.remove();
    rmSync(tools, { recursive: true, force: true });
    await k(['delete', 'namespace', NS, '--wait=false']);
  });

  it("runs an admin's session in the admin sidecar, as its own Unix user, whose kubectl writes as capstan-terminal-admin (the API server's audit log says so)", async () => {
    const t = await terminal('admin');
    t.type('echo uid-$(id -u)\r');
    await t.waitFor(new RegExp(`^uid-${ADMIN_UID}$`, 'm'));
    t.type('kubectl auth whoami -o jsonpath={.status.userInfo.username}; echo\r');
    await t.waitFor(new RegExp(`^${WRITER}$`, 'm'));
    t.type('kubectl create secret generic from-admin --from-literal=note=written-by-the-terminal\r');
    await t.waitFor(/^secret\/from-admin created$/m);
    // Reads what the viewer's account reads (view: Secrets' contents excluded), so an admin's shell is a whole one.
    t.type('kubectl get configmap kube-root-ca.crt -o jsonpath={.metadata.name}; echo\r');
    await t.waitFor(/^kube-root-ca\.crt$/m);
    assert.equal((await k(['get', 'secret', 'from-admin', '-n', NS, '-o', 'jsonpath={.data.note}'])).trim(), Buffer.from('written-by-the-terminal').toString('base64'));
    // The session's one write in this namespace: created, by the writer account.
    await waitFor('the write in the API server\'s audit log', () => Promise.resolve(secretCreates().some((e) => e.user.username === WRITER && e.responseStatus?.code === 201)), 15_000, 250);
    // The general log's start names the identity the session got.
    const timeline = (await (await fetch(`${agent.url}/api/agent/admin/audit/events?category=terminal&action=terminal_session_start`, { headers: { cookie: cookies.admin } })).json()) as { events: { detail: Record<string, string> }[] };
    assert.match(timeline.events.find((e) => e.detail.terminal === t.session)?.detail.identity ?? '', new RegExp(`^serviceaccount ${NS}/capstan-terminal-admin, `));
  });

  it("runs a viewer's session in the terminal sidecar, read-only: the same write is forbidden", async () => {
    const t = await terminal('viewer');
    t.type('echo uid-$(id -u)\r');
    await t.waitFor(new RegExp(`^uid-${VIEWER_UID}$`, 'm'));
    t.type('kubectl auth whoami -o jsonpath={.status.userInfo.username}; echo\r');
    await t.waitFor(new RegExp(`^${READER}$`, 'm'));
    t.type('kubectl create secret generic from-viewer --from-literal=note=written-by-the-terminal 2>&1 | head -1\r');
    await t.waitFor(/forbidden/i);
    await waitFor('the refusal in the API server\'s audit log', () => Promise.resolve(secretCreates().some((e) => e.user.username === READER && e.responseStatus?.code === 403)), 15_000, 250);
    assert.deepEqual(secretCreates().filter((e) => e.user.username === READER && e.responseStatus?.code !== 403), [], 'no create by the read-only account went through');
    await assert.rejects(k(['get', 'secret', 'from-viewer', '-n', NS]), /NotFound|not found/);
    const timeline = (await (await fetch(`${agent.url}/api/agent/admin/audit/events?category=terminal&action=terminal_session_start`, { headers: { cookie: cookies.admin } })).json()) as { events: { detail: Record<string, string> }[] };
    assert.match(timeline.events.find((e) => e.detail.terminal === t.session)?.detail.identity ?? '', new RegExp(`^serviceaccount ${NS}/capstan-terminal, `));
  });

  it("keeps the admin's key and session kubeconfigs from a viewer's shell, and the viewer's key opens nothing on the admin sidecar", async () => {
    const admin = await terminal('admin');
    const kubeconfig = join(adminSidecar.home, 'sessions', admin.session, 'kubeconfig');
    assert.ok(existsSync(kubeconfig), 'the admin session\'s kubeconfig is there, with its write token');
    const viewer = await terminal('viewer');
    const adminKeyFile = join(adminSidecar.home, '..', 'key');
    viewer.type(`cat ${adminKeyFile} ${kubeconfig} ${join(adminSidecar.home, 'users')}/*/.capstan_history; echo read-done\r`);
    await viewer.waitFor(/^read-done$/m);
    assert.equal(viewer.text().match(/Permission denied/g)?.length, 3, viewer.text());
    assert.doesNotMatch(viewer.text(), new RegExp(adminSidecar.key), 'the admin key is not on the viewer\'s screen');
    assert.doesNotMatch(viewer.text(), /token:/, 'nor a write token');
    // The viewer sidecar's key, which its shells could read, is refused by the admin sidecar.
    assert.equal(await sidecarAnswer(adminSidecar.url, viewerSidecar.key, { type: 'attach', session: admin.session, cols: 80, rows: 24 }), 'HTTP 401');
  });

  it("from inside a shell, even an admin's: the expert hop answers 401 without the agent's token, and the agent's process and data are out of reach", async () => {
    const t = await terminal('admin');
    // The agent runs in this test's process (as the pod's agent container would, another user).
    t.type(`curl -s -o /dev/null -w 'hop-%{http_code}\\n' ${provisioned.expert.url}/releases; cat /proc/${String(process.pid)}/environ > /dev/null 2>&1 || echo environ-denied; ls ${agentDataDir} > /dev/null 2>&1 || echo data-denied; echo probe-done\r`);
    await t.waitFor(/^probe-done$/m);
    const lines = t.text().split(/\r?\n/);
    for (const want of ['hop-401', 'environ-denied', 'data-denied']) assert.ok(lines.includes(want), `${want}:\n${t.text()}`);
    assert.ok(readdirSync(agentDataDir).length > 0, 'the data directory the shell was denied is the agent\'s, with its database in it');
  });

  it('re-attaches a session only on the sidecar that holds it, and only for its owner', async () => {
    const t = await terminal('admin');
    t.type('export KEPT=admin-shell; echo set-done\r');
    await t.waitFor(/^set-done$/m);
    await t.close();
    // Another person's id is not found (the viewer's session is on the other sidecar anyway).
    await assert.rejects(terminal('viewer', t.session), (err: { status?: number }) => err.status === 404);
    // The viewer sidecar never heard of it: ids of one sidecar are unknown to the other.
    assert.match(await sidecarAnswer(viewerSidecar.url, viewerSidecar.key, { type: 'attach', session: t.session, cols: 80, rows: 24 }), /no such session/);
    const again = await terminal('admin', t.session);
    again.type('echo kept-$KEPT\r');
    await again.waitFor(/^kept-admin-shell$/m);
  });
});
