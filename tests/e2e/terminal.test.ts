// The Terminal tab in real Chromium, through an Ingress-like router (the terminal WebSocket to
// the agent, the rest to `capstan ui`): open a shell, run `kubectl get pods`, see the output;
// a second tab; closing a tab ends its shell. The sidecar is the real `capstan terminal`. And a
// pod's shell (pod exec) from the pod's page, its exec answered by KWOK with a local shell.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import type { RunningAgent } from '../../runtime/agent.ts';
import { startUiServer, type RunningUi } from '../../ui/server.ts';
import { assertAccessible, launchBrowser, newContext, screenshot, signIn } from '../support/browser.ts';
import { k, startTestAgent, testCluster, waitFor } from '../support/cluster.ts';
import { startTestIngress, type TestIngress } from '../support/ingress.ts';
import { startSidecarProcess, type StartedSidecar } from '../support/terminal.ts';

const NS = 'e2e-terminal';
const ACCOUNT = 'capstan-terminal';
const PASSWORD = 'terminal-e2e-password';
/** KWOK answers exec into its pods with a local shell (dev/localcluster/kwok-config.ts). */
const EXEC_NS = 'e2e-pod-exec';

let sidecar: StartedSidecar;
let agent: RunningAgent;
let ui: RunningUi;
let ingress: TestIngress;
let browser: Browser;

describe('the Terminal tab in Chromium', () => {
  before(async () => {
    await k(['create', 'namespace', NS]);
    await k(['create', 'serviceaccount', ACCOUNT, '-n', NS]);
    await k(['create', 'clusterrolebinding', 'e2e-terminal-view', '--clusterrole=view', `--serviceaccount=${NS}:${ACCOUNT}`]);
    await k(['apply', '-f', '-'], `apiVersion: v1
kind: Namespace
metadata: {name: ${EXEC_NS}}
---
apiVersion: v1
kind: Pod
metadata: {name: shell, namespace: ${EXEC_NS}}
spec:
  nodeName: kwok-node-1
  automountServiceAccountToken: false
  containers:
    - {name: app, image: busybox}
`);
    sidecar = await startSidecarProcess({ path: `${testCluster().binDir}:/usr/bin:/bin` });
    agent = await startTestAgent('terminal-e2e', { trustedProxyCidrs: '127.0.0.1/32', accounts: { adminPassword: PASSWORD }, terminal: { sidecarUrl: sidecar.url, key: sidecar.key, serviceAccount: { namespace: NS, name: ACCOUNT }, reattachGraceSecs: 60 } });
    ui = await startUiServer({ hostname: '127.0.0.1', port: 0, agentUrl: agent.url });
    ingress = await startTestIngress(ui.url, agent.url);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser.close();
    await ingress.close();
    await ui.close();
    await agent.close();
    await sidecar.stop();
    await k(['delete', 'clusterrolebinding', 'e2e-terminal-view', '--ignore-not-found']);
    await k(['delete', 'namespace', NS, EXEC_NS, '--wait=false']);
  });

  it('opens a shell, runs kubectl get pods, and ends the shell when its tab is closed', async () => {
    const page = await (await newContext(browser)).newPage();
    await signIn(page, ingress.url, 'admin', PASSWORD);
    await page.getByRole('navigation').getByRole('link', { name: 'Terminal', exact: true }).click();
    await page.getByRole('heading', { name: 'Terminal', level: 1 }).waitFor();
    const panel = page.getByRole('tabpanel').first();
    await panel.getByText('Connected').waitFor();
    await panel.getByTestId('terminal').getByText('admin@capstan:~$').waitFor();
    await panel.getByTestId('terminal').click();
    // A few pods, so the header stays on screen (xterm draws only the visible rows).
    await page.keyboard.type('kubectl get pods -n shop -l app=checkout\n');
    await panel.getByTestId('terminal').getByText(/NAME\s+READY\s+STATUS/).waitFor({ timeout: 30_000 });
    await panel.getByTestId('terminal').getByText(/^checkout-/).first().waitFor();
    await assertAccessible(page, 'terminal');
    await screenshot(page, 'terminal');

    await page.getByRole('button', { name: 'New tab' }).click();
    await page.getByRole('tab', { name: 'Shell 2 (default)' }).waitFor();
    await page.getByRole('tabpanel').getByText('Connected').waitFor();
    const sessions = async () => ((await (await page.request.get(`${ingress.url}/api/agent/admin/terminal/sessions`)).json()) as { sessions: { ended_at: string | null; end_reason: string | null; commands: { command: string }[] }[] }).sessions;
    assert.equal((await sessions()).filter((s) => s.ended_at === null).length, 2);
    await page.getByRole('button', { name: 'Close shell 2' }).click();
    await waitFor('the closed tab\'s shell ended', async () => (await sessions()).some((s) => s.end_reason === 'closed'), 10_000, 250);
    assert.ok((await sessions()).some((s) => s.commands.some((c) => c.command === 'kubectl get pods -n shop -l app=checkout')), 'the command is on record');
    await page.context().close();
  });

  it("opens a shell in a pod's container from the pod's page, through the agent's exec", async () => {
    const page = await (await newContext(browser)).newPage();
    await signIn(page, ingress.url, 'admin', PASSWORD);
    await waitFor('the pod running', async () => (await k(['get', 'pod', 'shell', '-n', EXEC_NS, '-o', 'jsonpath={.status.phase}'])) === 'Running', 30_000, 500);
    await page.goto(`${ingress.url}/resources/pods/shell?namespace=${EXEC_NS}`);
    await page.getByRole('link', { name: 'Shell in app' }).click();
    await page.getByRole('tab', { name: 'shell/app' }).waitFor();
    const panel = page.getByRole('tabpanel').first();
    await panel.getByText(`pod ${EXEC_NS}/shell, container app`).waitFor();
    await panel.getByTestId('terminal').getByText(/shell:\/tmp[$#]/).waitFor({ timeout: 30_000 });
    await panel.getByTestId('terminal').click();
    await page.keyboard.type('echo pod-says-$((40+2))\n');
    await panel.getByTestId('terminal').getByText('pod-says-42').waitFor();
    await assertAccessible(page, 'pod shell');
    const sessions = ((await (await page.request.get(`${ingress.url}/api/agent/admin/terminal/sessions`)).json()) as { sessions: { target: string | null; commands: { command: string }[] }[] }).sessions;
    assert.ok(sessions.some((s) => s.target === `${EXEC_NS}/shell/app` && s.commands.some((c) => c.command === 'echo pod-says-$((40+2))')), 'the pod shell and its command are on record');
    await page.context().close();
  });
});
