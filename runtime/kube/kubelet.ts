// Reading a node's kubelet container-metrics endpoint (Prometheus text), two ways:
// - direct: https://<InternalIP>:<kubelet port><path> with the agent's own credentials, as
//   metrics-server does. Kubelet serving certificates are often self-signed, so
//   METRICS_KUBELET_INSECURE_TLS=true skips their verification (metrics-server's
//   --kubelet-insecure-tls); otherwise they must chain to the cluster CA.
// - proxy: the API server's node proxy, `/api/v1/nodes/<node>/proxy<path>` (RBAC `nodes/proxy`
//   get); nothing but the API server needs to be reachable. The API server refuses to proxy to
//   loopback or link-local node addresses.
import { Agent, type RequestOptions } from 'node:https';
import fetch from 'node-fetch';
import type { NodeObject } from '../../domain/cluster/model.ts';
import { KubeApiError, type KubeAccess } from './client.ts';

export type KubeletReader = (node: NodeObject) => Promise<string>;
export type KubeletScrapeMode = 'direct' | 'proxy';

const TIMEOUT_MS = 10_000;

async function readText(url: string, init: Parameters<typeof fetch>[1]): Promise<string> {
  const response = await fetch(url, { ...init, method: 'GET', timeout: TIMEOUT_MS });
  const text = await response.text();
  if (!response.ok) throw new KubeApiError(response.status, text.trim().slice(0, 200) || response.statusText);
  return text;
}

export function kubeletThroughProxy(kc: KubeAccess): KubeletReader {
  const server = kc.getCurrentCluster()?.server;
  if (!server) throw new Error('kubeconfig has no current cluster');
  return async (node) => readText(`${server}/api/v1/nodes/${encodeURIComponent(node.name)}/proxy${node.containerMetricsPath}`, await kc.applyToFetchOptions({}));
}

const stringHeaders = (headers: RequestOptions['headers']): Record<string, string> =>
  Object.fromEntries(Object.entries(headers ?? {}).filter((e): e is [string, string] => typeof e[1] === 'string'));

export function kubeletDirect(kc: KubeAccess, options: { insecureTls: boolean }): KubeletReader {
  let agent: Promise<Agent> | null = null;
  const tlsAgent = async () => {
    const opts: RequestOptions = {};
    await kc.applyToHTTPSOptions(opts);
    const verify = options.insecureTls ? { rejectUnauthorized: false } : { ca: opts.ca, rejectUnauthorized: true };
    return new Agent({ ...verify, cert: opts.cert, key: opts.key, keepAlive: true, maxSockets: 8 });
  };
  return async (node) => {
    if (!node.kubelet) throw new Error('the node reports no kubelet address and port');
    agent ??= tlsAgent();
    // Token-file credentials rotate: headers are read on every call, the TLS agent built once.
    const opts: RequestOptions = {};
    await kc.applyToHTTPSOptions(opts);
    const host = node.kubelet.address.includes(':') ? `[${node.kubelet.address}]` : node.kubelet.address;
    return readText(`https://${host}:${node.kubelet.port}${node.containerMetricsPath}`, { agent: await agent, headers: stringHeaders(opts.headers) });
  };
}
