// A container's logs (`GET /namespaces/{namespace}/pods/{pod}/logs`): the tail as one JSON
// answer, or the tail and then every new line as Server-Sent Events. Every line is redacted.
// Limits and their reasons: docs/logs.md.
import * as v from 'valibot';
import { NamespaceName, kubeName } from './common.ts';

/** Lines one answer may ask for (`tail_lines`). */
export const MAX_TAIL_LINES = 5000;
/** How far back `since_seconds` may reach: a week. */
export const MAX_SINCE_SECS = 7 * 24 * 3600;

const Count = (field: string, max: number) =>
  v.pipe(v.string(), v.regex(/^[0-9]{1,7}$/, `${field} must be a whole number from 1 to ${max}`), v.transform(Number), v.minValue(1, `${field} must be from 1 to ${max}`), v.maxValue(max, `${field} must be from 1 to ${max}`));

export const ContainerLogInput = v.object({
  namespace: NamespaceName,
  pod: kubeName('pod'),
  /** A container or init container of the pod; its first container when omitted. */
  container: v.optional(kubeName('container')),
  /** `true`: the instance before the last restart (it has ended, so it is never followed). */
  previous: v.optional(v.pipe(v.picklist(['true', 'false'], 'previous must be true or false'), v.transform((s) => s === 'true')), 'false'),
  tail_lines: v.optional(Count('tail_lines', MAX_TAIL_LINES), '200'),
  /** Only lines written in the last this many seconds. */
  since_seconds: v.optional(Count('since_seconds', MAX_SINCE_SECS)),
});
export type ContainerLogInput = v.InferOutput<typeof ContainerLogInput>;

export const ContainerLog = v.object({
  namespace: v.string(),
  pod: v.string(),
  container: v.string(),
  previous: v.boolean(),
  /** Oldest first, each redacted (credentials replaced, the words around them kept). */
  lines: v.array(v.string()),
  /** The answer stopped at its byte cap: older lines exist. */
  truncated: v.boolean(),
});

/** Why a followed log ended. */
export const LogEndReason = v.picklist(['ended', 'byte_cap', 'max_duration', 'error']);

/** One event of a followed log: a line (redacted), or the end and why. */
export const ContainerLogEvent = v.variant('type', [
  v.object({ type: v.literal('line'), line: v.string() }),
  v.object({ type: v.literal('end'), reason: LogEndReason, message: v.nullable(v.string()) }),
]);
export type ContainerLogEvent = v.InferOutput<typeof ContainerLogEvent>;
