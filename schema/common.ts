import * as v from 'valibot';

/** A schema's output type: what a handler takes or answers for that schema. */
export type Out<S extends v.GenericSchema> = v.InferOutput<S>;

/**
 * How serious something is, worst first: a diagnosis finding's severity and an audit event's.
 * A finding's `info` is a history note, never an incident; an audit event's a routine action.
 * (Security findings use trivy's ladder instead: schema/security.ts `SecuritySeverity`.)
 */
export const Severity = v.picklist(['critical', 'warning', 'info']);
export type Severity = v.InferOutput<typeof Severity>;
/** A `Severity` that makes a problem: an incident's, a cluster-model problem node's, a root cause's (never `info`). */
export const ProblemSeverity = v.picklist(['critical', 'warning'] as const satisfies readonly Severity[]);
export type ProblemSeverity = v.InferOutput<typeof ProblemSeverity>;

/** Body of every error response (spec §7): `error` is the stable code to branch on. */
export const ErrorBody = v.object({
  error: v.string(),
  message: v.string(),
  field: v.optional(v.string()),
  /** With a refused PromQL query: the character offset the refusal is about. */
  position: v.optional(v.number()),
  /** With api_key_insufficient_scope: the scope the route needs. */
  scope: v.optional(v.string()),
  /** With 402 feature_not_licensed: the feature, and how to get it. */
  feature: v.optional(v.string()),
  upgrade: v.optional(v.string()),
  /** OAuth endpoints' errors also carry RFC 6749's `error_description`. */
  error_description: v.optional(v.string()),
});
export type ErrorBody = v.InferOutput<typeof ErrorBody>;

/** Input of a route that takes nothing. Unknown query parameters are ignored. */
export const NoInput = v.object({});

export const Timestamp = v.pipe(v.string(), v.isoTimestamp());

/** A namespace's name (an RFC 1123 label): the one definition every input that names one uses. */
export const NamespaceName = v.pipe(v.string(), v.regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'namespace must be a namespace name'), v.maxLength(63));

/** An object's name (an RFC 1123 subdomain); `what` names the field in the message. */
export const kubeName = (what: string) => v.pipe(v.string(), v.regex(/^[a-z0-9]([-.a-z0-9]*[a-z0-9])?$/, `${what} must be a Kubernetes name`), v.maxLength(253));
