// How the agent talks to the API server: credentials from a kubeconfig or the in-cluster
// service account, one LIST call and one WATCH call. @kubernetes/client-node is loaded only for
// kubeconfigs that need its authenticators (exec plugins, auth providers, impersonation,
// proxies): importing it loads every generated API and model, and the agent at scale-5000 ran
// about 110 MiB of RSS heavier with it, seven times what all its informers hold
// (tests/bench/results/memory.md).
import { readFileSync } from 'node:fs';
import { Agent as HttpAgent, type ClientRequestArgs } from 'node:http';
import { Agent as HttpsAgent, type RequestOptions } from 'node:https';
import { isIPv6, Socket } from 'node:net';
import { dirname, isAbsolute, join } from 'node:path';
import { createInterface } from 'node:readline';
import { StringDecoder } from 'node:string_decoder';
import type { Duplex } from 'node:stream';
import { createSecureContext } from 'node:tls';
import fetch, { Headers, type RequestInit } from 'node-fetch';
import { parse } from 'yaml';

/** What the runtime needs to reach the API server (the subset of client-node's KubeConfig it used). */
export interface KubeAccess {
  getCurrentCluster(): { server: string } | null;
  /** node-fetch options: the connection agent (TLS material) and the credential headers. */
  applyToFetchOptions(opts: object): Promise<RequestInit>;
  /** https.request options: CA, client certificate and key, credential headers. */
  applyToHTTPSOptions(opts: RequestOptions): Promise<void>;
}

const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
/** A token file is re-read this often: projected service-account tokens rotate (client-go does the same). */
const TOKEN_FILE_REFRESH_MS = 60_000;

interface TlsMaterial {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  rejectUnauthorized: boolean;
  servername?: string;
}

type Credential = { kind: 'none' } | { kind: 'token'; token: string } | { kind: 'tokenFile'; path: string };

/** Every connection sends TCP keep-alive probes, so a watch whose peer vanished ends instead of hanging. */
const PROBE_AFTER_MS = 30_000;

function probing(socket: Duplex | null | undefined): Duplex | null | undefined {
  if (socket instanceof Socket) socket.setKeepAlive(true, PROBE_AFTER_MS);
  return socket;
}

class ProbingHttpAgent extends HttpAgent {
  override createConnection(options: ClientRequestArgs, callback?: (err: Error | null, stream: Duplex) => void): Duplex | null | undefined {
    return probing(super.createConnection(options, callback));
  }
}

class ProbingHttpsAgent extends HttpsAgent {
  override createConnection(options: RequestOptions, callback?: (err: Error | null, stream: Duplex) => void): Duplex | null | undefined {
    return probing(super.createConnection(options, callback));
  }
}

/**
 * Certificates and keys are read once, when the access is built (a rotated client certificate or
 * CA takes a restart), into one TLS context every connection shares; a token file is re-read
 * every minute. Connections are not reused: a request never races the API server closing an
 * idle one, and a watch holds its own.
 */
class DirectAccess implements KubeAccess {
  private agent: HttpAgent | HttpsAgent | null = null;
  private token: { value: string; readAt: number } | null = null;

  constructor(
    private readonly server: string,
    private readonly tls: TlsMaterial,
    private readonly credential: Credential,
  ) {
    if (server.startsWith('http:') && tls.rejectUnauthorized) throw new Error(`refusing plain HTTP to ${server}: set insecure-skip-tls-verify to allow it`);
  }

  getCurrentCluster(): { server: string } {
    return { server: this.server };
  }

  applyToFetchOptions(_opts: object): Promise<RequestInit> {
    // Unreadable TLS material or token file: a rejection, like any failed request.
    return new Promise((resolve) => resolve({ agent: this.connectionAgent(), headers: new Headers(this.credentialHeaders()) }));
  }

  applyToHTTPSOptions(opts: RequestOptions): Promise<void> {
    if (this.tls.ca) opts.ca = this.tls.ca;
    if (this.tls.cert) opts.cert = this.tls.cert;
    if (this.tls.key) opts.key = this.tls.key;
    if (!this.tls.rejectUnauthorized) opts.rejectUnauthorized = false;
    if (this.tls.servername) opts.servername = this.tls.servername;
    const headers: Record<string, unknown> = {};
    // Header lists in the raw array form are not ours to merge into.
    if (opts.headers && !Array.isArray(opts.headers)) Object.assign(headers, opts.headers);
    opts.headers = Object.assign(headers, this.credentialHeaders());
    return Promise.resolve();
  }

  private connectionAgent(): HttpAgent | HttpsAgent {
    const { ca, cert, key, rejectUnauthorized, servername } = this.tls;
    this.agent ??= this.server.startsWith('http:') ? new ProbingHttpAgent() : new ProbingHttpsAgent({ secureContext: createSecureContext({ ca, cert, key }), rejectUnauthorized, servername });
    return this.agent;
  }

  private credentialHeaders(): Record<string, string> {
    const token = this.currentToken();
    return token ? { Authorization: `Bearer ${token}` } : {};
  }

