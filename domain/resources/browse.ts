// Browsing the cluster's objects by kind, from what the informers hold (never a LIST per
// request): each kind's rows as a table shows them, and the filters, sort and keyset pages of
// `GET /resources/{kind}`. Pure: the view passed in is already cut to what the caller may see.
import type { ClusterView, Condition } from '../cluster/model.ts';
import { nodeId, type NodeKind } from '../cluster/node-id.ts';
import { redactText } from '../redaction/redact.ts';
import type { NodeLoad } from './node-load.ts';

/** The kinds `/resources/{kind}` takes (plural, lower case, as kubectl names them). */
export const BROWSABLE_KINDS = [
  'deployments', 'statefulsets', 'daemonsets', 'replicasets', 'jobs', 'cronjobs', 'pods', 'services', 'ingresses',
  'persistentvolumeclaims', 'persistentvolumes', 'nodes', 'horizontalpodautoscalers', 'poddisruptionbudgets', 'events', 'configmaps', 'secrets',
] as const;
export type BrowsableKind = (typeof BROWSABLE_KINDS)[number];

/** The listings of the cluster view each kind's rows are made from (nodes also read their loads). */
export const ROW_SOURCES: Readonly<Record<BrowsableKind, readonly (keyof ClusterView)[]>> = {
  deployments: ['workloads'], daemonsets: ['workloads'],
  statefulsets: ['controllers'], replicasets: ['controllers'], jobs: ['controllers'], cronjobs: ['controllers'],
  pods: ['pods'], services: ['services'], ingresses: ['ingresses'], persistentvolumeclaims: ['pvcs'], persistentvolumes: ['pvs'],
  nodes: ['nodes'], horizontalpodautoscalers: ['hpas'], poddisruptionbudgets: ['pdbs'], events: ['events'], configmaps: ['configMaps'], secrets: ['secrets'],
};

/** Rows one page may hold; the default is 100. */
export const MAX_PAGE = 500;

export interface ResourceRow {
  /** The cluster-model id (links, diagnosis, graph); events have none of their own: their id names the event. */
  id: string;
  kind: string;
  namespace: string | null;
  name: string;
  created_at: string | null;
  /** One word or short phrase: Running, 2/3 ready, Bound, Ready... */
  status: string;
  /** Labels where the cache holds them (pods, nodes); empty elsewhere. */
  labels: Readonly<Record<string, string>>;
  /** The kind's own columns, in display order. */
  columns: Readonly<Record<string, string | number | null>>;
  conditions: readonly Condition[];
}

const condition = (conditions: readonly Condition[], type: string) => conditions.find((c) => c.type === type);

/**
 * Every row of `kind` in `view`, unordered; nodes show their load from `loads` (CapacityService).
 * Nothing here depends on the time, so rows can be kept while their sources are the same (an
 * age is the page's to compute).
 */
