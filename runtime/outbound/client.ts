// The one outbound HTTP client for calls to endpoints an admin or operator configures: the AI
// provider (through the Vercel AI SDK's `fetch` option), the audit webhook forwarder and the
// chat webhook; Prometheus, Grafana, alert webhooks and buckets are meant to use it too.
//
// - Where: domain/outbound/address.ts decides. A literal address is checked before anything is
//   sent; a name is resolved once, inside the connection's own `lookup`, every address checked,
//   and the socket connects to the address that was checked, so no second DNS answer (a rebind)
//   can slip in between the check and the connect.
// - No redirects: a 3xx is an error, never followed (a redirect would leave the checked host);
//   a caller that asks gets the 3xx back and makes the next call itself, checked like any.
// - A response size cap (the body is cut with an error past it) and a short timeout for the
//   whole exchange, headers and body.
// - Every refusal is an OutboundError naming why (and, for an address, its range).
//
// The dev switch CAPSTAN_OUTBOUND_ALLOW_LOOPBACK=1 allows loopback (the demo and the tests talk
// to fakes on 127.0.0.1); the chart never sets it. docs/security.md "Outbound calls".
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress, LookupAllOptions, LookupOneOptions } from 'node:dns';
import { Agent, fetch as undiciFetch } from 'undici';
import { RANGE_TEXT, refusedAddress, refusedHost, configuredUrlProblem, type ConfiguredUrlUse, type OutboundPolicy, type RefusedRange } from '../../domain/outbound/address.ts';

export type OutboundErrorReason = 'refused_address' | 'invalid_url' | 'redirect' | 'response_too_large' | 'timeout' | 'no_address';

export class OutboundError extends Error {
  override readonly name = 'OutboundError';
  constructor(
    readonly reason: OutboundErrorReason,
    message: string,
    /** For `refused_address`: the range the address is in. */
    readonly range: RefusedRange | null = null,
  ) {
    super(message);
  }
}

/** A host's addresses, as dns.lookup(host, { all: true }) answers; injectable for tests. */
export type Resolver = (host: string) => Promise<readonly { address: string; family: number }[]>;

export interface OutboundLimits {
  /** The whole exchange, connect to last body byte. */
  timeoutMs: number;
  /** Bytes of response body; past it the body errors with `response_too_large`. */
  maxResponseBytes: number;
  /**
   * Answer a 3xx (its body dropped, its `location` kept) instead of refusing it, for a caller
   * that checks the target itself and makes the next call through this client (an OCI blob's
   * redirect to its storage). Never followed here.
   */
  answerRedirects?: boolean;
}

export const DEFAULT_LIMITS: OutboundLimits = { timeoutMs: 10_000, maxResponseBytes: 1024 * 1024 };

export interface OutboundClientOptions {
  policy: OutboundPolicy;
  /** Default: the system resolver (dns.lookup, every address). */
  resolve?: Resolver;
  limits?: Partial<OutboundLimits>;
  /** Told of every call that failed (Capstan's own metrics): the OutboundError's reason, or `network`. */
  onFailure?: (reason: string) => void;
}

export interface OutboundClient {
  readonly policy: OutboundPolicy;
  /** A fetch with these limits (over the client's defaults), for a caller or an SDK that takes one. */
  fetcher(limits?: Partial<OutboundLimits>): typeof fetch;
  /** Why a configured URL cannot be saved (domain/outbound/address.ts configuredUrlProblem), or null. */
  urlProblem(url: string, use: ConfiguredUrlUse): string | null;
  close(): Promise<void>;
}

const TRUE = new Set(['1', 'true']);
const FALSE = new Set(['', '0', 'false']);

/** The policy from the environment: CAPSTAN_OUTBOUND_ALLOW_LOOPBACK (1/true, default off) and KUBERNETES_SERVICE_HOST. */
export function outboundPolicyFromEnv(env: NodeJS.ProcessEnv = process.env): OutboundPolicy {
  const raw = (env.CAPSTAN_OUTBOUND_ALLOW_LOOPBACK ?? '').trim().toLowerCase();
  if (!TRUE.has(raw) && !FALSE.has(raw)) throw new Error(`CAPSTAN_OUTBOUND_ALLOW_LOOPBACK must be 1 or 0 (true or false), got "${env.CAPSTAN_OUTBOUND_ALLOW_LOOPBACK ?? ''}"`);
  const kube = (env.KUBERNETES_SERVICE_HOST ?? '').trim();
  return { allowLoopback: TRUE.has(raw), kubernetesApiHosts: kube === '' ? [] : [kube] };
}

const systemResolver: Resolver = (host) => dnsLookup(host, { all: true, verbatim: true });

