// `capstan expert`: the expert pod (runtime/expert/server.ts), configured from the environment
// the chart gives its container (docs/expert-mode.md). Its credential is its own ServiceAccount
// (capstan-expert, cluster-admin), mounted only into this pod; `--kubeconfig` is for running
// it outside a cluster (tests, development).
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { systemClock } from '../../domain/clock.ts';
import { EXPERT_AUDIENCE } from '../../schema/expert.ts';
import { parseListen } from '../agent.ts';
import { loadKubeConfig } from '../kube/client.ts';
import { createLogger } from '../log.ts';
import { startExpert } from '../expert/server.ts';
import { tokenReviewer } from '../expert/token-review.ts';
import { untilSignal } from './signals.ts';

/** The port the chart's Service and NetworkPolicy name. */
export const DEFAULT_EXPERT_LISTEN = '0.0.0.0:7690';

export async function runExpertCommand(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { values } = parseArgs({ args, options: { kubeconfig: { type: 'string' } }, strict: true });
  const caller = env.CAPSTAN_EXPERT_AGENT_SERVICE_ACCOUNT ?? '';
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?:[a-z0-9]([-.a-z0-9]*[a-z0-9])?$/.test(caller)) {
    throw new Error(`CAPSTAN_EXPERT_AGENT_SERVICE_ACCOUNT must be <namespace>:<serviceaccount>, the one account allowed to call, got "${caller}"`);
  }
  const log = createLogger('capstan-expert');
  const helm = env.CAPSTAN_EXPERT_HELM ?? 'helm';
  // Refused at start, not at the first operation: an image without helm cannot be an expert pod.
  const version = spawnSync(helm, ['version', '--short'], { encoding: 'utf8', env: { PATH: env.PATH ?? '/usr/local/bin:/usr/bin:/bin', HOME: '/tmp' }, timeout: 10_000 });
  if (version.status !== 0) throw new Error(`CAPSTAN_EXPERT_HELM: "${helm}" does not run (${version.error?.message ?? version.stderr.trim()}); the expert pod needs the helm binary`);
  const kc = loadKubeConfig(values.kubeconfig ?? env.KUBECONFIG);
  const expert = await startExpert({
    listen: parseListen(env.CAPSTAN_EXPERT_LISTEN ?? DEFAULT_EXPERT_LISTEN),
    kc,
    reviewer: tokenReviewer(kc, { audience: env.CAPSTAN_EXPERT_AUDIENCE ?? EXPERT_AUDIENCE, caller, clock: systemClock }),
    helm,
    workDir: env.CAPSTAN_EXPERT_WORK_DIR ?? '/tmp',
    log,
  });
  log.info('expert pod listening', { url: expert.url, caller, helm: version.stdout.trim() });
  await untilSignal();
  await expert.close();
  return 0;
}
