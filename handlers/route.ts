import * as v from 'valibot';
import type { AuthedContext, HandlerContext, SessionContext } from './context.ts';
import { namespaceRefusal } from './namespaces/scope.ts';
import { fail, ok, type AppError, type Result } from './result.ts';
import type { AuditCategory, LicensedFeature, RateLimitClass, Role, Scope } from '../schema/access.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
type AnySchema = v.GenericSchema;

/**
 * A public route with `session: 'optional'` is never refused, but a valid session cookie makes
 * its user the principal (OAuth's authorization endpoint redirects errors only for a signed-in user).
 */
export type PublicAccess = { auth: 'public'; session?: 'optional' };
export type CredentialAccess = { auth: 'credential'; role: Role; scope: Scope | null };

/** What a route takes when it declares nothing: 1 MiB (issue 11: one 150 MB sign-in tripled the agent's memory). */
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Body encodings a route reads. JSON only by default: a web page can send a form or
 * `text/plain` body to any origin without a CORS preflight, JSON it cannot. `form`
 * (application/x-www-form-urlencoded) is for OAuth's token endpoint (RFC 6749 §4.1.3).
 */
export type BodyFormat = 'json' | 'form';

/**
 * `refuse` (the default): a state-changing request whose Origin is another origin, or whose
 * Sec-Fetch-Site is `cross-site`, is 403 cross_site_request. `allow` is for public endpoints
 * that neither read nor set the session cookie (OAuth registration and token exchange),
 * which MCP clients call from wherever they run.
 */
export type CrossOrigin = 'refuse' | 'allow';

/**
 * Where a refusal goes when the request is a top-level browser navigation rather than an API
 * call (./browser-errors.ts). `sign-in`: a 303 to the dashboard's `/sign-in?sso_error=…&reason=…`,
 * for the SSO redirect flows a browser arrives at from the identity provider, where a JSON
 * error would be all the tab shows. API clients still get the JSON error.
 */
export type BrowserErrors = 'sign-in';

/** The request-shape declarations every route may leave to their defaults. */
interface BodyPolicy {
  /** Largest body accepted, in bytes (413 payload_too_large past it). */
  bodyLimitBytes: number;
  bodyFormats: readonly BodyFormat[];
  crossOrigin: CrossOrigin;
}


/**
 * Who may call a route. `public` is for probes, sign-in and the OAuth endpoints a client
 * needs before it has a token. For `credential` routes, `scope` is the API-key scope that
 * reaches it; `null` means no key or OAuth token can ever reach it (spec §5: 403
 * api_key_forbidden), so only a signed-in session does.
 */
export type Access = PublicAccess | CredentialAccess;

/**
 * The context a route's handler receives, by its access: a credential route's principal is
 * never null, and a route no key or token reaches gets a session's principal. `defineRoute`
 * checks both at run time too, so a missing authentication stage cannot hand a handler less.
 */
export type ContextFor<A extends Access> = A extends { auth: 'credential' } ? (A extends { scope: null } ? SessionContext : AuthedContext) : HandlerContext;

/** A runtime setting that closes every route declaring it (403 with the switch's code). */
export type KillSwitch = 'mcp' | 'expert_mode';

/**
 * Probes (the kubelet's liveness and readiness checks) are exempt from IP access, load
 * shedding and rate limits, so they have no rate-limit class; every other route has one.
 */
type Metering = { probe: true; access: PublicAccess; rateLimit?: never } | { probe?: false; rateLimit: RateLimitClass };

/** The input fields that can name namespaces: a string, or a list of them. */
export type NamespaceField<T> = { [K in keyof T]-?: NonNullable<T[K]> extends string | readonly string[] ? K : never }[keyof T] & string;

