// Namespace health verdicts (spec §2 "Namespace health entry"). The rules are written
// down in docs/health-and-incidents.md; this is their only implementation.
import type { Incident } from '../../schema/incidents.ts';
import type { HealthScore, NamespaceHealth } from '../../schema/overview.ts';
import type { EventObject, NamespacedName, PodObject, PvcObject, WorkloadObject } from '../cluster/model.ts';
import type { ProblemSeverity } from '../../schema/common.ts';
import type { Diagnosis } from '../../schema/diagnosis.ts';

export const HEALTH_ORDER: readonly HealthScore[] = ['critical', 'degraded', 'unknown', 'healthy'];

export interface NamespaceInputs {
  namespace: string;
  /** False while the informers behind the counts have not synced: the verdict is unknown. */
  complete: boolean;
  pods: readonly PodObject[];
  incidents: readonly Incident[];
  workloads: readonly WorkloadObject[];
  services: readonly NamespacedName[];
  pvcs: readonly PvcObject[];
  events: readonly EventObject[];
  /** The diagnosis' root causes touching this namespace, as `rootCausesByNamespace` words them (critical first). */
  rootCauses?: readonly RootCauseLine[];
  /** Which of VERDICT_READS RBAC refuses here: served empty, so the verdict is never "healthy", and the reasons say why. */
  unreadable?: readonly string[];
}

/** The informer resources (`syncStatus()` names) the verdict is built from. */
export const VERDICT_READS: readonly string[] = ['pods', 'events', 'deployments', 'daemonsets', 'services', 'persistentvolumeclaims'];

export interface RootCauseLine {
  severity: ProblemSeverity;
  text: string;
}

/** At most this many root causes are named in a namespace's reasons; the rest are counted. */
export const MAX_ROOT_CAUSE_REASONS = 5;

/**
 * Per namespace, the root causes whose object or some effect lies in it, in the diagnosis'
 * order, each as "cause → the farthest effect in this namespace" ("quota pods is full (2/2) →
 * 2 of 4 replicas of api unavailable"); effects whose cause the caller may not see are one
 * line. `cut` is the caller's diagnosis (domain/diagnosis/visible.ts).
 */
export function rootCausesByNamespace(cut: Diagnosis): Map<string, RootCauseLine[]> {
  const lines = new Map<string, RootCauseLine[]>();
  const add = (namespace: string, line: RootCauseLine) => {
    const list = lines.get(namespace);
    if (list) list.push(line);
    else lines.set(namespace, [line]);
  };
  for (const root of cut.root_causes) {
    const severity = root.finding.severity === 'critical' ? 'critical' : 'warning';
    const cause = root.also.length > 0 ? `${root.finding.summary} (and ${root.also.length} more like it)` : root.finding.summary;
    const namespaces = new Set([root.finding.namespace, ...root.effects.map((e) => e.namespace)].filter((ns): ns is string => ns !== null));
    for (const namespace of namespaces) {
      const farthest = root.effects.filter((e) => e.namespace === namespace).at(-1);
      add(namespace, { severity, text: farthest === undefined ? cause : `${cause} → ${farthest.summary}` });
    }
  }
  const hidden = new Map<string, number>();
  for (const { effect } of cut.hidden_causes) if (effect.namespace !== null) hidden.set(effect.namespace, (hidden.get(effect.namespace) ?? 0) + 1);
  for (const [namespace, count] of hidden) add(namespace, { severity: 'warning', text: `${count} problem(s) caused outside what Capstan may show` });
  for (const list of lines.values()) list.sort((a, b) => Number(b.severity === 'critical') - Number(a.severity === 'critical'));
  return lines;
}

