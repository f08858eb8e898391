// The posture as one caller may see it. The runtime evaluates every workload of the cluster
// once (handlers/security/service.ts); each answer is cut from that to the visible
// namespaces here. A hidden namespace's workloads count nowhere: the cluster-wide numbers of
// a caller who cannot see everything are re-added from the visible namespaces and their
// findings, exactly as evaluate() adds them, so they never include what is hidden.
import type { ClusterView } from '../cluster/model.ts';
import type { InScope } from '../diagnosis/visible.ts';
import type { MisconfigFinding, NamespacePosture, PostureAnswer } from '../../schema/security.ts';
import { SEVERITIES, zeroCounts } from '../../schema/security.ts';
import { polarisGrade, polarisScore, topFailing, type Evaluation, type WorkloadInput } from './posture.ts';

/**
 * Every object judged by its own spec (the slimmer, runtime/kube/slim-pod.ts, keeps
 * `security` only on workload templates and bare pods, so no owner check is needed here): Deployments and DaemonSets, the controllers no other workload
 * owns, bare pods.
 */
export function judgedWorkloads(view: Pick<ClusterView, 'workloads' | 'controllers' | 'pods'>): WorkloadInput[] {
  const out: WorkloadInput[] = [];
  for (const o of [...view.workloads(), ...view.controllers()]) if (o.security) out.push({ kind: o.kind, namespace: o.namespace, name: o.name, spec: o.security });
  for (const p of view.pods()) if (p.security) out.push({ kind: 'Pod', namespace: p.namespace, name: p.name, spec: p.security });
  return out;
}

/** A namespace with no judged workload: nothing checked scores 100, and `workloads_covered: 0` says why. */
function emptyNamespace(namespace: string): NamespacePosture {
  return { namespace, ...sumOf([], []) };
}

function sumOf(namespaces: readonly NamespacePosture[], findings: readonly MisconfigFinding[]) {
  const checks = { passed: 0, warnings: 0, dangers: 0 };
  const by_severity = zeroCounts();
  let workloads_covered = 0;
  for (const ns of namespaces) {
    checks.passed += ns.checks.passed;
    checks.warnings += ns.checks.warnings;
    checks.dangers += ns.checks.dangers;
    for (const s of SEVERITIES) by_severity[s] += ns.by_severity[s];
    workloads_covered += ns.workloads_covered;
  }
  const score = polarisScore(checks);
  return { grade: polarisGrade(score), score, by_severity, workloads_covered, checks, top_failing_checks: topFailing(findings) };
}

/** The findings the caller may see (a `namespace` filter is findingsFor's). */
export function visibleFindings(e: Evaluation, inScope: InScope): MisconfigFinding[] {
  return e.findings.filter((f) => inScope(f.namespace));
}

/**
 * `GET /security/posture`: the whole evaluation when the caller sees every namespace in it,
 * else the visible namespaces added up again. `namespace` (already checked visible) answers
 * that namespace's posture at the top level.
 */
export function postureFor(e: Evaluation, inScope: InScope, namespace: string | null): PostureAnswer {
  if (namespace !== null) {
    const ns = e.posture.namespaces.find((n) => n.namespace === namespace) ?? emptyNamespace(namespace);
    return { ...ns, namespace, namespaces: ns.workloads_covered === 0 ? [] : [ns] };
  }
  const namespaces = e.posture.namespaces.filter((n) => inScope(n.namespace));
  if (namespaces.length === e.posture.namespaces.length) return { namespace: null, ...e.posture };
  return { namespace: null, ...sumOf(namespaces, visibleFindings(e, inScope)), namespaces };
}
