import { KubeConfig, Watch } from '@kubernetes/client-node';
import fetch, { Headers } from 'node-fetch';

/** Loads a kubeconfig file, or the in-cluster service account when no path is given. */
export function loadKubeConfig(path?: string): KubeConfig {
  const kc = new KubeConfig();
  if (path) kc.loadFromFile(path);
  else kc.loadFromCluster();
  return kc;
}

export interface ListPage {
  items: unknown[];
  resourceVersion: string;
  continueToken: string | undefined;
}

export class KubeApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** The two calls an informer needs: a paginated LIST and a WATCH, both raw JSON. */
export interface KubeTransport {
  list(path: string, params: Record<string, string>): Promise<ListPage>;
  watch(
    path: string,
    params: Record<string, string>,
    onEvent: (type: WatchEventType, object: unknown) => void,
    onDone: (err: unknown) => void,
  ): Promise<{ abort(): void }>;
}

export function createTransport(kc: KubeConfig): KubeTransport {
  const server = kc.getCurrentCluster()?.server;
  if (!server) throw new Error('kubeconfig has no current cluster');
  const watcher = new Watch(kc);
  return {
    async list(path, params) {
      const url = new URL(server + path);
      for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
      const init = await kc.applyToFetchOptions({});
      const headers = new Headers(init.headers);
      headers.set('Accept', 'application/json');
      const response = await fetch(url.toString(), { ...init, method: 'GET', headers });
      // Paths the server does not serve (an absent aggregated API) answer 404 in plain text.
      const text = await response.text();
      let body: { items?: unknown[]; metadata?: { resourceVersion?: string; continue?: string }; message?: string };
      try {
        body = JSON.parse(text) as typeof body;
      } catch {
        throw new KubeApiError(response.status, response.ok ? 'the API server answered with something that is not JSON' : text.trim() || response.statusText);
      }
      if (!response.ok) throw new KubeApiError(response.status, body.message ?? response.statusText);
      return {
        items: body.items ?? [],
        resourceVersion: body.metadata?.resourceVersion ?? '',
        continueToken: body.metadata?.continue || undefined,
      };
    },
    async watch(path, params, onEvent, onDone) {
      return watcher.watch(path, params, (type: string, object: unknown) => onEvent(type as WatchEventType, object), onDone);
    },
  };
}
