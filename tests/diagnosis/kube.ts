// A small REST client for the scenario harness: Lease renewals and status patches run every few
// seconds for every scenario, too often to spawn a kubectl each time on a shared 2-core machine.
import fetch, { Headers } from 'node-fetch';
import { loadKubeConfig } from '../../runtime/kube/client.ts';

interface Resource {
  group: string;
  version: string;
  plural: string;
  namespaced: boolean;
}

const RESOURCES: Record<string, Resource> = {
  Namespace: { group: '', version: 'v1', plural: 'namespaces', namespaced: false },
  Node: { group: '', version: 'v1', plural: 'nodes', namespaced: false },
  Pod: { group: '', version: 'v1', plural: 'pods', namespaced: true },
  Service: { group: '', version: 'v1', plural: 'services', namespaced: true },
  ServiceAccount: { group: '', version: 'v1', plural: 'serviceaccounts', namespaced: true },
  PersistentVolumeClaim: { group: '', version: 'v1', plural: 'persistentvolumeclaims', namespaced: true },
  PersistentVolume: { group: '', version: 'v1', plural: 'persistentvolumes', namespaced: false },
  ResourceQuota: { group: '', version: 'v1', plural: 'resourcequotas', namespaced: true },
  Lease: { group: 'coordination.k8s.io', version: 'v1', plural: 'leases', namespaced: true },
  Deployment: { group: 'apps', version: 'v1', plural: 'deployments', namespaced: true },
  ReplicaSet: { group: 'apps', version: 'v1', plural: 'replicasets', namespaced: true },
  StatefulSet: { group: 'apps', version: 'v1', plural: 'statefulsets', namespaced: true },
  DaemonSet: { group: 'apps', version: 'v1', plural: 'daemonsets', namespaced: true },
  Job: { group: 'batch', version: 'v1', plural: 'jobs', namespaced: true },
  CronJob: { group: 'batch', version: 'v1', plural: 'cronjobs', namespaced: true },
  Ingress: { group: 'networking.k8s.io', version: 'v1', plural: 'ingresses', namespaced: true },
  HorizontalPodAutoscaler: { group: 'autoscaling', version: 'v2', plural: 'horizontalpodautoscalers', namespaced: true },
  PodDisruptionBudget: { group: 'policy', version: 'v1', plural: 'poddisruptionbudgets', namespaced: true },
};

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  labels?: Record<string, string>;
  finalizers?: string[];
  deletionTimestamp?: string;
}

export interface ApiObject {
  metadata: ObjectMeta;
  status?: Record<string, unknown>;
  spec?: Record<string, unknown>;
}

export class KubeError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface Kube {
  get(kind: string, namespace: string | null, name: string): Promise<ApiObject | null>;
  list(kind: string, namespace: string | null, labelSelector?: string): Promise<ApiObject[]>;
  create(kind: string, namespace: string | null, body: object): Promise<ApiObject>;
  /** A JSON merge patch; `subresource: 'status'` writes what only a kubelet or controller would. */
  patch(kind: string, namespace: string | null, name: string, body: object, subresource?: 'status'): Promise<ApiObject>;
  /** Resolves false when the object was already gone. */
  delete(kind: string, namespace: string | null, name: string, gracePeriodSeconds?: number): Promise<boolean>;
}

export function kindKnown(kind: string): boolean {
  return kind in RESOURCES;
}

export function createKube(kubeconfig: string): Kube {
  const kc = loadKubeConfig(kubeconfig);
  const current = kc.getCurrentCluster()?.server;
  if (!current) throw new Error(`${kubeconfig} has no current cluster`);
  const server: string = current;

  function path(kind: string, namespace: string | null, name?: string, subresource?: string): string {
    const r = RESOURCES[kind];
    if (!r) throw new Error(`the scenario harness does not know the kind ${kind}`);
    const base = r.group === '' ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
    const ns = r.namespaced && namespace !== null ? `/namespaces/${namespace}` : '';
    return `${base}${ns}/${r.plural}${name === undefined ? '' : `/${name}`}${subresource ? `/${subresource}` : ''}`;
  }

  async function request(method: string, url: string, body?: object, contentType = 'application/json'): Promise<{ status: number; json: unknown }> {
    const init = await kc.applyToFetchOptions({});
    const headers = new Headers(init.headers);
    headers.set('Accept', 'application/json');
    if (body !== undefined) headers.set('Content-Type', contentType);
    // A request that hangs must not stall a Lease renewal loop forever.
    const response = await fetch(server + url, { ...init, method, headers, body: body === undefined ? undefined : JSON.stringify(body), timeout: 20_000 });
    const text = await response.text();
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      json = { message: text };
    }
    return { status: response.status, json };
  }

  function ok(what: string, res: { status: number; json: unknown }): unknown {
    if (res.status >= 200 && res.status < 300) return res.json;
    const message = (res.json as { message?: string } | null)?.message ?? `HTTP ${res.status}`;
    throw new KubeError(res.status, `${what}: ${message}`);
  }

  return {
    async get(kind, namespace, name) {
      const res = await request('GET', path(kind, namespace, name));
      if (res.status === 404) return null;
      return ok(`get ${kind} ${name}`, res) as ApiObject;
    },
    async list(kind, namespace, labelSelector) {
      const query = labelSelector ? `?labelSelector=${encodeURIComponent(labelSelector)}` : '';
      return (ok(`list ${kind}`, await request('GET', path(kind, namespace) + query)) as { items: ApiObject[] }).items;
    },
    async create(kind, namespace, body) {
      return ok(`create ${kind}`, await request('POST', path(kind, namespace), body)) as ApiObject;
    },
    async patch(kind, namespace, name, body, subresource) {
      return ok(`patch ${kind} ${name}${subresource ? ` ${subresource}` : ''}`, await request('PATCH', path(kind, namespace, name, subresource), body, 'application/merge-patch+json')) as ApiObject;
    },
    async delete(kind, namespace, name, gracePeriodSeconds) {
      const body = gracePeriodSeconds === undefined ? undefined : { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds };
      const res = await request('DELETE', path(kind, namespace, name), body);
      if (res.status === 404) return false;
      ok(`delete ${kind} ${name}`, res);
      return true;
    },
  };
}