function refusal(host: string, address: string | null, range: RefusedRange): OutboundError {
  const where = address === null || address === host ? host : `${host} (${address})`;
  return new OutboundError('refused_address', `outbound call refused: ${where} is ${RANGE_TEXT[range]}`, range);
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** The net/tls `lookup` the connection uses: resolve once, check every address, hand over only checked ones. */
function pinnedLookup(policy: OutboundPolicy, resolve: Resolver) {
  return (hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback): void => {
    const checked = async (): Promise<LookupAddress[]> => {
      const byName = refusedHost(hostname, policy);
      if (byName !== null) throw refusal(hostname, null, byName);
      const found = await resolve(hostname);
      const wanted = options.family === 4 || options.family === 6 ? found.filter((a) => a.family === options.family) : found;
      if (wanted.length === 0) throw new OutboundError('no_address', `outbound call failed: ${hostname} has no address`);
      // Every address must pass, not just the first: a connection attempt may try any of them.
      for (const a of wanted) {
        const range = refusedAddress(a.address, policy);
        if (range !== null) throw refusal(hostname, a.address, range);
      }
      return wanted.map((a) => ({ address: a.address, family: a.family }));
    };
    checked().then(
      (addresses) => {
        const first = addresses[0];
        if (options.all === true) callback(null, addresses);
        else if (first) callback(null, first.address, first.family);
      },
      (err: unknown) => callback(err instanceof Error ? err : new Error(String(err)), ''),
    );
  };
}

/** The OutboundError somewhere in an error's cause chain (undici wraps a connect failure in `TypeError: fetch failed`). */
function outboundCause(err: unknown): OutboundError | null {
  let e: unknown = err;
  for (let i = 0; i < 5 && e instanceof Error; i++) {
    if (e instanceof OutboundError) return e;
    e = e.cause;
  }
  return null;
}

interface Outgoing {
  url: URL;
  method: string;
  headers: [string, string][];
  body: string | Uint8Array | null;
  signal: AbortSignal | null;
}

async function outgoing(input: string | URL | Request, init: RequestInit | undefined): Promise<Outgoing> {
  const request = input instanceof Request ? new Request(input, init) : null;
  const href = request ? request.url : input instanceof URL ? input.href : input;
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    throw new OutboundError('invalid_url', 'outbound call refused: not a URL');
  }
  const method = (request?.method ?? init?.method ?? 'GET').toUpperCase();
  const headers = [...new Headers(request ? request.headers : init?.headers).entries()];
  let body: string | Uint8Array | null = null;
  if (request) {
    if (request.body !== null) body = new Uint8Array(await request.arrayBuffer());
  } else if (init?.body !== undefined && init.body !== null) {
    const b = init.body;
    if (typeof b === 'string') body = b;
    else if (b instanceof Uint8Array) body = b;
    else if (b instanceof ArrayBuffer) body = new Uint8Array(b);
    else body = new Uint8Array(await new Response(b).arrayBuffer());
  }
  return { url, method, headers, body, signal: request?.signal ?? init?.signal ?? null };
}

/** The body, cut with an error past `max` bytes; errors mapped to OutboundError where they are ours. */
function cappedBody(body: ReadableStream<Uint8Array>, max: number, host: string, timeout: AbortSignal, timeoutMs: number): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let seen = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          return;
        }
        seen += value.byteLength;
        if (seen > max) {
          controller.error(new OutboundError('response_too_large', `outbound call to ${host}: the response is larger than ${max} bytes; cut`));
          await reader.cancel().catch(() => undefined);
          return;
        }
        controller.enqueue(value);
      } catch (err) {
        controller.error(timeout.aborted ? new OutboundError('timeout', `outbound call to ${host} timed out after ${timeoutMs} ms`) : err);
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

const NULL_BODY = new Set([101, 204, 205, 304]);

export function createOutboundClient(options: OutboundClientOptions): OutboundClient {
  const { policy } = options;
  const resolve = options.resolve ?? systemResolver;
  const defaults: OutboundLimits = { ...DEFAULT_LIMITS, ...options.limits };
  const agent = new Agent({ connect: { lookup: pinnedLookup(policy, resolve) } });

  async function send(input: string | URL | Request, init: RequestInit | undefined, limits: OutboundLimits): Promise<Response> {
    const out = await outgoing(input, init);
    const { url } = out;
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundError('invalid_url', `outbound call refused: ${url.protocol} is not http or https`);
    // A literal address never reaches `lookup` (the socket connects to it directly): checked here.
    const host = url.hostname;
    const range = refusedHost(host, policy);
    if (range !== null) throw refusal(host, null, range);
    const timeout = AbortSignal.timeout(limits.timeoutMs);
    const signal = out.signal ? AbortSignal.any([out.signal, timeout]) : timeout;
    let res: Awaited<ReturnType<typeof undiciFetch>>;
    try {
      res = await undiciFetch(url, { method: out.method, headers: out.headers, body: out.body, signal, redirect: 'manual', dispatcher: agent });
    } catch (err) {
      const ours = outboundCause(err);
      if (ours) throw ours;
      if (timeout.aborted) throw new OutboundError('timeout', `outbound call to ${host} timed out after ${limits.timeoutMs} ms`);
      throw err;
    }
    const drop = () => res.body?.cancel().catch(() => undefined);
    if (res.status >= 300 && res.status < 400) {
      await drop();
      if (limits.answerRedirects === true) return new Response(null, { status: res.status, statusText: res.statusText, headers: [...res.headers.entries()] });
      throw new OutboundError('redirect', `outbound call to ${host} answered ${res.status} (redirects are not followed)`);
    }
    const declared = Number(res.headers.get('content-length') ?? '');
    if (Number.isFinite(declared) && declared > limits.maxResponseBytes) {
      await drop();
      throw new OutboundError('response_too_large', `outbound call to ${host}: the response is larger than ${limits.maxResponseBytes} bytes; cut`);
    }
    const body = res.body === null || NULL_BODY.has(res.status) ? null : cappedBody(res.body, limits.maxResponseBytes, host, timeout, limits.timeoutMs);
    return new Response(body, { status: res.status, statusText: res.statusText, headers: [...res.headers.entries()] });
  }

  return {
    policy,
    fetcher(limits) {
      const merged: OutboundLimits = { ...defaults, ...limits };
      return async (input: string | URL | Request, init?: RequestInit) => {
        try {
          return await send(input, init, merged);
        } catch (err) {
          options.onFailure?.(err instanceof OutboundError ? err.reason : 'network');
          throw err;
        }
      };
    },
    urlProblem: (url, use) => configuredUrlProblem(url, policy, use),
    close: () => agent.close(),
  };
}
