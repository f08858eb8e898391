// Namespace health verdicts (spec §2 "Namespace health entry"). The rules are written
// down in docs/health-and-incidents.md; this is their only implementation.
import type { Incident } from '../../schema/incidents.ts';
import type { HealthScore, NamespaceHealth } from '../../schema/overview.ts';
import type { EventObject, NamespacedName, PodObject, PvcObject, WorkloadObject } from '../cluster/model.ts';

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
    if (failingPods.size > 0) reasons.push(`${failingPods.size} failing pod(s)`);
    const critical = reasons.length > 0;
    if (warnings.length > 0) reasons.push(`${warnings.length} warning incident(s): ${[...new Set(warnings.map((w) => w.reason))].join(', ')}`);
    if (degradedDeployments.length > 0) reasons.push(`deployment(s) below desired replicas: ${degradedDeployments.map((d) => `${d.name} ${d.available}/${d.desired}`).join(', ')}`);
    const shortDs = daemonsets.filter((d) => d.available < d.desired);
    if (shortDs.length > 0) reasons.push(`daemonset(s) not on every node: ${shortDs.map((d) => d.name).join(', ')}`);
    if (unbound > 0) reasons.push(`${unbound} unbound PVC(s)`);
    score = critical ? 'critical' : reasons.length > 0 ? 'degraded' : 'healthy';
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
