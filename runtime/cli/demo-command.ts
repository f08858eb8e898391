import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startAgent } from '../agent.ts';
import { down, up } from '../localcluster/cluster.ts';
import { createLogger } from '../log.ts';
import { untilSignal } from './signals.ts';

const DEFAULT_DIR = fileURLToPath(new URL('../../.localcluster/demo', import.meta.url));

/** A newcomer's first command: local control plane, the demo scenario, the agent; Ctrl-C undoes it all. */
export async function runDemoCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      dir: { type: 'string', default: DEFAULT_DIR },
      port: { type: 'string', default: '8080' },
      scenario: { type: 'string', default: 'demo' },
    },
  });
  const say = (line: string) => process.stderr.write(`[demo] ${line}\n`);
  const cluster = await up({ dir: values.dir, scenario: values.scenario, progress: (l) => say(l) });
  if (cluster.alreadyRunning) say(`reusing the cluster already running in ${cluster.dir}`);

  const port = await freePort(Number(values.port));
  // No authentication exists yet, so the demo agent listens on loopback only.
  const agent = await startAgent({
    kubeconfig: cluster.kubeconfig,
    listen: `127.0.0.1:${port}`,
    dataDir: `${cluster.dir}/agent-data`,
    settings: { tenantNamespaces: [] },
    log: createLogger('capstan').child('demo'),
  });
  await agent.ready;
  process.stdout.write(
    [
      '',
      'Capstan demo is running.',
      `  Agent API:   ${agent.url}/api/agent/namespaces`,
      `  kubectl:     ${cluster.binDir}/kubectl --kubeconfig ${cluster.kubeconfig} get pods -A`,
      '  Sign-in:     none yet: this build has no accounts, so the agent only listens on 127.0.0.1.',
      '',
      'Press Ctrl-C to stop the agent and tear the cluster down.',
      '',
    ].join('\n'),
  );
  await untilSignal();
  say('stopping');
  await agent.close();
  await down(values.dir);
  say('cluster stopped; nothing left running');
  return 0;
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