  private currentToken(): string | null {
    const credential = this.credential;
    if (credential.kind === 'none') return null;
    if (credential.kind === 'token') return credential.token;
    const now = Date.now();
    if (!this.token || now - this.token.readAt > TOKEN_FILE_REFRESH_MS) this.token = { value: readFileSync(credential.path, 'utf8').trim(), readAt: now };
    return this.token.value;
  }
}

/** A kubeconfig only client-node can serve: loaded on the first request, not at start. */
class ClientNodeAccess implements KubeAccess {
  private loaded: Promise<KubeAccess> | null = null;

  constructor(
    private readonly server: string | null,
    private readonly path: string,
  ) {}

  getCurrentCluster(): { server: string } | null {
    return this.server === null ? null : { server: this.server };
  }

  async applyToFetchOptions(opts: object): Promise<RequestInit> {
    return (await this.config()).applyToFetchOptions(opts);
  }

  async applyToHTTPSOptions(opts: RequestOptions): Promise<void> {
    await (await this.config()).applyToHTTPSOptions(opts);
  }

  private config(): Promise<KubeAccess> {
    this.loaded ??= import('@kubernetes/client-node').then(({ KubeConfig }) => {
      const kc = new KubeConfig();
      kc.loadFromFile(this.path);
      return kc;
    });
    return this.loaded;
  }
}

interface RawKubeconfig {
  'current-context'?: string;
  contexts?: { name?: string; context?: { cluster?: string; user?: string } }[];
  clusters?: { name?: string; cluster?: Record<string, unknown> }[];
  users?: { name?: string; user?: Record<string, unknown> }[];
}

/** User fields only client-node knows how to turn into credentials. */
const DELEGATED_USER_FIELDS = ['exec', 'auth-provider', 'username', 'password', 'as', 'as-uid', 'as-groups', 'as-user-extra'];

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** Loads a kubeconfig file, or the in-cluster service account when no path is given (`serviceAccountDir` for tests). */
export function loadKubeConfig(path?: string, serviceAccountDir = SERVICE_ACCOUNT_DIR): KubeAccess {
  return path ? fromKubeconfigFile(path) : fromServiceAccount(serviceAccountDir);
}

function fromServiceAccount(dir: string): KubeAccess {
  const host = process.env.KUBERNETES_SERVICE_HOST;
  const port = process.env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) throw new Error('not running in a cluster (KUBERNETES_SERVICE_HOST/PORT unset) and no kubeconfig given');
  const server = `https://${isIPv6(host) ? `[${host}]` : host}:${port}`;
  return new DirectAccess(server, { ca: readFileSync(join(dir, 'ca.crt')), rejectUnauthorized: true }, { kind: 'tokenFile', path: join(dir, 'token') });
}

function fromKubeconfigFile(path: string): KubeAccess {
  const config = (parse(readFileSync(path, 'utf8')) ?? {}) as RawKubeconfig;
  const context = config.contexts?.find((c) => c.name === config['current-context'])?.context;
  const cluster = config.clusters?.find((c) => c.name === context?.cluster)?.cluster ?? {};
  const user = config.users?.find((u) => u.name === context?.user)?.user ?? {};
  const server = text(cluster.server) ?? null;
  if (server === null || text(cluster['proxy-url']) || DELEGATED_USER_FIELDS.some((f) => user[f] !== undefined && user[f] !== null)) return new ClientNodeAccess(server, path);
  // Relative paths in a kubeconfig are relative to the file, as kubectl reads them.
  const dir = dirname(path);
  const material = (fileField: unknown, dataField: unknown): Buffer | undefined => {
    const file = text(fileField);
    if (file) return readFileSync(isAbsolute(file) ? file : join(dir, file));
    const data = text(dataField);
    return data ? Buffer.from(data, 'base64') : undefined;
  };
  const tls: TlsMaterial = {
    ca: material(cluster['certificate-authority'], cluster['certificate-authority-data']),
    cert: material(user['client-certificate'], user['client-certificate-data']),
    key: material(user['client-key'], user['client-key-data']),
    rejectUnauthorized: cluster['insecure-skip-tls-verify'] !== true,
    servername: text(cluster['tls-server-name']),
  };
  const token = text(user.token);
  const tokenFile = text(user.tokenFile) ?? text(user['token-file']);
  const credential: Credential = token ? { kind: 'token', token } : tokenFile ? { kind: 'tokenFile', path: isAbsolute(tokenFile) ? tokenFile : join(dir, tokenFile) } : { kind: 'none' };
  return new DirectAccess(server, tls, credential);
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

/**
 * How a LIST or WATCH asks. `metadataOnly`: the API server answers PartialObjectMetadata (name,
 * namespace, labels, annotations, owners; no spec, status, type or data), so what it does not
 * send never reaches this process: Secrets are read this way (docs/install.md).
 */
export interface KubeRequestOptions {
  metadataOnly?: boolean;
}

/** Server-side conversion to metadata only (meta.k8s.io/v1), for a LIST and for a WATCH's events. */
export const METADATA_LIST_ACCEPT = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';
export const METADATA_WATCH_ACCEPT = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';

/** The two calls an informer needs: a paginated LIST and a WATCH, both raw JSON. */
export interface KubeTransport {
  list(path: string, params: Record<string, string>, options?: KubeRequestOptions): Promise<ListPage>;
  watch(
    path: string,
    params: Record<string, string>,
    onEvent: (type: WatchEventType, object: unknown) => void,
    onDone: (err: unknown) => void,
    options?: KubeRequestOptions,
  ): Promise<{ abort(): void }>;
}

/**
 * An object a metadata-only request got whole anyway (a server or proxy that ignored the
 * Accept header): only its metadata goes on, so data asked not to be read is never handed out.
 */
function metadataOf(object: unknown): unknown {
  if (typeof object !== 'object' || object === null) return object;
  const kind = (object as { kind?: unknown }).kind;
  if (kind === 'PartialObjectMetadata' || kind === 'Status') return object;
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: (object as { metadata?: unknown }).metadata };
}

