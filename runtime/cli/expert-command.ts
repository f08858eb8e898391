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
import { selfScanRunner, type SelfScanConfig } from '../expert/self-scan.ts';
import { tokenReviewer } from '../expert/token-review.ts';
import { SELF_SCAN_MAX_TIMEOUT_SECS } from '../../schema/expert.ts';
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
  const selfScanConfig = selfScanConfigFromEnv(env);
  const kc = loadKubeConfig(values.kubeconfig ?? env.KUBECONFIG);
  const expert = await startExpert({
    listen: parseListen(env.CAPSTAN_EXPERT_LISTEN ?? DEFAULT_EXPERT_LISTEN),
    kc,
    reviewer: tokenReviewer(kc, { audience: env.CAPSTAN_EXPERT_AUDIENCE ?? EXPERT_AUDIENCE, caller, clock: systemClock }),
    helm,
    workDir: env.CAPSTAN_EXPERT_WORK_DIR ?? '/tmp',
    selfScan: selfScanConfig ? selfScanRunner({ kc, config: selfScanConfig, log: log.child('self-scan') }) : null,
    log,
  });
  log.info('expert pod listening', { url: expert.url, caller, helm: version.stdout.trim() });
  await untilSignal();
  await expert.close();
  return 0;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const QUANTITY = /^[0-9]+(\.[0-9]+)?(m|k|Ki|M|Mi|G|Gi|T|Ti)?$/;

/**
 * Self-scans, from the environment the chart gives the expert container: CAPSTAN_SELF_SCAN_IMAGE
 * (unset: no self-scans), CAPSTAN_EXPERT_NAMESPACE (where the Jobs run: the release's),
 * CAPSTAN_SELF_SCAN_CACHE_CLAIM (empty: no cache volume), CAPSTAN_SELF_SCAN_RESOURCES (JSON
 * requests and limits), CAPSTAN_SELF_SCAN_OFFLINE, CAPSTAN_SELF_SCAN_TIMEOUT_SECS. A wrong value
 * stops the pod at start with the variable named.
 */
export function selfScanConfigFromEnv(env: NodeJS.ProcessEnv): SelfScanConfig | null {
  const scannerImage = env.CAPSTAN_SELF_SCAN_IMAGE ?? '';
  if (scannerImage === '') return null;
  const namespace = env.CAPSTAN_EXPERT_NAMESPACE ?? '';
  if (!DNS_LABEL.test(namespace)) throw new Error(`CAPSTAN_EXPERT_NAMESPACE must be the namespace the scan Jobs run in, got "${namespace}"`);
  const cacheClaim = env.CAPSTAN_SELF_SCAN_CACHE_CLAIM ?? '';
  if (cacheClaim !== '' && !/^[a-z0-9]([-.a-z0-9]{0,251}[a-z0-9])?$/.test(cacheClaim)) throw new Error(`CAPSTAN_SELF_SCAN_CACHE_CLAIM must be a PersistentVolumeClaim name, got "${cacheClaim}"`);
  let resources: SelfScanConfig['resources'] = { requests: {}, limits: {} };
  if (env.CAPSTAN_SELF_SCAN_RESOURCES) {
    try {
      const parsed = JSON.parse(env.CAPSTAN_SELF_SCAN_RESOURCES) as { requests?: Record<string, unknown>; limits?: Record<string, unknown> };
      const side = (o: Record<string, unknown> | undefined): Record<string, string> => {
        const out: Record<string, string> = {};
        for (const [key, value] of Object.entries(o ?? {})) {
          if (!['cpu', 'memory', 'ephemeral-storage'].includes(key) || !QUANTITY.test(String(value))) throw new Error(`${key}: ${String(value)}`);
          out[key] = String(value);
        }
        return out;
      };
      resources = { requests: side(parsed.requests), limits: side(parsed.limits) };
    } catch (err) {
      throw new Error(`CAPSTAN_SELF_SCAN_RESOURCES must be JSON {requests, limits} of cpu/memory quantities (${err instanceof Error ? err.message : String(err)})`);
    }
  }
  const offline = env.CAPSTAN_SELF_SCAN_OFFLINE ?? 'false';
  if (offline !== 'true' && offline !== 'false') throw new Error(`CAPSTAN_SELF_SCAN_OFFLINE must be true or false, got "${offline}"`);
  const timeoutRaw = env.CAPSTAN_SELF_SCAN_TIMEOUT_SECS ?? '1800';
  const timeoutSecs = Number(timeoutRaw);
  if (!Number.isInteger(timeoutSecs) || timeoutSecs < 60 || timeoutSecs > SELF_SCAN_MAX_TIMEOUT_SECS) throw new Error(`CAPSTAN_SELF_SCAN_TIMEOUT_SECS must be a whole number from 60 to ${String(SELF_SCAN_MAX_TIMEOUT_SECS)}, got "${timeoutRaw}"`);
  return { namespace, scannerImage, cacheClaim: cacheClaim === '' ? null : cacheClaim, resources, offline: offline === 'true', timeoutSecs };
}
