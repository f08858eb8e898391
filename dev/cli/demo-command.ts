import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startAgent } from '../../runtime/agent.ts';
import { readInitialAdminPassword } from '../../runtime/auth/accounts.ts';
import { down, up } from '../localcluster/cluster.ts';
import { applyDemoScannerReports } from '../localcluster/scanner-reports.ts';
import { createLogger } from '../../runtime/log.ts';
import { agentOptionsFromEnv } from '../../runtime/cli/env-options.ts';
import { untilSignal } from '../../runtime/cli/signals.ts';
import { startUiServer } from '../../ui/server.ts';

const DEFAULT_DIR = fileURLToPath(new URL('../../.localcluster/demo', import.meta.url));

/** A newcomer's first command: local control plane, the demo scenario, the agent; Ctrl-C undoes it all. */
export async function runDemoCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      dir: { type: 'string', default: DEFAULT_DIR },
      port: { type: 'string', default: '8080' },
      'ui-port': { type: 'string', default: '3000' },
      scenario: { type: 'string', default: 'demo' },
    },
  });
  const say = (line: string) => process.stderr.write(`[demo] ${line}\n`);
  // A demo that fails on its way up takes down what it started: nothing is left running unseen.
  let started: Awaited<ReturnType<typeof startDemo>>;
  try {
    started = await startDemo(values, say);
  } catch (err) {
    say(`failed; stopping the cluster: ${err instanceof Error ? err.message : String(err)}`);
    await down(values.dir);
    throw err;
  }
  const { ui, agent } = started;
  await untilSignal();
  say('stopping');
  try {
    // The cluster must go down even if the agent does not close in time.
    await Promise.race([Promise.all([ui.close(), agent.close()]), new Promise((resolve) => setTimeout(resolve, 5000))]);
  } finally {
    await down(values.dir);
  }
  say('cluster stopped; nothing left running');
  return 0;
}

/** Cluster, scenario, scanner reports, agent and dashboard; prints how to reach them. */
async function startDemo(values: { dir: string; port: string; 'ui-port': string; scenario: string }, say: (line: string) => void) {
  const cluster = await up({ dir: values.dir, scenario: values.scenario, progress: (l) => say(l) });
  if (cluster.alreadyRunning) say(`reusing the cluster already running in ${cluster.dir}`);
  if (values.scenario === 'demo') {
    const written = await applyDemoScannerReports(cluster);
    say(`trivy-operator's report CRDs installed, ${written} VulnerabilityReports written from trivy's real JSON on the fixture image (docs/security-posture.md, "The demo")`);
  }

  const port = await freePort(Number(values.port));
  const dataDir = `${cluster.dir}/agent-data`;
  // A demo is for the person at this machine: loopback only.
  const agent = await startAgent({
    kubeconfig: cluster.kubeconfig,
    listen: `127.0.0.1:${port}`,
    dataDir,
    settings: { tenantNamespaces: [] },
    // KWOK serves container network metrics for every node (self-signed, on loopback), so the demo shows them.
    // The dashboard on loopback is the one proxy whose X-Forwarded-For the agent believes.
    ...agentOptionsFromEnv({ METRICS_KUBELET_SCRAPE: 'true', METRICS_KUBELET_INSECURE_TLS: 'true', CAPSTAN_TRUSTED_PROXY_CIDRS: '127.0.0.1/32', ...process.env }),
    log: createLogger('capstan').child('demo'),
  });
  await agent.ready;
  const ui = await startUiServer({ hostname: '127.0.0.1', port: await freePort(Number(values['ui-port'])), agentUrl: agent.url });
  const password = readInitialAdminPassword(dataDir) ?? '(the one in CAPSTAN_ADMIN_PASSWORD)';
  const login = `curl -c /tmp/capstan.cookies -H 'content-type: application/json' -d '{"username":"admin","password":"${password}"}' ${agent.url}/api/agent/auth/login`;
  process.stdout.write(
    [
      '',
      'Capstan demo is running.',
      `  Dashboard:   ${ui.url}/`,
      `  Agent API:   ${agent.url}/api/agent/`,
      `  Sign in:     username admin, password ${password}`,
      `               ${login}`,
      `               curl -b /tmp/capstan.cookies ${agent.url}/api/agent/incidents      (also /overview, /namespaces)`,
      `  kubectl:     ${cluster.binDir}/kubectl --kubeconfig ${cluster.kubeconfig} get pods -A`,
      '',
      'Press Ctrl-C to stop the agent and tear the cluster down.',
      '',
    ].join('\n'),
  );
  return { ui, agent };
}

/** `preferred` when it is free on loopback, else any free port. */
function freePort(preferred: number): Promise<number> {
  const tryListen = (port: number) =>
    new Promise<number | null>((resolve) => {
      const probe = createServer();
      probe.once('error', () => resolve(null));
      probe.listen(port, '127.0.0.1', () => {
        const address = probe.address();
        const bound = typeof address === 'object' && address ? address.port : null;
        probe.close(() => resolve(bound));
      });
    });
  return tryListen(preferred).then((p) => p ?? tryListen(0).then((q) => q ?? 0));
}
