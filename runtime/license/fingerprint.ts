// The cluster fingerprint the license heartbeat sends: the SHA-256 (hex) of the kube-system
// namespace's UID. The UID is fixed for a cluster's life and readable under the chart's RBAC in
// both modes (namespaces are a cluster-scoped read); hashing it means the one identifier that
// leaves the cluster is not even the cluster's own. docs/licensing.md, "Heartbeat".
import { createHash } from 'node:crypto';
import fetch, { Headers } from 'node-fetch';
import type { KubeAccess } from '../kube/client.ts';

export const fingerprintOf = (uid: string): string => createHash('sha256').update(uid, 'utf8').digest('hex');

/** Read once and kept: a failed read is retried at the next heartbeat. */
export function kubeSystemFingerprint(kc: KubeAccess, timeoutMs = 5000): () => Promise<string> {
  let known: string | null = null;
  return async () => {
    if (known !== null) return known;
    const server = kc.getCurrentCluster()?.server;
    if (!server) throw new Error('no API server configured: no cluster fingerprint');
    const init = await kc.applyToFetchOptions({});
    const headers = new Headers(init.headers);
    headers.set('Accept', 'application/json');
    const res = await fetch(`${server}/api/v1/namespaces/kube-system`, { ...init, method: 'GET', headers, signal: AbortSignal.timeout(timeoutMs) });
    const text = await res.text();
    if (!res.ok) throw new Error(`reading namespace kube-system for the cluster fingerprint: API server answered ${res.status}`);
    const uid = (JSON.parse(text) as { metadata?: { uid?: unknown } }).metadata?.uid;
    if (typeof uid !== 'string' || uid === '') throw new Error('namespace kube-system has no uid: no cluster fingerprint');
    known = fingerprintOf(uid);
    return known;
  };
}
