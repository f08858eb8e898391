// One object by one GET, for the detail view's YAML: the path from the kinds table, a short
// timeout and a size cap, whatever the object holds. What may be shown of it is the handler's
// (domain/resources/object-view.ts): a Secret's data is read here and dropped there, unlogged.
import fetch, { Headers } from 'node-fetch';
import { refusalMessage, type KubeAccess } from './client.ts';
import { KINDS } from './kinds.ts';
import type { ObjectRead, ObjectReader } from '../../handlers/resources/service.ts';

/** The largest object read (a ConfigMap may hold 1 MiB of data; the rest is metadata). */
const MAX_OBJECT_BYTES = 2 * 1024 * 1024;

export function createObjectReader(kc: KubeAccess, timeoutMs = 5000): ObjectReader {
  const server = kc.getCurrentCluster()?.server;
  const read = async (base: string, resource: string, namespace: string | null, name: string): Promise<ObjectRead> => {
    if (!server) return { ok: false, status: 404, reason: 'no API server configured' };
    const scope = namespace === null ? '' : `/namespaces/${encodeURIComponent(namespace)}`;
    try {
      const init = await kc.applyToFetchOptions({});
      const headers = new Headers(init.headers);
      headers.set('Accept', 'application/json');
      const response = await fetch(`${server}${base}${scope}/${resource}/${encodeURIComponent(name)}`, { ...init, method: 'GET', headers, signal: AbortSignal.timeout(timeoutMs), size: MAX_OBJECT_BYTES });
      const text = await response.text();
      if (!response.ok) return { ok: false, status: response.status, reason: `API server answered ${response.status}: ${refusalMessage(text, response.statusText)}` };
      return { ok: true, object: JSON.parse(text) as unknown };
    } catch (err) {
      return { ok: false, status: 502, reason: err instanceof Error ? err.message : String(err) };
    }
  };
  return {
    get(resource, namespace, name) {
      const kind = (KINDS as Readonly<Record<string, (typeof KINDS)[keyof typeof KINDS]>>)[resource];
      if (kind === undefined) return Promise.resolve({ ok: false, status: 404, reason: `no API path for ${resource}` });
      return read(kind.group === '' ? `/api/${kind.version}` : `/apis/${kind.group}/${kind.version}`, resource, namespace, name);
    },
    getCustom: (kind, namespace, name) => read(`/apis/${kind.group}/${kind.version}`, kind.plural, namespace, name),
  };
}

/** For tests and installs without a cluster. */
export const noObjectReader: ObjectReader = { get: () => Promise.resolve({ ok: false, status: 404, reason: 'no cluster' }), getCustom: () => Promise.resolve({ ok: false, status: 404, reason: 'no cluster' }) };
