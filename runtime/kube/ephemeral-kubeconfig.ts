// A kubeconfig holding the process's own credential right now (its token as last read, or its
// client certificate), for a tool run as a child process (helm in the expert pod): written to
// a private directory for one operation and deleted with it.
import type { RequestOptions } from 'node:https';
import { Headers } from 'node-fetch';
import { stringify } from 'yaml';
import type { KubeAccess } from './client.ts';

/** https options' `ca`/`cert`/`key` (PEM text, a buffer, or several) as kubeconfig's base64 `*-data`. */
export function pemData(material: RequestOptions['ca']): string | undefined {
  if (material === undefined) return undefined;
  const parts = Array.isArray(material) ? material : [material];
  const text = parts.map((p) => (typeof p === 'string' ? p : Buffer.from(p).toString('utf8'))).join('\n');
  return text === '' ? undefined : Buffer.from(text).toString('base64');
}

export async function ephemeralKubeconfig(kc: KubeAccess, namespace: string): Promise<string> {
  const server = kc.getCurrentCluster()?.server;
  if (!server) throw new Error('no API server configured');
  const tls: RequestOptions = {};
  await kc.applyToHTTPSOptions(tls);
  const init = await kc.applyToFetchOptions({});
  const authorization = new Headers(init.headers).get('Authorization');
  const token = authorization?.startsWith('Bearer ') ? authorization.slice('Bearer '.length) : undefined;
  const ca = pemData(tls.ca);
  const cert = pemData(tls.cert);
  const key = pemData(tls.key as RequestOptions['ca']);
  const user = token !== undefined ? { token } : cert !== undefined && key !== undefined ? { 'client-certificate-data': cert, 'client-key-data': key } : null;
  if (user === null) throw new Error('the process has no token or client certificate to hand on');
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'cluster', cluster: { server, ...(ca ? { 'certificate-authority-data': ca } : {}), ...(tls.rejectUnauthorized === false ? { 'insecure-skip-tls-verify': true } : {}), ...(tls.servername ? { 'tls-server-name': tls.servername } : {}) } }],
    users: [{ name: 'expert', user }],
    contexts: [{ name: 'expert', context: { cluster: 'cluster', user: 'expert', namespace } }],
    'current-context': 'expert',
  });
}
