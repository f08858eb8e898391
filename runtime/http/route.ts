import * as v from 'valibot';
import type { HandlerContext } from '../../handlers/context.ts';
import { fail, type AppError, type Result } from '../../handlers/result.ts';
import type { AuditCategory, LicensedFeature, RateLimitClass, Role, Scope } from '../../schema/access.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
type AnySchema = v.GenericSchema;

/**
 * Who may call a route. `public` is for probes only. For `credential` routes, `scope` is the
 * API-key scope that reaches it; `null` means no key can ever reach it (spec §5: 403 api_key_forbidden).
 * A public route with `session: 'optional'` is never refused, but a valid session cookie makes its
 * user the principal (OAuth's authorization endpoint redirects errors only for a signed-in user).
 */
export type Access = { auth: 'public'; session?: 'optional' } | { auth: 'credential'; role: Role; scope: Scope | null };

export interface RouteSpec<I extends AnySchema, O extends AnySchema> {
  method: HttpMethod;
  /** Hono path syntax, without the `/api/agent` prefix: `/incidents/:namespace/:pod`. */
  path: string;
  summary: string;
  input: I;
  output: O;
  access: Access;
  audit: AuditCategory;
  rateLimit: RateLimitClass;
  feature: LicensedFeature | null;
  handler: (input: v.InferOutput<I>, ctx: HandlerContext) => Result<v.InferOutput<O>> | Promise<Result<v.InferOutput<O>>>;
}

/** A route with its types closed over: what the runtime and the OpenAPI generator iterate. */
export interface Route {
  method: HttpMethod;
  path: string;
  summary: string;
  input: AnySchema;
  output: AnySchema;
  access: Access;
  audit: AuditCategory;
  rateLimit: RateLimitClass;
  feature: LicensedFeature | null;
  /** Validates raw input against `input`, then calls the handler. */
  run(rawInput: unknown, ctx: HandlerContext): Promise<Result<unknown>>;
  /** Null when `value` matches `output`; otherwise a description of the first mismatch. */
  checkOutput(value: unknown): string | null;
}

export function defineRoute<I extends AnySchema, O extends AnySchema>(spec: RouteSpec<I, O>): Route {
  const { handler, ...declaration } = spec;
  return {
    ...declaration,
    async run(rawInput, ctx) {
      const parsed = v.safeParse(spec.input, rawInput);
      if (!parsed.success) return fail(invalidInput(parsed.issues));
      return handler(parsed.output, ctx);
    },
    checkOutput(value) {
      const parsed = v.safeParse(spec.output, value);
      if (parsed.success) return null;
      const [first] = parsed.issues;
      return `${v.getDotPath(first) ?? '(root)'}: ${first.message}`;
    },
  };
}

function invalidInput(issues: [v.BaseIssue<unknown>, ...v.BaseIssue<unknown>[]]): AppError {
  const [first] = issues;
  const field = v.getDotPath(first) ?? 'body';
  return { code: 'invalid_input', field, message: `${field}: ${first.message}` };
}
