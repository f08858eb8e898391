import type { Out } from '../../schema/common.ts';
import type { ResourceList, ResourceListInput } from '../../schema/resources.ts';
import { pageOf, parseLabelSelector, ROW_SOURCES, rowsOf, sortRows, type BrowsableKind, type ResourceRow, type SortedRows } from '../../domain/resources/browse.ts';
import { shortAge } from '../../domain/resources/age.ts';
import type { HandlerContext } from '../context.ts';
import { fail, ok, type Result } from '../result.ts';

/** A cursor is the last row's sort key, as base64url JSON: opaque to clients, checked on the way back. */
export function encodeCursor(key: readonly string[]): string {
  const bytes = new TextEncoder().encode(JSON.stringify(key));
  return btoa(String.fromCharCode(...bytes)).replaceAll('+', '-').replaceAll('/', '_').replaceAll('=', '');
}

export function decodeCursor(cursor: string): string[] | null {
  try {
    const binary = atob(cursor.replaceAll('-', '+').replaceAll('_', '/'));
    const parsed: unknown = JSON.parse(new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0))));
    return Array.isArray(parsed) && parsed.every((p) => typeof p === 'string') ? (parsed) : null;
  } catch {
    return null;
  }
}

/** How long a kind's sorted rows may be served after their sources changed (a churning cache must not make every request rebuild them). */
const ROWS_MIN_AGE_MS = 2000;

/** What a kind's rows are made from: they are kept while these are the same arrays. */
function sourcesOf(kind: BrowsableKind, ctx: HandlerContext): readonly unknown[] {
  const listings = ROW_SOURCES[kind].map((listing) => ctx.cluster[listing]());
  return kind === 'nodes' ? [...listings, ctx.capacity.nodes()] : listings;
}

/** A kind's visible rows in one order, built once per change of what they are made from (5000 pods are not re-rowed and re-sorted per request). */
export function sortedRows(kind: BrowsableKind, sort: 'name' | 'age', ctx: HandlerContext): SortedRows {
  // Visibility is the install's (tenantNamespaces), the same for every caller: it is part of the key.
  const key = `resources:${kind}:${sort}:${ctx.settings.tenantNamespaces.join(',')}`;
  return ctx.memo.derive(key, sourcesOf(kind, ctx), ROWS_MIN_AGE_MS, () => sortRows(rowsOf(kind, ctx.cluster, kind === 'nodes' ? ctx.capacity.nodes() : undefined), sort));
}

/** A row as the API answers it: its age now, whether the diagnosis has a problem on it now. */
export function rowOutput(r: ResourceRow, ctx: HandlerContext, now: Date) {
  return rowOutputAt(r, ctx.diagnosis.problem(r.id) !== null, now);
}

/** A row as the API answers it, whether it is a problem already known. */
export function rowOutputAt(r: ResourceRow, problem: boolean, now: Date) {
  return { ...r, age: shortAge(r.created_at, now), labels: { ...r.labels }, columns: { ...r.columns }, conditions: [...r.conditions], problem };
}

/** One page of a kind's objects the caller may see, from the cache. */
export function listResources(input: Out<typeof ResourceListInput>, ctx: HandlerContext): Result<Out<typeof ResourceList>> {
  const labels = parseLabelSelector(input.labels ?? '');
  if (!labels.ok) return fail({ code: 'invalid_input', field: 'labels', message: labels.message });
  const after = input.cursor === undefined ? null : decodeCursor(input.cursor);
  if (after === null && input.cursor !== undefined) return fail({ code: 'invalid_input', field: 'cursor', message: 'cursor is not one this agent gave' });
  const now = ctx.clock.now();
  const hasProblem = (id: string) => ctx.diagnosis.problem(id) !== null;
  const page = pageOf(sortedRows(input.kind, input.sort, ctx), { namespace: input.namespace ?? null, text: input.q ?? null, labels: labels.terms, status: input.status ?? null, owner: input.owner ?? null, sort: input.sort, limit: input.limit, after }, hasProblem);
  return ok({
    kind: input.kind,
    items: page.items.map((r) => rowOutput(r, ctx, now)),
    total: page.total,
    next_cursor: page.next === null ? null : encodeCursor(page.next),
  });
}