/** The API server's own words for a refusal (a Status object), else the HTTP status text. */
/**
 * What an API server's refusal says: its Status object's `message`, else the body as plain
 * text (paths the server does not serve, an absent aggregated API, a proxy's page), else
 * `fallback` (the status line).
 */
export function refusalMessage(body: string, fallback: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return body.trim().slice(0, 500) || fallback;
  }
  const message = typeof parsed === 'object' && parsed !== null && 'message' in parsed ? parsed.message : undefined;
  return typeof message === 'string' && message !== '' ? message : fallback;
}

function refusal(status: number, statusText: string, body: string): KubeApiError {
  return new KubeApiError(status, refusalMessage(body, statusText));
}

/**
 * A response body as text, decoded chunk by chunk. node-fetch's text() first copies the whole
 * body into one Buffer (a LIST page is megabytes), memory malloc'd outside V8's heap; freed, it
 * stayed resident in the allocator's arena, and at scale-5000 the agent kept 30-40 MiB of such
 * freed LIST pages (tests/bench/results/memory.md). The decoded text lives on V8's heap, which
 * returns its pages once the page is parsed and collected.
 */
async function readText(body: NodeJS.ReadableStream): Promise<string> {
  const decoder = new StringDecoder('utf8');
  let text = '';
  for await (const chunk of body) text += typeof chunk === 'string' ? chunk : decoder.write(chunk);
  return text + decoder.end();
}

export function createTransport(kc: KubeAccess): KubeTransport {
  const server = kc.getCurrentCluster()?.server;
  if (!server) throw new Error('kubeconfig has no current cluster');
  const request = async (path: string, params: Record<string, string>, accept: string, signal?: AbortSignal) => {
    const url = new URL(server + path);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    const init = await kc.applyToFetchOptions({});
    const headers = new Headers(init.headers);
    headers.set('Accept', accept);
    return fetch(url.toString(), { ...init, method: 'GET', headers, signal });
  };
  return {
    async list(path, params, options = {}) {
      const response = await request(path, params, options.metadataOnly ? METADATA_LIST_ACCEPT : 'application/json');
      const body = await readText(response.body);
      if (!response.ok) throw refusal(response.status, response.statusText, body);
      let parsed: { items?: unknown[]; metadata?: { resourceVersion?: string; continue?: string } };
      try {
        parsed = JSON.parse(body) as typeof parsed;
      } catch {
        throw new KubeApiError(response.status, 'the API server answered with something that is not JSON');
      }
      const items = parsed.items ?? [];
      return {
        items: options.metadataOnly ? items.map(metadataOf) : items,
        resourceVersion: parsed.metadata?.resourceVersion ?? '',
        continueToken: parsed.metadata?.continue || undefined,
      };
    },
    async watch(path, params, onEvent, onDone, options = {}) {
      const controller = new AbortController();
      let done = false;
      // Called once: when the server ends the stream (null), on any error, or after abort().
      const finish = (err: unknown) => {
        if (done) return;
        done = true;
        controller.abort();
        onDone(err);
      };
      try {
        const response = await request(path, { ...params, watch: 'true' }, options.metadataOnly ? METADATA_WATCH_ACCEPT : 'application/json', controller.signal);
        if (response.status !== 200) throw refusal(response.status, response.statusText, await response.text());
        const body = response.body;
        body.on('error', finish);
        const lines = createInterface({ input: body, crlfDelay: Infinity });
        // readline re-emits the body's errors (an abort among them): unheard, they would crash the process.
        lines.on('error', finish);
        lines.on('line', (line) => {
          if (line === '') return;
          let event: { type?: WatchEventType; object?: unknown };
          try {
            event = JSON.parse(line) as typeof event;
          } catch {
            return;
          }
          if (event.type) onEvent(event.type, options.metadataOnly ? metadataOf(event.object) : event.object);
        });
        lines.on('close', () => finish(null));
      } catch (err) {
        finish(err);
      }
      return { abort: () => controller.abort() };
    },
  };
}
