import type { Out } from '../../schema/common.ts';
import type { ResourceList, ResourceListInput } from '../../schema/resources.ts';
import { pageOf, parseLabelSelector, rowsOf } from '../../domain/resources/browse.ts';
import type { HandlerContext } from '../context.ts';
import { fail, ok, type Result } from '../result.ts';

/** A cursor is the last row's sort key, as base64url JSON: opaque to clients, checked on the way back. */
function encodeCursor(key: readonly string[]): string {
  const bytes = new TextEncoder().encode(JSON.stringify(key));
  return btoa(String.fromCharCode(...bytes)).replaceAll('+', '-').replaceAll('/', '_').replaceAll('=', '');
}

function decodeCursor(cursor: string): string[] | null {
  try {
    const binary = atob(cursor.replaceAll('-', '+').replaceAll('_', '/'));
    const parsed: unknown = JSON.parse(new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0))));
    return Array.isArray(parsed) && parsed.every((p) => typeof p === 'string') ? (parsed) : null;
  } catch {
    return null;
  }
}

/** One page of a kind's objects the caller may see, from the cache. */
export function listResources(input: Out<typeof ResourceListInput>, ctx: HandlerContext): Result<Out<typeof ResourceList>> {
  const labels = parseLabelSelector(input.labels ?? '');
  if (!labels.ok) return fail({ code: 'invalid_input', field: 'labels', message: labels.message });
  const after = input.cursor === undefined ? null : decodeCursor(input.cursor);
  if (after === null && input.cursor !== undefined) return fail({ code: 'invalid_input', field: 'cursor', message: 'cursor is not one this agent gave' });
  const rows = rowsOf(input.kind, ctx.cluster, ctx.clock.now(), input.kind === 'nodes' ? ctx.capacity.nodes() : undefined);
  const hasProblem = (id: string) => ctx.diagnosis.problem(id) !== null;
  const page = pageOf(rows, { namespace: input.namespace ?? null, text: input.q ?? null, labels: labels.terms, status: input.status ?? null, owner: input.owner ?? null, sort: input.sort, limit: input.limit, after }, hasProblem);
  return ok({
    kind: input.kind,
    items: page.items.map((r) => ({ ...r, labels: { ...r.labels }, columns: { ...r.columns }, conditions: [...r.conditions], problem: hasProblem(r.id) })),
    total: page.total,
    next_cursor: page.next === null ? null : encodeCursor(page.next),
  });
}