interface RouteCore<I extends AnySchema, O extends AnySchema, A extends Access> {
  method: HttpMethod;
  /** Hono path syntax, without the `/api/agent` prefix: `/incidents/:namespace/:pod`. */
  path: string;
  summary: string;
  input: I;
  output: O;
  access: A;
  audit: AuditCategory;
  feature: LicensedFeature | null;
  /** The route answers 403 while this runtime switch is off (the MCP kill switch). */
  killSwitch?: KillSwitch;
  /**
   * The input field naming the namespace (or namespaces) the request reads or writes: the
   * runtime answers the out-of-scope 403 for a hidden one before the handler runs. Every
   * route with a `:namespace` path parameter declares it (tests/unit/route-table.test.ts).
   */
  namespaceParam?: NoInfer<NamespaceField<v.InferOutput<I>>>;
  bodyLimitBytes?: number;
  bodyFormats?: readonly BodyFormat[];
  crossOrigin?: CrossOrigin;
  /**
   * Media types other than JSON the route may answer in, as a file (the handler's `download`
   * effect, with Content-Disposition: attachment): declared for the OpenAPI document. The
   * handler's value still matches `output`, which is what the JSON answer would carry.
   */
  files?: readonly string[];
  /** Refusals of a browser navigation answered as a redirect to this page instead of JSON (null: JSON always). */
  browserErrors?: BrowserErrors;
}

/** A route answering one JSON value (or a file, or a redirect). */
interface JsonRouteCore<I extends AnySchema, O extends AnySchema, A extends Access> extends RouteCore<I, O, A> {
  stream?: never;
  websocket?: never;
  handler: (input: v.InferOutput<I>, ctx: ContextFor<A>) => Result<v.InferOutput<O>> | Promise<Result<v.InferOutput<O>>>;
}

/**
 * What a streamed route's handler returns: a pure description the runtime drives, after the
 * whole policy chain ran and before the first byte. `signal` fires when the client goes away
 * or the runtime closes the stream (its credential no longer holds: docs/api.md).
 */
export interface StreamAnswer<E, O> {
  /** The events, sent as Server-Sent Events (`event: <type>`) to a client that accepts `text/event-stream`. */
  events(signal: AbortSignal): AsyncIterable<E>;
  /** The one JSON answer (matching `output`) for a client that does not; absent, every client gets the events. */
  json?(signal: AbortSignal): Promise<O>;
}

/** One event of a stream: an object whose `type` is also its SSE `event:` name. */
type EventSchema = v.GenericSchema<unknown, { type: string }>;

/**
 * Caps of one streamed route's own open streams, under the caps every stream shares: for a
 * stream that holds something costly while open (a log follow holds a connection to the API
 * server). Taken before the handler runs; past one, 429 `rate_limited`.
 */
export interface StreamCaps {
  perUser: number;
  total: number;
  /** What the 429 calls one of them: `log follows`. */
  noun: string;
}

/**
 * A streamed route (SSE): `stream.event` is the schema of one event. The runtime applies
 * every policy of the chain before the stream starts, keeps re-checking the credential while
 * it is open, caps open streams per user and in total, and sends heartbeats (docs/api.md).
 */
interface StreamRouteCore<I extends AnySchema, O extends AnySchema, E extends EventSchema, A extends Access> extends RouteCore<I, O, A> {
  stream: { event: E; caps?: StreamCaps };
  websocket?: never;
  handler: (input: v.InferOutput<I>, ctx: ContextFor<A>) => Result<StreamAnswer<v.InferOutput<E>, v.InferOutput<O>>> | Promise<Result<StreamAnswer<v.InferOutput<E>, v.InferOutput<O>>>>;
}

/** The handler's side of an accepted WebSocket: send text, close, and a signal that fires when the socket closes (either side, or policy). */
export interface SocketPeer {
  send(text: string): void;
  close(): void;
  /** Bytes sent but not yet written to the network: a slow client's backlog, for flow control. */
  buffered(): number;
  readonly signal: AbortSignal;
}

/** What a WebSocket route's handler returns: what to do once the upgrade is accepted, and with each text message. */
export interface SocketAnswer {
  open(peer: SocketPeer): void;
  message?(text: string, peer: SocketPeer): void;
}

/**
 * A WebSocket route (GET): the runtime applies the whole chain, refuses a foreign Origin and
 * takes a slot under the stream caps before it accepts the upgrade (a refusal is the HTTP
 * status, and no handler runs), then re-checks the credential while the socket is open as it
 * does for a stream. `output` describes the messages the route sends.
 */
interface SocketRouteCore<I extends AnySchema, O extends AnySchema, A extends Access> extends RouteCore<I, O, A> {
  method: 'GET';
  websocket: true;
  stream?: never;
  handler: (input: v.InferOutput<I>, ctx: ContextFor<A>) => Result<SocketAnswer> | Promise<Result<SocketAnswer>>;
}

