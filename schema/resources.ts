// Browsing the cluster's objects by kind (`GET /resources/{kind}`), from the informer cache.
// The kinds, the columns each shows and the limits: domain/resources/browse.ts, docs/resources.md.
import * as v from 'valibot';
import { BROWSABLE_KINDS, MAX_PAGE } from '../domain/resources/browse.ts';
import { Timestamp, NamespaceName, kubeName } from './common.ts';

export const BrowsableKind = v.picklist(BROWSABLE_KINDS, `kind must be one of ${BROWSABLE_KINDS.join(', ')}`);

export const ResourceListInput = v.object({
  kind: BrowsableKind,
  namespace: v.optional(NamespaceName),
  /** Case-insensitive substring of the name (events: also of their object, reason and message). */
  q: v.optional(v.pipe(v.string(), v.maxLength(200, 'q is at most 200 characters'))),
  /** `key=value,key` (equality and existence); only pods and nodes carry labels in the cache. */
  labels: v.optional(v.pipe(v.string(), v.maxLength(1000, 'labels is at most 1000 characters'))),
  status: v.optional(v.picklist(['problem', 'ok'], 'status must be problem or ok')),
  /** `Kind/name`: only rows owned by it (a workload's pods, a Deployment's ReplicaSets, a CronJob's Jobs). */
  owner: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z]+\/[a-z0-9]([-.a-z0-9]*[a-z0-9])?$/, 'owner must be Kind/name'), v.maxLength(300))),
  sort: v.optional(v.picklist(['name', 'age'], 'sort must be name or age'), 'name'),
  limit: v.optional(v.pipe(v.string(), v.regex(/^[0-9]{1,3}$/, `limit must be 1–${MAX_PAGE}`), v.transform(Number), v.minValue(1, `limit must be 1–${MAX_PAGE}`), v.maxValue(MAX_PAGE, `limit must be 1–${MAX_PAGE}`)), '100'),
  /** The previous page's `next_cursor`. */
  cursor: v.optional(v.pipe(v.string(), v.maxLength(2000, 'cursor is not one this agent gave'))),
});

const Condition = v.object({ type: v.string(), status: v.string(), reason: v.nullable(v.string()), message: v.nullable(v.string()), lastTransition: v.nullable(v.string()) });

export const ResourceRow = v.object({
  /** The cluster-model id: `GET /graph/entity/{id}` and `GET /diagnosis/{id}` take it. */
  id: v.string(),
  kind: v.string(),
  namespace: v.nullable(v.string()),
  name: v.string(),
  created_at: v.nullable(Timestamp),
  age: v.string(),
  status: v.string(),
  /** Whether the diagnosis has a problem finding on it now. */
  problem: v.boolean(),
  labels: v.record(v.string(), v.string()),
  columns: v.record(v.string(), v.nullable(v.union([v.string(), v.number()]))),
  conditions: v.array(Condition),
});

export const ResourceList = v.object({
  kind: BrowsableKind,
  items: v.array(ResourceRow),
  /** Rows matching the filters, over every page. */
  total: v.number(),
  /** Pass as `cursor` for the next page; null on the last. */
  next_cursor: v.nullable(v.string()),
});

export const ResourceDetailInput = v.object({
  kind: BrowsableKind,
  name: kubeName('name'),
  /** Required for a namespaced kind, refused for nodes and persistentvolumes. */
  namespace: v.optional(NamespaceName),
});

export const ResourceDetail = v.object({
  /** The row as the list shows it, from the cache. */
  row: ResourceRow,
  /** The object read live and made safe to show (docs/resources.md "Detail"), as YAML; null when it could not be read. */
  yaml: v.nullable(v.string()),
  /** Why it could not be read (the API server's refusal, a timeout); null when it was. */
  yaml_error: v.nullable(v.string()),
  /** Events about it, newest first, at most 50, messages redacted. */
  events: v.array(v.object({ type: v.string(), reason: v.string(), message: v.string(), count: v.number(), last_seen: v.nullable(Timestamp) })),
});

/** A kind a CRD adds (`GET /custom-resources`). */
export const CustomKindOut = v.object({
  /** The CRD's name, `<plural>.<group>`. */
  name: v.string(),
  group: v.string(),
  version: v.string(),
  kind: v.string(),
  plural: v.string(),
  namespaced: v.boolean(),
});

export const CustomKindList = v.object({ items: v.array(CustomKindOut) });

const CustomKindPath = {
  group: kubeName('group'),
  plural: v.pipe(v.string(), v.regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'plural must be a resource name'), v.maxLength(63)),
};

export const CustomListInput = v.object({
  ...CustomKindPath,
  namespace: v.optional(NamespaceName),
  q: ResourceListInput.entries.q,
  labels: ResourceListInput.entries.labels,
  owner: ResourceListInput.entries.owner,
  sort: ResourceListInput.entries.sort,
  limit: ResourceListInput.entries.limit,
  cursor: ResourceListInput.entries.cursor,
});

export const CustomList = v.object({
  kind: CustomKindOut,
  items: v.array(ResourceRow),
  total: v.number(),
  next_cursor: v.nullable(v.string()),
  /** The agent keeps at most 10 000 objects of one kind: true when the cluster has more (the list is then incomplete). */
  truncated: v.boolean(),
  /** Why the agent could not read this kind's objects (its RBAC), or null. */
  unreadable: v.nullable(v.string()),
});

export const CustomDetailInput = v.object({
  ...CustomKindPath,
  name: kubeName('name'),
  /** Required for a namespaced kind, refused for a cluster-scoped one. */
  namespace: v.optional(NamespaceName),
});

export const CustomDetail = v.object({
  kind: CustomKindOut,
  row: ResourceRow,
  yaml: ResourceDetail.entries.yaml,
  yaml_error: ResourceDetail.entries.yaml_error,
  events: ResourceDetail.entries.events,
});
