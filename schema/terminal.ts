// The browser terminal's WebSocket (`GET /terminal/ws`): what the upgrade request carries and
// the JSON text frames each side sends. docs/terminal.md.
import * as v from 'valibot';
import { NamespaceName } from './common.ts';

const dimension = (what: string, min: number, max: number) =>
  v.pipe(v.string(), v.regex(/^[0-9]{1,3}$/, `${what} must be ${min}–${max}`), v.transform(Number), v.minValue(min, `${what} must be ${min}–${max}`), v.maxValue(max, `${what} must be ${min}–${max}`));

export const TerminalSocketInput = v.object({
  /** kubectl's namespace in the new session (default `default`); a hidden one is 403 as everywhere. */
  namespace: v.optional(NamespaceName),
  cols: v.optional(dimension('cols', 10, 500), '80'),
  rows: v.optional(dimension('rows', 5, 300), '24'),
  /** Re-attach this session of yours (its id from the `session` message) instead of opening a new one. */
  session: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{16,64}$/, 'session is not a terminal session id'))),
});

/** What the browser sends. */
export const TerminalClientMessage = v.variant('type', [
  v.object({ type: v.literal('input'), data: v.pipe(v.string(), v.maxLength(64 * 1024)) }),
  v.object({ type: v.literal('resize'), cols: v.pipe(v.number(), v.integer(), v.minValue(10), v.maxValue(500)), rows: v.pipe(v.number(), v.integer(), v.minValue(5), v.maxValue(300)) }),
  /** End the session now (a closed tab), rather than leave it waiting to be re-attached. */
  v.object({ type: v.literal('close') }),
]);

/** What the agent sends. */
export const TerminalServerMessage = v.variant('type', [
  /** First: the session's id (keep it to re-attach) and whether this is a re-attach. */
  v.object({ type: v.literal('session'), id: v.string(), reattached: v.boolean() }),
  v.object({ type: v.literal('output'), data: v.string() }),
  /** The shell ended: it exited, was idle past terminal.idleTimeoutSecs, or was not re-attached in time. */
  v.object({ type: v.literal('exit'), code: v.nullable(v.number()), reason: v.string() }),
]);

/** A shell in a pod's container (`GET /terminal/ws/pods/{namespace}/{pod}`, under the prefix the ingress sends to the agent): admins only, the agent's RBAC permitting. */
export const PodExecSocketInput = v.object({
  namespace: NamespaceName,
  pod: v.pipe(v.string(), v.regex(/^[a-z0-9]([-.a-z0-9]*[a-z0-9])?$/, 'pod must be a pod name'), v.maxLength(253)),
  container: v.pipe(v.string(), v.regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'container must be a container name'), v.maxLength(63)),
  cols: v.optional(dimension('cols', 10, 500), '80'),
  rows: v.optional(dimension('rows', 5, 300), '24'),
});

export const TerminalSession = v.object({
  id: v.string(),
  /** A pod shell's container (`namespace/pod/container`); null for the terminal sidecar's shell. */
  target: v.nullable(v.string()),
  username: v.string(),
  role: v.string(),
  namespace: v.string(),
  client_ip: v.string(),
  started_at: v.string(),
  ended_at: v.nullable(v.string()),
  end_reason: v.nullable(v.string()),
  commands: v.array(v.object({ at: v.string(), command: v.string() })),
});

export const TerminalSessionList = v.object({ sessions: v.array(TerminalSession) });