export function rowsOf(kind: BrowsableKind, view: ClusterView, loads: ReadonlyMap<string, NodeLoad> = new Map()): ResourceRow[] {
  const row = (k: NodeKind, namespace: string | null, name: string, createdAt: string | null, status: string, columns: ResourceRow['columns'], extra: Partial<Pick<ResourceRow, 'labels' | 'conditions'>> = {}): ResourceRow => ({
    id: nodeId(k, namespace, name),
    kind: k,
    namespace,
    name,
    created_at: createdAt === null ? null : new Date(createdAt).toISOString(),
    status,
    labels: extra.labels ?? {},
    columns,
    conditions: extra.conditions ?? [],
  });
  switch (kind) {
    case 'deployments':
    case 'daemonsets': {
      const wanted = kind === 'deployments' ? 'Deployment' : 'DaemonSet';
      return view.workloads().filter((w) => w.kind === wanted).map((w) =>
        row(w.kind, w.namespace, w.name, w.createdAt, w.paused ? 'Paused' : w.available >= w.desired ? 'Available' : `${w.available}/${w.desired} available`, { ready: `${w.ready}/${w.desired}`, desired: w.desired, up_to_date: w.updated, available: w.available }, { conditions: w.conditions }),
      );
    }
    case 'statefulsets':
    case 'replicasets':
    case 'jobs':
    case 'cronjobs': {
      const wanted = { statefulsets: 'StatefulSet', replicasets: 'ReplicaSet', jobs: 'Job', cronjobs: 'CronJob' }[kind];
      return view.controllers().filter((c) => c.kind === wanted).map((c) => {
        const owner = c.owner ? `${c.owner.kind}/${c.owner.name}` : null;
        if (c.job) {
          const failed = condition(c.conditions, 'Failed')?.status === 'True';
          const status = c.job.suspended ? 'Suspended' : failed ? 'Failed' : c.job.completedAt !== null ? 'Complete' : c.job.active > 0 ? 'Running' : 'Pending';
          return row(c.kind, c.namespace, c.name, c.createdAt, status, { completions: `${c.job.succeeded}/${c.job.completions ?? 1}`, failed: c.job.failed, owner }, { conditions: c.conditions });
        }
        if (c.cronJob) {
          return row(c.kind, c.namespace, c.name, c.createdAt, c.cronJob.suspended ? 'Suspended' : c.cronJob.active.length > 0 ? 'Active' : 'Scheduled', { schedule: c.cronJob.schedule, last_schedule: c.cronJob.lastScheduleTime, active: c.cronJob.active.length });
        }
        return row(c.kind, c.namespace, c.name, c.createdAt, c.ready >= c.desired ? 'Ready' : `${c.ready}/${c.desired} ready`, { ready: `${c.ready}/${c.desired}`, owner, revision: c.revision }, { conditions: c.conditions });
      });
    }
    case 'pods':
      return view.pods().map((p) => {
        const waiting = [...p.initStatuses, ...p.statuses].find((s) => s.waiting !== null)?.waiting?.reason;
        const status = p.deletion !== null ? 'Terminating' : (p.statusReason?.reason ?? waiting ?? p.phase);
        return row('Pod', p.namespace, p.name, p.createdAt, status, {
          ready: `${p.statuses.filter((s) => s.ready).length}/${p.containers.length}`,
          restarts: p.statuses.reduce((n, s) => n + s.restartCount, 0),
          node: p.nodeName,
          owner: `${p.workload.kind}/${p.workload.name}`,
        }, { labels: p.labels });
      });
    case 'services':
      return view.services().map((s) => row('Service', s.namespace, s.name, s.createdAt, s.type, { type: s.type, ports: s.ports.map((p) => `${p.port}${p.targetPort === null ? '' : `→${p.targetPort}`}`).join(', '), selector: s.selector === null ? null : Object.entries(s.selector).map(([k, v]) => `${k}=${v}`).join(',') }));
    case 'ingresses':
      return view.ingresses().map((i) => row('Ingress', i.namespace, i.name, null, i.hosts.length > 0 ? i.hosts.join(', ') : '*', { class: i.ingressClassName, hosts: i.hosts.join(', '), backends: i.backends.map((b) => `${b.service}:${b.port ?? '?'}`).join(', ') }));
    case 'persistentvolumeclaims':
      return view.pvcs().map((c) => row('PersistentVolumeClaim', c.namespace, c.name, c.createdAt, c.phase, { volume: c.volumeName, storage_class: c.storageClass, request_bytes: c.requestBytes, access_modes: c.accessModes.join(',') }));
    case 'persistentvolumes':
      return view.pvs().map((v) => row('PersistentVolume', null, v.name, null, v.phase, { claim: v.claim ? `${v.claim.namespace}/${v.claim.name}` : null, storage_class: v.storageClass, capacity_bytes: v.capacityBytes, reclaim_policy: v.reclaimPolicy }));
    case 'nodes':
      return view.nodes().map((n) => {
        const load = loads.get(n.name);
        return row('Node', null, n.name, n.createdAt, `${n.ready ? 'Ready' : 'NotReady'}${n.unschedulable ? ',SchedulingDisabled' : ''}`, {
          pods: load === undefined ? null : `${load.pods}/${n.allocatable.pods ?? '?'}`,
          cpu_requested_m: load?.requested.cpuM ?? null,
          cpu_used_m: load?.used?.cpuM ?? null,
          cpu_allocatable_m: n.allocatable.cpuM,
          memory_requested_bytes: load?.requested.memBytes ?? null,
          memory_used_bytes: load?.used?.memBytes ?? null,
          memory_allocatable_bytes: n.allocatable.memBytes,
          taints: n.taints.map((t) => `${t.key}${t.value === null ? '' : `=${t.value}`}:${t.effect}`).join(', '),
          zone: n.labels['topology.kubernetes.io/zone'] ?? null,
        }, { labels: n.labels, conditions: n.conditions });
      });
    case 'horizontalpodautoscalers':
      return view.hpas().map((h) => row('HorizontalPodAutoscaler', h.namespace, h.name, h.createdAt, `${h.currentReplicas}/${h.desiredReplicas} replicas`, { target: `${h.target.kind}/${h.target.name}`, min: h.minReplicas, max: h.maxReplicas, current: h.currentReplicas }, { conditions: h.conditions }));
    case 'poddisruptionbudgets':
      return view.pdbs().map((b) => row('PodDisruptionBudget', b.namespace, b.name, b.createdAt, `${b.disruptionsAllowed} disruptions allowed`, { healthy: `${b.currentHealthy}/${b.desiredHealthy}`, expected_pods: b.expectedPods, allowed: b.disruptionsAllowed }));
    case 'events':
      return view.events().map((e, i) => ({
        id: `event:${e.namespace}/${e.involvedKind}/${e.involvedName}/${e.reason}/${i}`,
        kind: 'Event',
        namespace: e.namespace,
        name: `${e.involvedKind.toLowerCase()}/${e.involvedName}: ${e.reason}`,
        created_at: e.lastSeen === null ? null : new Date(e.lastSeen).toISOString(),
        status: e.type,
        labels: {},
        columns: { object: `${e.involvedKind}/${e.involvedName}`, reason: e.reason, message: redactText(e.message), count: e.count, source: e.source },
        conditions: [],
      }));
    case 'configmaps':
      return view.configMaps().map((c) => row('ConfigMap', c.namespace, c.name, null, 'Present', {}));
    case 'secrets':
      return view.secrets().map((s) => row('Secret', s.namespace, s.name, null, 'Present', {}));
  }
}

