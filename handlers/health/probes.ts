import type { HandlerContext } from '../context.ts';
import { fail, ok, type Result } from '../result.ts';

export function liveness(): Result<{ status: 'ok' }> {
  return ok({ status: 'ok' });
}

/**
 * Ready once every informer has completed its first list, so answers are never built on a
 * half-filled cache. A LIST RBAC refuses counts as done (served empty): it is named under
 * `unreadable` instead of holding readiness back.
 */
export function readiness(_input: object, ctx: HandlerContext): Result<{ status: 'ready'; synced: string[]; unreadable: string[] }> {
  const status = ctx.cluster.syncStatus();
  const pending = status.filter((s) => !s.synced).map((s) => s.resource);
  if (pending.length > 0) {
    return fail({ code: 'not_ready', message: `informer cache not synced yet: ${pending.join(', ')}` });
  }
  return ok({ status: 'ready', synced: status.map((s) => s.resource), unreadable: status.filter((s) => s.forbidden).map((s) => s.resource) });
}
