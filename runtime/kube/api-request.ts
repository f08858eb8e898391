// One JSON request to the API server with the process's own credentials (what the expert pod
// uses for TokenReview and for reading a release's Secret): a timeout, Capstan's User-Agent so
// the API server's audit log names it, and the status with the body's text.
import fetch, { Headers } from 'node-fetch';
import type { KubeAccess } from './client.ts';
import { WRITES_USER_AGENT } from './writes.ts';

export interface ApiAnswer {
  status: number;
  text: string;
}

/** `accept`: what the answer may be; a container's log is text. */
export async function apiRequest(kc: KubeAccess, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown, timeoutMs = 10_000, accept = 'application/json'): Promise<ApiAnswer> {
  const server = kc.getCurrentCluster()?.server;
  if (!server) return { status: 503, text: JSON.stringify({ message: 'no API server configured' }) };
  const init = await kc.applyToFetchOptions({});
  const headers = new Headers(init.headers);
  headers.set('Accept', accept);
  headers.set('User-Agent', WRITES_USER_AGENT);
  if (body !== undefined) headers.set('Content-Type', 'application/json');
  const response = await fetch(`${server}${path}`, { ...init, method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs) });
  return { status: response.status, text: await response.text() };
}
