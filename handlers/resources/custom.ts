// Custom resources: the kinds the cluster's CRDs add, and their objects through the same
// filters, sort and keyset pages as the built-in kinds (docs/resources.md "Custom resources").
// The catalog hands them out already cut to the caller's namespaces.
import { stringify } from 'yaml';
import { customRows, type CustomKind } from '../../domain/resources/custom.ts';
import { pageOf, parseLabelSelector, sortRows, type SortedRows } from '../../domain/resources/browse.ts';
import { objectView } from '../../domain/resources/object-view.ts';
import type { Out } from '../../schema/common.ts';
import type { CustomDetail, CustomDetailInput, CustomKindList, CustomList, CustomListInput } from '../../schema/resources.ts';
import type { HandlerContext } from '../context.ts';
import { fail, ok, type AppError, type Result } from '../result.ts';
import { eventsAbout } from './detail.ts';
import { decodeCursor, encodeCursor, rowOutputAt } from './list.ts';

/** How long a kind's sorted rows may be served after its cache changed. */
const ROWS_MIN_AGE_MS = 2000;

const kindOutput = (k: CustomKind): Out<typeof CustomKindList>['items'][number] => ({ name: k.name, group: k.group, version: k.version, kind: k.kind, plural: k.plural, namespaced: k.namespaced });

/** The catalog's refusals as the API answers them. */
function refusal(read: { status: 'forbidden' | 'not_ready' | 'busy' | 'unknown_kind'; reason: string }): AppError {
  switch (read.status) {
    case 'unknown_kind':
      return { code: 'not_found', message: read.reason };
    case 'forbidden':
      return { code: 'forbidden', message: read.reason };
    case 'busy':
      return { code: 'overloaded', message: read.reason, retryAfterSecs: 60 };
    case 'not_ready':
      return { code: 'not_ready', message: read.reason };
  }
}

/** Every custom kind the cluster serves, by group then kind. */
export async function listCustomKinds(_input: unknown, ctx: HandlerContext): Promise<Result<Out<typeof CustomKindList>>> {
  const read = await ctx.customResources.kinds();
  if (!read.ok) return fail(refusal(read));
  const items = [...read.kinds].sort((a, b) => a.group.localeCompare(b.group) || a.kind.localeCompare(b.kind)).map(kindOutput);
  return ok({ items });
}

/** One page of a custom kind's objects the caller may see. */
export async function listCustomObjects(input: Out<typeof CustomListInput>, ctx: HandlerContext): Promise<Result<Out<typeof CustomList>>> {
  const labels = parseLabelSelector(input.labels ?? '');
  if (!labels.ok) return fail({ code: 'invalid_input', field: 'labels', message: labels.message });
  const after = input.cursor === undefined ? null : decodeCursor(input.cursor);
  if (after === null && input.cursor !== undefined) return fail({ code: 'invalid_input', field: 'cursor', message: 'cursor is not one this agent gave' });
  const read = await ctx.customResources.objects(input.group, input.plural);
  if (!read.ok) return fail(refusal(read));
  if (!read.kind.namespaced && input.namespace !== undefined) return fail({ code: 'invalid_input', field: 'namespace', message: `${read.kind.name} have no namespace` });
  const key = `custom:${read.kind.name}:${input.sort}:${ctx.settings.tenantNamespaces.join(',')}`;
  const sorted: SortedRows = ctx.memo.derive(key, [read.objects], ROWS_MIN_AGE_MS, () => sortRows(customRows(read.kind, read.objects), input.sort));
  // The diagnosis has no rules for custom kinds: no row is a problem, so `status` is not offered.
  const page = pageOf(sorted, { namespace: input.namespace ?? null, text: input.q ?? null, labels: labels.terms, status: null, owner: input.owner ?? null, sort: input.sort, limit: input.limit, after }, () => false);
  const now = ctx.clock.now();
  return ok({
    kind: kindOutput(read.kind),
    items: page.items.map((r) => rowOutputAt(r, false, now)),
    total: page.total,
    next_cursor: page.next === null ? null : encodeCursor(page.next),
    truncated: read.truncated,
    unreadable: read.unreadable,
  });
}

/** One custom object: its row from the cache, its events, and the object read live and made safe to show. */
export async function customObjectDetail(input: Out<typeof CustomDetailInput>, ctx: HandlerContext): Promise<Result<Out<typeof CustomDetail>>> {
  const read = await ctx.customResources.objects(input.group, input.plural);
  if (!read.ok) return fail(refusal(read));
  const { kind } = read;
  if (!kind.namespaced && input.namespace !== undefined) return fail({ code: 'invalid_input', field: 'namespace', message: `${kind.name} have no namespace` });
  if (kind.namespaced && input.namespace === undefined) return fail({ code: 'invalid_input', field: 'namespace', message: `${kind.name} live in a namespace: give it` });
  const namespace = input.namespace ?? null;
  const object = read.objects.find((o) => o.name === input.name && o.namespace === namespace);
  // Only what the cache holds for the caller is read live: a hidden or unknown object is 404 before any GET.
  if (object === undefined) return fail({ code: 'not_found', message: `no ${kind.name} ${namespace === null ? '' : `${namespace}/`}${input.name}` });
  const [row] = customRows(kind, [object]);
  if (row === undefined) return fail({ code: 'internal', message: 'no row for the object' });
  const live = await ctx.objects.getCustom(kind, namespace, input.name);
  return ok({
    kind: kindOutput(kind),
    row: rowOutputAt(row, false, ctx.clock.now()),
    yaml: live.ok ? stringify(objectView('custom', live.object)) : null,
    yaml_error: live.ok ? null : live.reason,
    events: eventsAbout(ctx.cluster, kind.kind, namespace, input.name),
  });
}
