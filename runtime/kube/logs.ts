import fetch, { Headers } from 'node-fetch';
import type { KubeAccess } from './client.ts';
import type { PodLogs } from '../../handlers/incidents/service.ts';

/** Caps what one log read may pull into memory, whatever the API server sends. */
const MAX_LOG_BYTES = 256 * 1024;

export function createPodLogs(kc: KubeAccess, timeoutMs = 5000): PodLogs {
  const server = kc.getCurrentCluster()?.server;
  return {
    async tail(namespace, pod, container, { previous, lines, limitBytes = MAX_LOG_BYTES }) {
      if (!server) return { ok: false, reason: 'no API server configured' };
      const url = new URL(`${server}/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}/log`);
      url.searchParams.set('container', container);
      url.searchParams.set('tailLines', String(lines));
      url.searchParams.set('limitBytes', String(Math.min(limitBytes, MAX_LOG_BYTES)));
      if (previous) url.searchParams.set('previous', 'true');
      try {
        const init = await kc.applyToFetchOptions({});
        const headers = new Headers(init.headers);
        const response = await fetch(url.toString(), { ...init, method: 'GET', headers, signal: AbortSignal.timeout(timeoutMs) });
        const text = await response.text();
        if (!response.ok) {
          const message = (JSON.parse(text) as { message?: string }).message ?? response.statusText;
          return { ok: false, reason: `API server answered ${response.status}: ${message}` };
        }
        return { ok: true, text };
      } catch (err) {
        return { ok: false, reason: err instanceof Error ? err.message : String(err) };
      }
    },
  };
}

/** For tests and installs without a cluster. */
export const noPodLogs: PodLogs = { tail: () => Promise.resolve({ ok: false, reason: 'no cluster' }) };