export type RouteSpec<I extends AnySchema, O extends AnySchema, A extends Access> = JsonRouteCore<I, O, A> & Metering;
export type SocketRouteSpec<I extends AnySchema, O extends AnySchema, A extends Access> = SocketRouteCore<I, O, A> & Metering;

/** A WebSocket route's declaration as the runtime drives it. */
export interface SocketDeclaration {
  /** Checks access, input and namespace as `run` does, then calls the handler for what to do once accepted. */
  open(rawInput: unknown, ctx: HandlerContext): Promise<Result<SocketAnswer>>;
}
export type StreamRouteSpec<I extends AnySchema, O extends AnySchema, E extends EventSchema, A extends Access> = StreamRouteCore<I, O, E, A> & Metering;

/** A streamed route's declaration as the runtime drives it. */
export interface StreamDeclaration {
  event: AnySchema;
  /** The route's own caps (null: only the caps every stream shares). */
  caps: StreamCaps | null;
  /** Checks access, input and namespace as `run` does, then calls the handler for its stream. */
  open(rawInput: unknown, ctx: HandlerContext): Promise<Result<StreamAnswer<unknown, unknown>>>;
  /** Null when `value` matches `event`; otherwise a description of the first mismatch. */
  checkEvent(value: unknown): string | null;
}

/** A route with its types closed over: what the runtime and the OpenAPI generator iterate. */
export type Route = BodyPolicy & {
  method: HttpMethod;
  path: string;
  summary: string;
  input: AnySchema;
  output: AnySchema;
  access: Access;
  audit: AuditCategory;
  feature: LicensedFeature | null;
  killSwitch: KillSwitch | null;
  namespaceParam: string | null;
  /** Null for a route answering JSON. */
  stream: StreamDeclaration | null;
  /** Null unless the route takes a WebSocket upgrade. */
  socket: SocketDeclaration | null;
  files: readonly string[];
  browserErrors: BrowserErrors | null;
  /**
   * Checks the principal the access promises (401 otherwise), validates raw input against
   * `input`, refuses a hidden declared namespace (403), then calls the handler. A streamed
   * route's value is its JSON answer (an internal error if it has none).
   */
  run(rawInput: unknown, ctx: HandlerContext): Promise<Result<unknown>>;
  /** Null when `value` matches `output`; otherwise a description of the first mismatch. */
  checkOutput(value: unknown): string | null;
} & ({ probe: true; rateLimit: null } | { probe: false; rateLimit: RateLimitClass });

