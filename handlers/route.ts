import * as v from 'valibot';
import type { AuthedContext, HandlerContext, SessionContext } from './context.ts';
import { namespaceRefusal } from './namespaces/scope.ts';
import { fail, type AppError, type Result } from './result.ts';
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
export type KillSwitch = 'mcp';

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
  /** The Server-Sent Events the route sends instead of `output` when the client accepts `text/event-stream` (copilot chat). */
  stream?: AnySchema;
  /**
   * Media types other than JSON the route may answer in, as a file (the handler's `download`
   * effect, with Content-Disposition: attachment): declared for the OpenAPI document. The
   * handler's value still matches `output`, which is what the JSON answer would carry.
   */
  files?: readonly string[];
  /** Refusals of a browser navigation answered as a redirect to this page instead of JSON (null: JSON always). */
  browserErrors?: BrowserErrors;
  handler: (input: v.InferOutput<I>, ctx: ContextFor<A>) => Result<v.InferOutput<O>> | Promise<Result<v.InferOutput<O>>>;
}

export type RouteSpec<I extends AnySchema, O extends AnySchema, A extends Access> = RouteCore<I, O, A> & Metering;

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
  stream: AnySchema | null;
  files: readonly string[];
  browserErrors: BrowserErrors | null;
  /** Checks the principal the access promises (401 otherwise), validates raw input against `input`, refuses a hidden declared namespace (403), then calls the handler. */
  run(rawInput: unknown, ctx: HandlerContext): Promise<Result<unknown>>;
  /** Null when `value` matches `output`; otherwise a description of the first mismatch. */
  checkOutput(value: unknown): string | null;
} & ({ probe: true; rateLimit: null } | { probe: false; rateLimit: RateLimitClass });

export function defineRoute<I extends AnySchema, O extends AnySchema, A extends Access>(spec: RouteSpec<I, O, A>): Route {
  const { handler, killSwitch, namespaceParam, stream, files = [], browserErrors, bodyLimitBytes = DEFAULT_BODY_LIMIT_BYTES, bodyFormats = ['json'], crossOrigin = 'refuse', ...declaration } = spec;
  const metering = spec.probe === true ? ({ probe: true, rateLimit: null } as const) : ({ probe: false, rateLimit: spec.rateLimit } as const);
  return {
    ...declaration,
    // After the declaration, so its optional probe flag and rate class are replaced by the closed pair.
    ...metering,
    killSwitch: killSwitch ?? null,
    namespaceParam: namespaceParam ?? null,
    stream: stream ?? null,
    files,
    browserErrors: browserErrors ?? null,
    bodyLimitBytes,
    bodyFormats,
    crossOrigin,
    async run(rawInput, ctx) {
      const guaranteed = contextFor(spec.access, ctx);
      if ('code' in guaranteed) return fail(guaranteed);
      const parsed = v.safeParse(spec.input, rawInput);
      if (!parsed.success) return fail(invalidInput(parsed.issues));
      if (namespaceParam !== undefined) {
        const named: unknown = (parsed.output as Record<string, unknown>)[namespaceParam];
        const refused = namespaceRefusal(ctx.cluster, typeof named === 'string' || Array.isArray(named) ? (named as string | string[]) : null);
        if (refused) return fail(refused);
      }
      return handler(parsed.output, guaranteed);
    },
    checkOutput(value) {
      const parsed = v.safeParse(spec.output, value);
      if (parsed.success) return null;
      const [first] = parsed.issues;
      return `${v.getDotPath(first) ?? '(root)'}: ${first.message}`;
    },
  };
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
