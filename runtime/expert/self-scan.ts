// A self-scan in the expert pod (docs/security-posture.md, "Self-scan"): the Job the chart's
// configuration describes (domain/security/self-scan.ts) over the images the agent names, in the
// expert's own namespace; wait for it to end; read its container's log (bounded by the API
// server's limitBytes); delete the Job. The expert's cluster-admin account creates it: the
// agent's own account can create nothing.
import { randomBytes } from 'node:crypto';
import { parseScanLog, SELF_SCAN_CONTAINER, SELF_SCAN_LOG_MAX_BYTES, selfScanJob, type SelfScanJobInput } from '../../domain/security/self-scan.ts';
import type { WireSelfScan, WireSelfScanResult } from '../../schema/expert.ts';
import { apiRequest } from '../kube/api-request.ts';
import { refusalMessage, type KubeAccess } from '../kube/client.ts';
import type { Logger } from '../log.ts';

/** What the chart gives the expert pod for self-scans (CAPSTAN_SELF_SCAN_*). */
export type SelfScanConfig = Omit<SelfScanJobInput, 'name' | 'nonce' | 'images'>;

export interface SelfScanRunner {
  run(request: WireSelfScan): Promise<WireSelfScanResult>;
}

interface JobStatus {
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

const enc = encodeURIComponent;

export function selfScanRunner(options: { kc: KubeAccess; config: SelfScanConfig; log: Logger; pollMs?: number; sleep?: (ms: number) => Promise<void> }): SelfScanRunner {
  const { kc, config, log } = options;
  const pollMs = options.pollMs ?? 2000;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const jobs = `/apis/batch/v1/namespaces/${enc(config.namespace)}/jobs`;

  /** The Job's end: Complete or Failed (with the API's reason), or null while it runs. */
  const ended = async (name: string): Promise<{ failed: boolean; reason: string } | null> => {
    const answer = await apiRequest(kc, 'GET', `${jobs}/${enc(name)}`);
    if (answer.status === 404) return { failed: true, reason: 'the scan Job was deleted before it ended' };
    if (answer.status !== 200) return null;
    const conditions = (JSON.parse(answer.text) as JobStatus).status?.conditions ?? [];
    const done = conditions.find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
    if (!done) return null;
    return { failed: done.type === 'Failed', reason: done.reason ?? done.type };
  };

  /** The scan pod's log, and whether it was cut at the limit; null when the pod is gone or never ran. */
  const readLog = async (name: string): Promise<{ text: string; cut: boolean } | null> => {
    const pods = await apiRequest(kc, 'GET', `/api/v1/namespaces/${enc(config.namespace)}/pods?labelSelector=${enc(`capstan.dev/scan=${name}`)}`);
    if (pods.status !== 200) return null;
    const pod = (JSON.parse(pods.text) as { items?: { metadata: { name: string } }[] }).items?.[0];
    if (!pod) return null;
    const path = `/api/v1/namespaces/${enc(config.namespace)}/pods/${enc(pod.metadata.name)}/log?container=${SELF_SCAN_CONTAINER}&limitBytes=${String(SELF_SCAN_LOG_MAX_BYTES)}`;
    const answer = await apiRequest(kc, 'GET', path, undefined, 60_000, 'text/plain, */*');
    if (answer.status !== 200) return null;
    return { text: answer.text, cut: Buffer.byteLength(answer.text) >= SELF_SCAN_LOG_MAX_BYTES };
  };

  return {
    async run(request) {
      const name = request.job_name;
      const nonce = randomBytes(12).toString('hex');
      const job = selfScanJob({ ...config, name, nonce, images: request.images });
      const created = await apiRequest(kc, 'POST', jobs, job);
      if (created.status !== 201) return { ok: false, timed_out: false, message: `the API server refused the scan Job: ${refusalMessage(created.text, `status ${String(created.status)}`)}` };
      log.info('self-scan job created', { job: name, images: request.images.length });
      try {
        // The Job's own deadline ends it; the wait is that and a minute for the API's report.
        const deadline = Date.now() + (config.timeoutSecs + 60) * 1000;
        let end = await ended(name);
        while (end === null && Date.now() < deadline) {
          await sleep(pollMs);
          end = await ended(name);
        }
        const logText = await readLog(name);
        if (end === null || (end.failed && end.reason === 'DeadlineExceeded')) {
          // Whatever finished before the deadline still counts; the rest say they were not reached.
          if (logText === null) return { ok: false, timed_out: true, message: `the scan Job did not finish within ${String(config.timeoutSecs)} s (security.scanning.selfScan.timeoutSecs)` };
        } else if (end.failed && logText === null) {
          return { ok: false, timed_out: false, message: `the scan Job failed (${end.reason}) before its pod ran` };
        }
        if (logText === null) return { ok: false, timed_out: false, message: "the scan pod's log could not be read" };
        return { ok: true, results: parseScanLog(logText.text, nonce, request.images, logText.cut) };
      } finally {
        const removed = await apiRequest(kc, 'DELETE', `${jobs}/${enc(name)}?propagationPolicy=Background`).catch((err: unknown) => ({ status: 0, text: err instanceof Error ? err.message : String(err) }));
        if (removed.status !== 200 && removed.status !== 202 && removed.status !== 404) log.warn('self-scan job not deleted (its ttlSecondsAfterFinished removes it)', { job: name, status: removed.status });
      }
    },
  };
}