export function defineRoute<I extends AnySchema, O extends AnySchema, E extends EventSchema, A extends Access>(spec: StreamRouteSpec<I, O, E, A>): Route;
export function defineRoute<I extends AnySchema, O extends AnySchema, A extends Access>(spec: RouteSpec<I, O, A> | SocketRouteSpec<I, O, A>): Route;
export function defineRoute<I extends AnySchema, O extends AnySchema, E extends EventSchema, A extends Access>(spec: RouteSpec<I, O, A> | StreamRouteSpec<I, O, E, A> | SocketRouteSpec<I, O, A>): Route {
  const { killSwitch, namespaceParam, files = [], browserErrors, bodyLimitBytes = DEFAULT_BODY_LIMIT_BYTES, bodyFormats = ['json'], crossOrigin = 'refuse' } = spec;
  const metering = spec.probe === true ? ({ probe: true, rateLimit: null } as const) : ({ probe: false, rateLimit: spec.rateLimit } as const);
  /** The steps before any handler: the principal the access promises, the input, the declared namespace. */
  const admit = (rawInput: unknown, ctx: HandlerContext): Result<{ input: v.InferOutput<I>; ctx: ContextFor<A> }> => {
    const guaranteed = contextFor(spec.access, ctx);
    if ('code' in guaranteed) return fail(guaranteed);
    const parsed = v.safeParse(spec.input, rawInput);
    if (!parsed.success) return fail(invalidInput(parsed.issues));
    if (namespaceParam !== undefined) {
      const named: unknown = (parsed.output as Record<string, unknown>)[namespaceParam];
      const refused = namespaceRefusal(ctx.cluster, typeof named === 'string' || Array.isArray(named) ? (named as string | string[]) : null);
      if (refused) return fail(refused);
    }
    return ok({ input: parsed.output, ctx: guaranteed });
  };
  const common = {
    method: spec.method,
    path: spec.path,
    summary: spec.summary,
    input: spec.input,
    output: spec.output,
    access: spec.access,
    audit: spec.audit,
    feature: spec.feature,
    // The closed pair, not the declaration's optional probe flag and rate class.
    ...metering,
    killSwitch: killSwitch ?? null,
    namespaceParam: namespaceParam ?? null,
    files,
    browserErrors: browserErrors ?? null,
    bodyLimitBytes,
    bodyFormats,
    crossOrigin,
    checkOutput(value: unknown) {
      return mismatch(spec.output, value);
    },
  };
  if (spec.websocket === true) {
    const socketHandler = spec.handler;
    return {
      ...common,
      stream: null,
      socket: {
        async open(rawInput, ctx) {
          const admitted = admit(rawInput, ctx);
          if (!admitted.ok) return admitted;
          return socketHandler(admitted.value.input, admitted.value.ctx);
        },
      },
      // Called without an upgrade: refused as any call is (no principal, a key on a session-only route) before it says so.
      run(rawInput, ctx) {
        const admitted = admit(rawInput, ctx);
        return Promise.resolve(admitted.ok ? fail({ code: 'internal', message: `${spec.method} ${spec.path} answers only as a WebSocket` }) : admitted);
      },
    };
  }
  if (spec.stream === undefined) {
    const handler = spec.handler;
    return {
      ...common,
      stream: null,
      socket: null,
      async run(rawInput, ctx) {
        const admitted = admit(rawInput, ctx);
        if (!admitted.ok) return admitted;
        return handler(admitted.value.input, admitted.value.ctx);
      },
    };
  }
  const { handler, stream } = spec;
  const open = async (rawInput: unknown, ctx: HandlerContext): Promise<Result<StreamAnswer<unknown, unknown>>> => {
    const admitted = admit(rawInput, ctx);
    if (!admitted.ok) return admitted;
    return handler(admitted.value.input, admitted.value.ctx);
  };
  return {
    ...common,
    stream: { event: stream.event, caps: stream.caps ?? null, open, checkEvent: (value) => mismatch(stream.event, value) },
    socket: null,
    async run(rawInput, ctx) {
      const opened = await open(rawInput, ctx);
      if (!opened.ok) return opened;
      const answer = opened.value;
      if (answer.json === undefined) return fail({ code: 'internal', message: `${spec.method} ${spec.path} answers only as a stream` });
      return ok(await answer.json(new AbortController().signal));
    },
  };
}

function mismatch(schema: AnySchema, value: unknown): string | null {
  const parsed = v.safeParse(schema, value);
  if (parsed.success) return null;
  const [first] = parsed.issues;
  return `${v.getDotPath(first) ?? '(root)'}: ${first.message}`;
}

/**
 * The context the access promises, or the 401 when the request does not carry it. The
 * authentication stage already refused such requests; this makes the promise hold even if a
 * chain is assembled without it.
 */
function contextFor<A extends Access>(access: A, ctx: HandlerContext): ContextFor<A> | AppError {
  if (access.auth === 'public') return ctx as ContextFor<A>;
  if (ctx.principal === null) return { code: 'unauthenticated', message: 'sign in first' };
  if (access.scope === null && ctx.principal.via !== 'session') return { code: 'unauthenticated', message: 'this route needs a signed-in session' };
  return ctx as ContextFor<A>;
}

function invalidInput(issues: [v.BaseIssue<unknown>, ...v.BaseIssue<unknown>[]]): AppError {
  const [first] = issues;
  const field = v.getDotPath(first) ?? 'body';
  return { code: 'invalid_input', field, message: `${field}: ${first.message}` };
}

/**
 * Identity, credentials, access control and the audit feed: never reachable with an API key
 * (spec §5 "API keys" item 4: 403 api_key_forbidden before any handler runs).
 */
export const noApiKeys = (role: Role) => ({ access: { auth: 'credential', role, scope: null }, feature: null }) as const;
