// Pod exec end to end on the real control plane: a pod on a KWOK node whose exec KWOK answers
// with a local shell in a PTY (dev/localcluster/kwok-config.ts, ClusterExec), the agent's
// WebSocket exec through the API server with its own credential, xterm's headless terminal
// rendering what a browser would show, the command record read from the shell's marks, and the
// API server's audit log naming who ran the exec.
// test-plan: shares-cluster
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { auditLogPath } from '../../dev/localcluster/cluster.ts';
import type { RunningAgent } from '../../runtime/agent.ts';
import { k, serviceAccountKubeconfig, startTestAgent, testCluster, waitFor } from '../support/cluster.ts';
import { signInAs } from '../support/agent-session.ts';
import { openTerminal, type TerminalClient } from '../support/terminal.ts';

const NS = 'it-pod-exec';
const PASSWORD = 'pod-exec-admin-password';
const VIEWER_PASSWORD = 'pod-exec-viewer-password';
const TYPED_SECRET = 'pod-exec-typed-secret';

let agent: RunningAgent;
let unprivileged: RunningAgent;
let cookie = '';
const open: TerminalClient[] = [];

const execUrl = (a: RunningAgent, container = 'app') => `${a.url.replace('http:', 'ws:')}/api/agent/terminal/ws/pods/${NS}/shell?container=${container}`;

interface SessionRow {
  id: string;
  target: string | null;
  ended_at: string | null;
  end_reason: string | null;
  commands: { command: string }[];
}

describe('pod exec', () => {
  before(async () => {
    await k(['apply', '-f', '-'], `apiVersion: v1
kind: Namespace
metadata: {name: ${NS}}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: reader, namespace: ${NS}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: it-pod-exec-reader}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects: [{kind: ServiceAccount, name: reader, namespace: ${NS}}]
---
apiVersion: v1
kind: Pod
metadata: {name: shell, namespace: ${NS}}
spec:
  nodeName: kwok-node-1
  automountServiceAccountToken: false
  containers:
    - {name: app, image: busybox}
`);
    await waitFor('the pod running', async () => (await k(['get', 'pod', 'shell', '-n', NS, '-o', 'jsonpath={.status.phase}'])) === 'Running', 30_000, 500);
    agent = await startTestAgent('pod-exec', { accounts: { adminPassword: PASSWORD, viewerPassword: VIEWER_PASSWORD } });
    unprivileged = await startTestAgent('pod-exec-view', { kubeconfig: await serviceAccountKubeconfig('reader', NS), accounts: { adminPassword: PASSWORD } });
    cookie = await signInAs(agent.url, 'admin', PASSWORD);
  });
  after(async () => {
    for (const client of open) await client.close();
    await agent.close();
    await unprivileged.close();
    await k(['delete', 'clusterrolebinding', 'it-pod-exec-reader', '--ignore-not-found']);
    await k(['delete', 'namespace', NS, '--wait=false']);
  });

  it('refuses no session, an API key, a viewer, another site, and an agent whose RBAC has no pods/exec', async () => {
    const key = ((await (await fetch(`${agent.url}/api/agent/me/api-keys`, { method: 'POST', headers: { cookie, 'content-type': 'application/json', origin: agent.url }, body: JSON.stringify({ name: 'ci', scopes: ['workloads:write'] }) })).json()) as { key: string }).key;
    const viewer = await signInAs(agent.url, 'viewer', VIEWER_PASSWORD);
    const refusals: [string, string, Record<string, string>, number][] = [
      ['no credential', execUrl(agent), { origin: agent.url }, 401],
      ['an API key', execUrl(agent), { 'x-api-key': key }, 403],
      ['a viewer', execUrl(agent), { cookie: viewer, origin: agent.url }, 403],
      ['another site', execUrl(agent), { cookie, origin: 'https://evil.example' }, 403],
      ['a bad container name', execUrl(agent, 'Not_A_Name'), { cookie, origin: agent.url }, 400],
      ['the agent without pods/exec', execUrl(unprivileged), { cookie: await signInAs(unprivileged.url, 'admin', PASSWORD), origin: unprivileged.url }, 403],
    ];
    for (const [what, url, headers, status] of refusals) {
      await assert.rejects(openTerminal(url, headers), (err: { status?: number }) => err.status === status, what);
    }
  });

  it("opens a shell in the container, records its commands redacted, and ends when it exits", async () => {
    const t = await openTerminal(execUrl(agent), { cookie, origin: agent.url });
    open.push(t);
    // `\$` is `#` for root (KWOKs shell runs as this machine's user).
    await t.waitFor(/shell:\/tmp[$#] $/m);
    t.type('echo hello-$((6*7))\r');
    await t.waitFor(/^hello-42$/m);
    t.type(`curl -s -u bob:${TYPED_SECRET} http://127.0.0.1:9/ ; echo done-1\r`);
    await t.waitFor(/^done-1$/m);
    t.type('exit 3\r');
    assert.deepEqual(await t.exited, { code: 3, reason: 'exited' });

    let session: SessionRow | undefined;
    await waitFor(
      'the session ended in the audit',
      async () => {
        const res = await fetch(`${agent.url}/api/agent/admin/terminal/sessions`, { headers: { cookie } });
        session = ((await res.json()) as { sessions: SessionRow[] }).sessions.find((s) => s.id === t.session);
        return session?.ended_at !== null && session?.ended_at !== undefined;
      },
      10_000,
      200,
    );
    assert.ok(session);
    assert.equal(session.target, `${NS}/shell/app`);
    assert.equal(session.end_reason, 'exited');
    assert.deepEqual(session.commands.map((c) => c.command), ['echo hello-$((6*7))', 'curl -s -u bob:[REDACTED] http://127.0.0.1:9/ ; echo done-1', 'exit 3']);
    const timeline = (await (await fetch(`${agent.url}/api/agent/admin/audit/events?category=terminal&q=${encodeURIComponent(TYPED_SECRET)}`, { headers: { cookie } })).json()) as { events: unknown[] };
    assert.deepEqual(timeline.events, [], 'the typed secret is in no timeline event');

    // The API server's audit log: the exec was the agent's own request, with Capstan's User-Agent.
    const execs = readFileSync(auditLogPath(testCluster().dir), 'utf8')
      .split('\n')
      .filter((l) => l.includes('"exec"') && l.includes(`"${NS}"`))
      .map((l) => JSON.parse(l) as { userAgent: string; objectRef?: { subresource?: string; name?: string } });
    assert.ok(execs.some((e) => e.userAgent.startsWith('capstan/') && e.objectRef?.subresource === 'exec' && e.objectRef.name === 'shell'), 'an exec by capstan in the audit log');
  });
});