/** `app=web,tier` (equality and existence, as kubectl's `-l` takes them): what each row's labels must hold. */
export function parseLabelSelector(text: string): { ok: true; terms: { key: string; value: string | null }[] } | { ok: false; message: string } {
  const terms: { key: string; value: string | null }[] = [];
  for (const part of text.split(',').map((p) => p.trim()).filter((p) => p !== '')) {
    const [key, value, extra] = part.split('=');
    if (extra !== undefined || key === undefined || !/^([a-z0-9A-Z.-]+\/)?[a-zA-Z0-9]([-a-zA-Z0-9_.]*[a-zA-Z0-9])?$/.test(key)) return { ok: false, message: `"${part}" is not key or key=value` };
    terms.push({ key, value: value ?? null });
  }
  return { ok: true, terms };
}

export interface BrowseQuery {
  namespace: string | null;
  /** Case-insensitive substring of the name (and, for events, of the object, reason and message). */
  text: string | null;
  labels: { key: string; value: string | null }[];
  /** `problem`: objects the diagnosis has a problem finding on; `ok`: the others. */
  status: 'problem' | 'ok' | null;
  /** `Deployment/checkout`: rows whose `owner` column is that (a workload's pods, a Deployment's ReplicaSets). */
  owner: string | null;
  sort: 'name' | 'age';
  limit: number;
  /** The last row of the previous page (its sort key), from `cursorOf`. */
  after: readonly string[] | null;
}

/** The sort key a cursor carries: name order is namespace then name; age order newest first, then name. */
function sortKey(row: ResourceRow, sort: BrowseQuery['sort']): string[] {
  return sort === 'name' ? [row.namespace ?? '', row.name, row.id] : [row.created_at ?? '', row.namespace ?? '', row.name, row.id];
}

const compareKeys = (a: readonly string[], b: readonly string[]): number => {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? '';
    const y = b[i] ?? '';
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
};

/** Age order: the date part descending (newest first), the rest ascending. */
function ageCompare(a: readonly string[], b: readonly string[]): number {
  const [dateA = '', ...restA] = a;
  const [dateB = '', ...restB] = b;
  if (dateA !== dateB) return dateA < dateB ? 1 : -1;
  return compareKeys(restA, restB);
}

/** Rows in one order, each with its sort key: made once per change of the rows, read by every page. */
export interface SortedRows {
  sort: BrowseQuery['sort'];
  entries: readonly { row: ResourceRow; key: readonly string[] }[];
}

export function sortRows(rows: readonly ResourceRow[], sort: BrowseQuery['sort']): SortedRows {
  const compare = sort === 'name' ? compareKeys : ageCompare;
  return { sort, entries: rows.map((row) => ({ row, key: sortKey(row, sort) })).sort((a, b) => compare(a.key, b.key)) };
}

/** One page of rows already in `q.sort` order: filtered, after the cursor; `next` is the cursor of the page after, or null at the end. */
export function pageOf(sorted: SortedRows, q: BrowseQuery, hasProblem: (id: string) => boolean): { items: ResourceRow[]; total: number; next: string[] | null } {
  const text = q.text?.toLowerCase() ?? null;
  const compare = sorted.sort === 'name' ? compareKeys : ageCompare;
  const after = q.after;
  const items: ResourceRow[] = [];
  let total = 0;
  let more = false;
  for (const { row: r, key } of sorted.entries) {
    if (q.namespace !== null && r.namespace !== q.namespace) continue;
    if (text !== null) {
      const haystack = r.kind === 'Event' ? `${r.name} ${String(r.columns.message)}` : r.name;
      if (!haystack.toLowerCase().includes(text)) continue;
    }
    if (!q.labels.every((t) => (t.value === null ? t.key in r.labels : r.labels[t.key] === t.value))) continue;
    if (q.owner !== null && r.columns.owner !== q.owner) continue;
    if (q.status !== null && hasProblem(r.id) !== (q.status === 'problem')) continue;
    total++;
    if (after !== null && compare(key, after) <= 0) continue;
    if (items.length < q.limit) items.push(r);
    else more = true;
  }
  const last = items.at(-1);
  return { items, total, next: more && last ? sortKey(last, sorted.sort) : null };
}
