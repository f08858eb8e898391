// The agent's writes to the cluster, each one request with a field manager and a timeout, and
// the RBAC check that decides whether it is offered at all (SelfSubjectAccessReview, cached a
// minute per verb and place so a page of buttons costs a handful of reviews, not one per row).
import fetch, { Headers } from 'node-fetch';
import type { Clock } from '../../domain/clock.ts';
import type { ActionName, AllowedActions, ClusterWrites, WriteResult } from '../../handlers/actions/service.ts';
import { refusalMessage, type KubeAccess } from './client.ts';
import { CAPSTAN_VERSION } from '../version.ts';

const REVIEW_TTL_MS = 60_000;
/** The User-Agent of every write (and review): `capstan/<version>`. */
export const WRITES_USER_AGENT = `capstan/${CAPSTAN_VERSION}`;
const FIELD_MANAGER = 'capstan';

/** The verb and resource each action needs, per kind. */
const NEEDS: Record<'deployments' | 'pods' | 'nodes', Partial<Record<ActionName, { group: string; resource: string; verb: string }>>> = {
  deployments: { restart: { group: 'apps', resource: 'deployments', verb: 'patch' }, scale: { group: 'apps', resource: 'deployments', verb: 'patch' } },
  pods: { delete: { group: '', resource: 'pods', verb: 'delete' } },
  nodes: { cordon: { group: '', resource: 'nodes', verb: 'patch' }, uncordon: { group: '', resource: 'nodes', verb: 'patch' } },
};

const ACTIONS: readonly ActionName[] = ['restart', 'scale', 'delete', 'cordon', 'uncordon'];

export function createClusterWrites(kc: KubeAccess, clock: Clock, timeoutMs = 10_000): ClusterWrites {
  const server = kc.getCurrentCluster()?.server;
  const reviews = new Map<string, { allowed: boolean; at: number }>();

  const send = async (method: string, path: string, body: unknown, contentType: string): Promise<{ status: number; text: string }> => {
    if (!server) return { status: 503, text: JSON.stringify({ message: 'no API server configured' }) };
    const init = await kc.applyToFetchOptions({});
    const headers = new Headers(init.headers);
    headers.set('Accept', 'application/json');
    // Names Capstan in the API server's audit log, beside the ServiceAccount it acts as.
    headers.set('User-Agent', WRITES_USER_AGENT);
    if (body !== undefined) headers.set('Content-Type', contentType);
    // A field manager names Capstan in managedFields for what it changes (a DELETE changes no field).
    const url = method === 'PATCH' ? `${server}${path}?fieldManager=${FIELD_MANAGER}` : `${server}${path}`;
    const response = await fetch(url, { ...init, method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs) });
    return { status: response.status, text: await response.text() };
  };

  const write = async (method: string, path: string, body?: unknown, contentType = 'application/merge-patch+json'): Promise<WriteResult> => {
    try {
      const { status, text } = await send(method, path, body, contentType);
      if (status >= 200 && status < 300) return { ok: true };
      return { ok: false, status, reason: `the API server refused: ${refusalMessage(text, `status ${status}`)}` };
    } catch (err) {
      return { ok: false, status: 502, reason: err instanceof Error ? err.message : String(err) };
    }
  };

  const review = async (namespace: string | null, need: { group: string; resource: string; verb: string }): Promise<boolean> => {
    const key = `${namespace ?? ''}|${need.group}|${need.resource}|${need.verb}`;
    const now = clock.now().getTime();
    const cached = reviews.get(key);
    if (cached && now - cached.at < REVIEW_TTL_MS) return cached.allowed;
    let allowed = false;
    try {
      const { status, text } = await send('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        spec: { resourceAttributes: { ...(namespace === null ? {} : { namespace }), group: need.group, resource: need.resource, verb: need.verb } },
      }, 'application/json');
      allowed = status === 201 && (JSON.parse(text) as { status?: { allowed?: boolean } }).status?.allowed === true;
    } catch {
      // An unanswered review offers nothing: a write is never attempted on a guess.
      allowed = false;
    }
    reviews.set(key, { allowed, at: now });
    return allowed;
  };

  const ns = (namespace: string) => `/namespaces/${encodeURIComponent(namespace)}`;
  return {
    async allowed(kind, namespace) {
      const out = Object.fromEntries(ACTIONS.map((a) => [a, false])) as Record<ActionName, boolean>;
      for (const action of ACTIONS) {
        const need = NEEDS[kind][action];
        if (need) out[action] = await review(namespace, need);
      }
      return out satisfies AllowedActions;
    },
    restart: (namespace, name, at) =>
      write('PATCH', `/apis/apps/v1${ns(namespace)}/deployments/${encodeURIComponent(name)}`, { spec: { template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': at.toISOString() } } } } }, 'application/strategic-merge-patch+json'),
    scale: (namespace, name, replicas) => write('PATCH', `/apis/apps/v1${ns(namespace)}/deployments/${encodeURIComponent(name)}`, { spec: { replicas } }),
    deletePod: (namespace, name) => write('DELETE', `/api/v1${ns(namespace)}/pods/${encodeURIComponent(name)}`),
    setUnschedulable: (node, unschedulable) => write('PATCH', `/api/v1/nodes/${encodeURIComponent(node)}`, { spec: { unschedulable } }),
  };
}

/** For tests and installs without a cluster: nothing is allowed. */
export const noClusterWrites: ClusterWrites = {
  allowed: () => Promise.resolve({ restart: false, scale: false, delete: false, cordon: false, uncordon: false }),
  restart: () => Promise.resolve({ ok: false, status: 503, reason: 'no cluster' }),
  scale: () => Promise.resolve({ ok: false, status: 503, reason: 'no cluster' }),
  deletePod: () => Promise.resolve({ ok: false, status: 503, reason: 'no cluster' }),
  setUnschedulable: () => Promise.resolve({ ok: false, status: 503, reason: 'no cluster' }),
};
