import { stringify } from 'yaml';
import { rowOutput, sortedRows } from './list.ts';
import { objectView } from '../../domain/resources/object-view.ts';
import { redactText } from '../../domain/redaction/redact.ts';
import type { ClusterView } from '../../domain/cluster/model.ts';
import type { Out } from '../../schema/common.ts';
import type { ResourceDetail, ResourceDetailInput } from '../../schema/resources.ts';
import type { HandlerContext } from '../context.ts';
import { fail, ok, type Result } from '../result.ts';

const CLUSTER_SCOPED: ReadonlySet<string> = new Set(['nodes', 'persistentvolumes']);
export const DETAIL_EVENTS = 50;

/** One object: its row from the cache, its events, and the object itself read live and made safe to show. */
export async function resourceDetail(input: Out<typeof ResourceDetailInput>, ctx: HandlerContext): Promise<Result<Out<typeof ResourceDetail>>> {
  if (input.kind === 'events') return fail({ code: 'invalid_input', field: 'kind', message: 'an event has no detail of its own: list events with q or namespace' });
  const clusterScoped = CLUSTER_SCOPED.has(input.kind);
  if (clusterScoped && input.namespace !== undefined) return fail({ code: 'invalid_input', field: 'namespace', message: `${input.kind} have no namespace` });
  if (!clusterScoped && input.namespace === undefined) return fail({ code: 'invalid_input', field: 'namespace', message: `${input.kind} live in a namespace: give it` });
  const namespace = input.namespace ?? null;
  const row = sortedRows(input.kind, 'name', ctx).entries.find((e) => e.row.name === input.name && e.row.namespace === namespace)?.row;
  // Only what the cache holds for the caller is read live: a hidden or unknown object is 404 before any GET.
  if (row === undefined) return fail({ code: 'not_found', message: `no ${input.kind} ${namespace === null ? '' : `${namespace}/`}${input.name}` });
  const read = await ctx.objects.get(input.kind, namespace, input.name);
  return ok({
    row: rowOutput(row, ctx, ctx.clock.now()),
    yaml: read.ok ? stringify(objectView(input.kind, read.object)) : null,
    yaml_error: read.ok ? null : read.reason,
    events: eventsAbout(ctx.cluster, row.kind, namespace, row.name),
  });
}

/** The newest events about one object (at most DETAIL_EVENTS), messages redacted. */
export function eventsAbout(cluster: ClusterView, kind: string, namespace: string | null, name: string): Out<typeof ResourceDetail>['events'] {
  return cluster
    .events()
    .filter((e) => e.involvedKind === kind && e.involvedName === name && e.involvedNamespace === (namespace ?? ''))
    .sort((a, b) => (b.lastSeen ?? '').localeCompare(a.lastSeen ?? ''))
    .slice(0, DETAIL_EVENTS)
    .map((e) => ({ type: e.type, reason: e.reason, message: redactText(e.message), count: e.count, last_seen: e.lastSeen === null ? null : new Date(e.lastSeen).toISOString() }));
}
