// What a built-in check is, and the small helpers the check families share.
//
// A check judges one pod spec and answers one result per subject it looks at: the pod
// (for pod-level fields) or a container. Which subjects a check looks at is fixed by the
// pod's shape (never by what happens to be set), so two pods of the same shape always
// count the same number of results and the posture formula compares like with like.
import type { CheckFamily, ContainerSecuritySpec, PodSecuritySpec, SecuritySeverity } from '../../../schema/security.ts';

export interface CheckResult {
  /** The container judged; null for the pod as a whole. */
  container: string | null;
  passed: boolean;
  /** What is wrong (names the container or the pod); empty for a pass. */
  message: string;
}

export interface WorkloadRef {
  kind: string;
  namespace: string;
  name: string;
}

export interface Check {
  /** Stable: findings, exports and the docs key on it. */
  id: string;
  family: CheckFamily;
  severity: SecuritySeverity;
  title: string;
  /** What the check requires, as docs/security-posture.md states it. */
  rule: string;
  remediation: string;
  run(spec: PodSecuritySpec, workload: WorkloadRef): CheckResult[];
}

export const pass = (container: string | null): CheckResult => ({ container, passed: true, message: '' });
export const fail = (container: string | null, message: string): CheckResult => ({ container, passed: false, message });

/** How a message names a container: its list matters (an init container is fixed elsewhere in the manifest). */
export function label(c: ContainerSecuritySpec): string {
  const kind = c.kind === 'init' ? 'init container' : c.kind === 'ephemeral' ? 'ephemeral container' : 'container';
  return `${kind} "${c.name}"`;
}

/** One result per container, from a function that answers a failure message or null. */
export function perContainer(containers: readonly ContainerSecuritySpec[], judge: (c: ContainerSecuritySpec) => string | null): CheckResult[] {
  return containers.map((c) => {
    const problem = judge(c);
    return problem === null ? pass(c.name) : fail(c.name, `${label(c)} ${problem}`);
  });
}

/** One result for the pod as a whole. */
export function perPod(problem: string | null): CheckResult[] {
  return [problem === null ? pass(null) : fail(null, `pod ${problem}`)];
}

/** Pod-level result plus one per container, for fields the pod sets and containers may override. */
export function podAndContainers(spec: PodSecuritySpec, podProblem: string | null, judge: (c: ContainerSecuritySpec) => string | null): CheckResult[] {
  return [...perPod(podProblem), ...perContainer(spec.containers, judge)];
}

export const quote = (items: readonly string[]) => items.map((s) => `"${s}"`).join(', ');

/** Windows pods (spec.os.name=windows) are exempt from the restricted capability, seccomp and escalation controls (PSS 1.25+). */
export const isWindows = (spec: PodSecuritySpec) => spec.os === 'windows';
