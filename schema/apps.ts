// Applications (spec §2 "Application metrics", §4 `/apps*`): a saved label selector across one
// or more namespaces. The spec gives only `id`, `name` and `namespaces` of the record; the
// selector is Kubernetes' own LabelSelector (matchLabels and matchExpressions), in snake case.
import * as v from 'valibot';
import { HISTORY_SAMPLE_INTERVAL_SECS, HistoryWindow } from './metrics.ts';
import { Timestamp } from './common.ts';

/** Kubernetes label key: optional DNS-subdomain prefix, then a name of at most 63 characters. */
const LABEL_KEY = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;

const LabelKey = v.pipe(v.string(), v.maxLength(316, 'label key is too long'), v.regex(LABEL_KEY, 'must be a Kubernetes label key'));
const LabelValue = v.pipe(v.string(), v.regex(LABEL_VALUE, 'must be a Kubernetes label value (at most 63 characters)'));

export const SelectorOperator = v.picklist(['In', 'NotIn', 'Exists', 'DoesNotExist'], 'operator must be In, NotIn, Exists or DoesNotExist');

export const SelectorRequirement = v.pipe(
  v.object({
    key: LabelKey,
    operator: SelectorOperator,
    values: v.optional(v.pipe(v.array(LabelValue), v.maxLength(64, 'at most 64 values'))),
  }),
  v.check((r) => (r.operator === 'In' || r.operator === 'NotIn' ? (r.values?.length ?? 0) > 0 : (r.values?.length ?? 0) === 0), 'In and NotIn need values; Exists and DoesNotExist take none'),
);

export const LabelSelector = v.pipe(
  v.object({
    match_labels: v.optional(v.record(LabelKey, LabelValue), {}),
    match_expressions: v.optional(v.pipe(v.array(SelectorRequirement), v.maxLength(32, 'at most 32 expressions')), []),
  }),
  // An empty selector would make "an application" of every pod in its namespaces.
  v.check((s) => Object.keys(s.match_labels).length + s.match_expressions.length > 0, 'selector needs at least one label requirement'),
);
export type LabelSelector = v.InferOutput<typeof LabelSelector>;

const NamespaceName = v.pipe(v.string(), v.regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be a namespace name'), v.maxLength(63));

export const AppDefinition = v.object({
  name: v.pipe(v.string(), v.trim(), v.minLength(1, 'name is required'), v.maxLength(100, 'name is at most 100 characters')),
  namespaces: v.pipe(
    v.array(NamespaceName),
    v.minLength(1, 'at least one namespace'),
    v.maxLength(50, 'at most 50 namespaces'),
    v.check((list) => new Set(list).size === list.length, 'namespaces must not repeat'),
  ),
  selector: LabelSelector,
});
export type AppDefinition = v.InferOutput<typeof AppDefinition>;

const AppId = v.pipe(v.string(), v.regex(/^app_[a-z0-9]{12}$/, 'id must be an application id (app_ and 12 characters)'));
export const AppIdInput = v.object({ id: AppId });
export const UpdateAppInput = v.object({ id: AppId, ...AppDefinition.entries });
export const AppHistoryInput = v.object({ id: AppId, window: v.optional(HistoryWindow, '1h') });

export const App = v.object({
  id: v.string(),
  name: v.string(),
  namespaces: v.array(v.string()),
  selector: v.object({
    match_labels: v.record(v.string(), v.string()),
    match_expressions: v.array(v.object({ key: v.string(), operator: SelectorOperator, values: v.optional(v.array(v.string())) })),
  }),
  created_by: v.string(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type App = v.InferOutput<typeof App>;

export const AppList = v.object({ apps: v.array(App), total: v.number() });
export const AppDeleted = v.object({ deleted: v.literal(true), id: v.string() });

export const AppPreview = v.object({
  /** Matching pods, first 200 by namespace and name; `total` counts them all. */
  pods: v.array(v.object({ namespace: v.string(), pod: v.string(), workload: v.string(), phase: v.string() })),
  total: v.number(),
  truncated: v.boolean(),
});

export const APP_FLAGS = ['no_requests', 'no_cpu_request', 'no_memory_request', 'near_memory_limit', 'cpu_above_request', 'memory_above_request'] as const;
export const AppFlag = v.picklist(APP_FLAGS);
export type AppFlag = v.InferOutput<typeof AppFlag>;

export const AppMember = v.object({
  namespace: v.string(),
  pod: v.string(),
  /** `Kind/name` of the owning workload (a bare pod is its own). */
  workload: v.string(),
  cpu_millicores_used: v.nullable(v.number()),
  mem_bytes_used: v.nullable(v.number()),
  cpu_millicores_request: v.nullable(v.number()),
  cpu_millicores_limit: v.nullable(v.number()),
  mem_bytes_request: v.nullable(v.number()),
  mem_bytes_limit: v.nullable(v.number()),
  flags: v.array(AppFlag),
});

const NetworkSource = v.picklist(['kubelet', 'prometheus']);

export const AppMetrics = v.object({
  id: v.string(),
  name: v.string(),
  namespaces: v.array(v.string()),
  metrics_available: v.boolean(),
  reason: v.nullable(v.string()),
  totals: v.object({
    cpu_millicores_used: v.number(),
    cpu_millicores_request: v.number(),
    cpu_millicores_limit: v.number(),
    mem_bytes_used: v.number(),
    mem_bytes_request: v.number(),
    mem_bytes_limit: v.number(),
    pods_measured: v.number(),
    pods_total: v.number(),
  }),
  members: v.array(AppMember),
  flags: v.array(AppFlag),
  network: v.object({
    available: v.boolean(),
    source: NetworkSource,
    reason: v.optional(v.string()),
    workloads: v.array(v.object({ namespace: v.string(), workload: v.string(), rx_bytes_per_sec: v.nullable(v.number()), tx_bytes_per_sec: v.nullable(v.number()) })),
  }),
  generated_at: Timestamp,
});

export const AppNetworkHistory = v.object({
  available: v.boolean(),
  reason: v.optional(v.string()),
  source: NetworkSource,
  window: HistoryWindow,
  bucket_secs: v.number(),
  sample_interval_secs: v.optional(v.literal(HISTORY_SAMPLE_INTERVAL_SECS)),
  workloads: v.array(
    v.object({
      namespace: v.string(),
      workload: v.string(),
      series: v.array(v.object({ ts: v.number(), rx_bps: v.nullable(v.number()), tx_bps: v.nullable(v.number()) })),
    }),
  ),
});