export function namespaceHealth(input: NamespaceInputs): NamespaceHealth {
  const failingPods = new Set(input.incidents.filter((i) => i.severity === 'critical').map((i) => i.pod));
  const running = input.pods.filter((p) => p.phase === 'Running' && !failingPods.has(p.name)).length;
  const pending = input.pods.filter((p) => p.phase === 'Pending' && !failingPods.has(p.name)).length;
  const deployments = input.workloads.filter((w) => w.kind === 'Deployment');
  const daemonsets = input.workloads.filter((w) => w.kind === 'DaemonSet');
  const degradedDeployments = deployments.filter((d) => d.available < d.desired);
  const unbound = input.pvcs.filter((p) => p.phase !== 'Bound').length;
  const warnings = input.incidents.filter((i) => i.severity === 'warning');

  const reasons: string[] = [];
  let score: HealthScore;
  if (!input.complete) {
    score = 'unknown';
    reasons.push('the cluster cache has not finished syncing');
  } else {
    // Critical: something is broken and will not heal by waiting (crash loops, OOM kills,
    // image or config failures, failed pods). Everything else wrong is degraded.
    const symptoms: string[] = [];
    if (failingPods.size > 0) symptoms.push(`${failingPods.size} failing pod(s)`);
    const critical = symptoms.length > 0;
    if (warnings.length > 0) symptoms.push(`${warnings.length} warning incident(s): ${[...new Set(warnings.map((w) => w.reason))].join(', ')}`);
    if (degradedDeployments.length > 0) symptoms.push(`deployment(s) below desired replicas: ${degradedDeployments.map((d) => `${d.name} ${d.available}/${d.desired}`).join(', ')}`);
    const shortDs = daemonsets.filter((d) => d.available < d.desired);
    if (shortDs.length > 0) symptoms.push(`daemonset(s) not on every node: ${shortDs.map((d) => d.name).join(', ')}`);
    if (unbound > 0) symptoms.push(`${unbound} unbound PVC(s)`);
    score = critical ? 'critical' : symptoms.length > 0 ? 'degraded' : 'healthy';
    // The score rules above are the verdict; the reasons name the root causes behind it (the
    // symptoms are their effects). A healthy namespace lists none; where the diagnosis has no
    // root cause here, the symptom counts stand; and a critical verdict no critical root
    // cause explains keeps its failing-pod count, so a verdict is never left unexplained.
    const roots = score === 'healthy' ? [] : (input.rootCauses ?? []);
    if (roots.length === 0) reasons.push(...symptoms);
    else {
      reasons.push(...roots.slice(0, MAX_ROOT_CAUSE_REASONS).map((r) => r.text));
      if (roots.length > MAX_ROOT_CAUSE_REASONS) reasons.push(`and ${roots.length - MAX_ROOT_CAUSE_REASONS} more root cause(s)`);
      if (critical && !roots.some((r) => r.severity === 'critical')) reasons.push(`${failingPods.size} failing pod(s)`);
    }
    // What RBAC refuses is served empty: what was seen broken stays broken, but nothing
    // unseen may be called healthy.
    const unreadable = input.unreadable ?? [];
    if (unreadable.length > 0) {
      if (score === 'healthy') score = 'unknown';
      reasons.push(`not fully judged: RBAC forbids Capstan to read ${unreadable.join(', ')} in this namespace`);
    }
  }

  let lastEvent: string | null = null;
  for (const e of input.events) if (e.lastSeen !== null && (lastEvent === null || e.lastSeen > lastEvent)) lastEvent = e.lastSeen;
  return {
    namespace: input.namespace,
    health_score: score,
    reasons,
    pods_running: running,
    pods_failing: failingPods.size,
    pods_pending: pending,
    pods_total: input.pods.length,
    pods_capped: false,
    active_alerts: 0,
    deployments_total: deployments.length,
    deployments_degraded: degradedDeployments.length,
    services_total: input.services.length,
    daemonsets_total: daemonsets.length,
    pvcs_unbound: unbound,
    last_event_time: lastEvent === null ? null : new Date(lastEvent).toISOString(),
    summary: { pods: { running, total: input.pods.length }, deployments: deployments.length, services: input.services.length, daemonsets: daemonsets.length },
  };
}

export function compareHealth(a: NamespaceHealth, b: NamespaceHealth): number {
  return HEALTH_ORDER.indexOf(a.health_score) - HEALTH_ORDER.indexOf(b.health_score) || a.namespace.localeCompare(b.namespace);
}
