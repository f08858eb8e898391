// The agent's side of the expert hop (docs/expert-mode.md): every call carries the token the
// kubelet projects into the agent container for the expert's audience, read from its file per
// call (the kubelet rotates it), and is bounded by a timeout. The expert's address is the
// chart's own Service, not an endpoint anyone configures, so it does not go through the
// outbound client (which refuses cluster-internal addresses by design).
import * as v from 'valibot';
import { readFile } from 'node:fs/promises';
import { SELF_SCAN_MAX_TIMEOUT_SECS, WireOperationResult, WireReleases, WireSelfScanResult, WireValues, type WireOperation, type WireSelfScan } from '../../schema/expert.ts';

export interface ExpertHop {
  releases(): Promise<v.InferOutput<typeof WireReleases>>;
  values(namespace: string, name: string): Promise<v.InferOutput<typeof WireValues> | null>;
  /** `signal` abandons the wait (the agent is stopping); the expert pod finishes the operation regardless. */
  run(op: WireOperation, signal?: AbortSignal): Promise<v.InferOutput<typeof WireOperationResult>>;
  /** A self-scan Job over `images` (docs/security-posture.md, "Self-scan"); answers when the Job ended, at its deadline at the latest. */
  selfScan(request: WireSelfScan, signal?: AbortSignal): Promise<WireSelfScanResult>;
}

/** The expert answered with a refusal of its own (its error code and words). */
export class ExpertRefusal extends Error {
  override readonly name = 'ExpertRefusal';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const READ_TIMEOUT_MS = 10_000;

export function expertHop(options: { url: string; tokenFile: string }): ExpertHop {
  const call = async <S extends v.GenericSchema>(method: 'GET' | 'POST', path: string, schema: S, body: unknown, timeoutMs: number, signal?: AbortSignal): Promise<v.InferOutput<S> | null> => {
    const token = (await readFile(options.tokenFile, 'utf8')).trim();
    const response = await fetch(`${options.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: 'error',
      signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    if (response.status === 404) return null;
    if (!response.ok) {
      let refusal: { error?: string; message?: string } = {};
      try {
        refusal = JSON.parse(text) as typeof refusal;
      } catch {
        // Not the expert's JSON (a proxy's page): the status says enough.
      }
      throw new ExpertRefusal(response.status, refusal.error ?? 'expert_error', refusal.message ?? `the expert pod answered ${String(response.status)}`);
    }
    return v.parse(schema, JSON.parse(text));
  };
  return {
    async releases() {
      const answer = await call('GET', '/releases', WireReleases, undefined, READ_TIMEOUT_MS);
      if (answer === null) throw new ExpertRefusal(404, 'not_found', 'the expert pod has no release list');
      return answer;
    },
    values: (namespace, name) => call('GET', `/releases/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}/values`, WireValues, undefined, READ_TIMEOUT_MS),
    async run(op, signal) {
      // The expert gives helm the operation's own --timeout and half a minute more.
      const timeoutMs = ('timeout_secs' in op ? op.timeout_secs * 1000 : 120_000) + 60_000;
      const answer = await call('POST', '/helm', WireOperationResult, op, timeoutMs, signal);
      if (answer === null) throw new ExpertRefusal(404, 'not_found', 'the expert pod does not run Helm operations');
      return answer;
    },
    async selfScan(request, signal) {
      // The expert ends the Job at its own deadline (at most SELF_SCAN_MAX_TIMEOUT_SECS) and answers a little after.
      const answer = await call('POST', '/self-scan', WireSelfScanResult, request, (SELF_SCAN_MAX_TIMEOUT_SECS + 300) * 1000, signal);
      if (answer === null) throw new ExpertRefusal(404, 'not_found', 'the expert pod runs no self-scans (the chart sets security.scanning.selfScan for it)');
      return answer;
    },
  };
}
