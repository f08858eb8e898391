import { parseArgs } from 'node:util';
import { startAgent } from '../agent.ts';
import { agentOptionsFromEnv } from './env-options.ts';
import { parseWatchScope } from '../kube/watch-scope.ts';
import { createLogger } from '../log.ts';
import { untilSignal } from './signals.ts';

export async function runAgentCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      kubeconfig: { type: 'string' },
      listen: { type: 'string', default: ':8080' },
      'data-dir': { type: 'string', default: process.env.CAPSTAN_DATA_DIR ?? './data' },
      'tenant-namespaces': { type: 'string', default: process.env.CAPSTAN_TENANT_NAMESPACES ?? '' },
      // Default from CAPSTAN_WATCH_SCOPE, through agentOptionsFromEnv.
      'watch-scope': { type: 'string' },
    },
    strict: true,
  });
  const log = createLogger();
  const agent = await startAgent({
    kubeconfig: values.kubeconfig ?? process.env.KUBECONFIG,
    listen: values.listen,
    dataDir: values['data-dir'],
    settings: { tenantNamespaces: splitList(values['tenant-namespaces']) },
    ...agentOptionsFromEnv(),
    ...(values['watch-scope'] === undefined ? {} : { watchScope: parseWatchScope(values['watch-scope'], '--watch-scope') }),
    log,
  });
  await untilSignal();
  // Bounded: Kubernetes kills the pod after its grace period (30 s) anyway; exiting first says why.
  const watchdog = setTimeout(() => {
    log.error('shutdown did not finish in time; exiting without waiting (the last "shutdown:" line says how far it got)', { limitMs: SHUTDOWN_LIMIT_MS });
    process.exit(1);
  }, SHUTDOWN_LIMIT_MS);
  await agent.close();
  clearTimeout(watchdog);
  // The shutdown is complete; a request still in flight (an informer's LIST) must not hold the
  // pod in Terminating. Exiting is the caller's job, so only if the process lingers.
  setTimeout(() => {
    log.warn('shutdown complete but work is still pending (an in-flight request?); exiting');
    process.exit(0);
  }, LINGER_MS).unref();
  return 0;
}

/** How long a process whose shutdown is complete may take to end on its own. */
const LINGER_MS = 1000;

/** How long a stop may take before the agent exits without finishing it (below the pod's 30 s grace period). */
const SHUTDOWN_LIMIT_MS = 20_000;

export function splitList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}
