// Workload hygiene: what keeps a workload predictable and its secrets out of manifests,
// beyond the Pod Security Standards. Modelled on Polaris' reliability, efficiency and
// security checks (github.com/FairwindsOps/polaris, pkg/config/checks/*.yaml): same targets
// and exclusions (no probe checks for Jobs and CronJobs, none for init containers).
// Ephemeral (debug) containers are not judged here: the API lets them set no resources
// and no probes, and they are not part of what a workload deploys.
import type { ContainerSecuritySpec, PodSecuritySpec } from '../../../schema/security.ts';
import { parseImageRef } from '../image-ref.ts';
import { perContainer, perPod, quote, type Check, type CheckResult } from './types.ts';

/** Kinds whose pods run to completion: a liveness or readiness probe has nothing to guard there. */
const RUN_TO_COMPLETION: ReadonlySet<string> = new Set(['Job', 'CronJob']);

const deployed = (spec: PodSecuritySpec) => spec.containers.filter((c) => c.kind !== 'ephemeral');
const mainContainers = (spec: PodSecuritySpec) => spec.containers.filter((c) => c.kind === 'container');

function eachDeployed(spec: PodSecuritySpec, judge: (c: ContainerSecuritySpec) => string | null): CheckResult[] {
  return perContainer(deployed(spec), judge);
}

/** Probe checks: long-running containers of long-running workloads only. */
function probeCheck(kind: string, spec: PodSecuritySpec, has: (c: ContainerSecuritySpec) => boolean, name: string): CheckResult[] {
  if (RUN_TO_COMPLETION.has(kind)) return [];
  return perContainer(mainContainers(spec), (c) => (has(c) ? null : `has no ${name} probe`));
}

export const HYGIENE_CHECKS: readonly Check[] = [
  {
    id: 'hygiene-cpu-request-missing',
    family: 'hygiene',
    severity: 'LOW',
    title: 'CPU request missing',
    rule: 'Every container and init container declares resources.requests.cpu (a CPU limit counts: Kubernetes copies a limit into a missing request).',
    remediation: 'Set resources.requests.cpu to what the container needs at steady state, so the scheduler places it on a node that has it.',
    run: (spec) => eachDeployed(spec, (c) => (c.resources.cpuRequest || c.resources.cpuLimit ? null : 'has no CPU request')),
  },
  {
    id: 'hygiene-memory-request-missing',
    family: 'hygiene',
    severity: 'LOW',
    title: 'Memory request missing',
    rule: 'Every container and init container declares resources.requests.memory (a memory limit counts: Kubernetes copies a limit into a missing request).',
    remediation: 'Set resources.requests.memory to the container\'s working set, so the scheduler reserves it and eviction ranks the pod fairly.',
    run: (spec) => eachDeployed(spec, (c) => (c.resources.memoryRequest || c.resources.memoryLimit ? null : 'has no memory request')),
  },
  {
    id: 'hygiene-memory-limit-missing',
    family: 'hygiene',
    severity: 'MEDIUM',
    title: 'Memory limit missing',
    rule: 'Every container and init container declares resources.limits.memory.',
    remediation: 'Set resources.limits.memory, so a leak ends in this container\'s OOM kill instead of memory pressure on the whole node.',
    run: (spec) => eachDeployed(spec, (c) => (c.resources.memoryLimit ? null : 'has no memory limit')),
  },
  {
    id: 'hygiene-liveness-probe-missing',
    family: 'hygiene',
    severity: 'LOW',
    title: 'Liveness probe missing',
    rule: 'Every container (not init containers) declares a livenessProbe; Jobs and CronJobs are not judged.',
    remediation: 'Add a livenessProbe that fails only when the process is stuck beyond recovery, so the kubelet restarts it.',
    run: (spec, workload) => probeCheck(workload.kind, spec, (c) => c.probes.liveness, 'liveness'),
  },
  {
    id: 'hygiene-readiness-probe-missing',
    family: 'hygiene',
    severity: 'LOW',
    title: 'Readiness probe missing',
    rule: 'Every container (not init containers) declares a readinessProbe; Jobs and CronJobs are not judged.',
    remediation: 'Add a readinessProbe, so Services send traffic only once the container can serve it and rollouts wait for it.',
    run: (spec, workload) => probeCheck(workload.kind, spec, (c) => c.probes.readiness, 'readiness'),
  },
  {
    id: 'hygiene-image-latest',
    family: 'hygiene',
    severity: 'MEDIUM',
    title: 'Image tag latest or missing',
    rule: 'Every container and init container image names a tag other than latest, or is pinned by digest (a digest decides what runs, whatever the tag).',
    remediation: 'Pin the image to a versioned tag (better: a digest), so every node and every restart runs the same build.',
    run: (spec) =>
      eachDeployed(spec, (c) => {
        const ref = parseImageRef(c.image);
        if (ref.digest) return null;
        if (ref.tag === null) return `runs image "${c.image}" without a tag (pulls latest)`;
        return ref.tag === 'latest' ? `runs image "${c.image}" with the latest tag` : null;
      }),
  },
  {
    id: 'hygiene-image-digest',
    family: 'hygiene',
    severity: 'LOW',
    title: 'Image not pinned by digest',
    rule: 'Every container and init container image is pinned by digest (image@sha256:...).',
    remediation: 'Reference the image by digest (image:tag@sha256:...), so a re-pushed tag cannot change what runs.',
    run: (spec) => eachDeployed(spec, (c) => (parseImageRef(c.image).digest ? null : `runs image "${c.image}" not pinned by digest`)),
  },
  {
    id: 'hygiene-default-service-account-token',
    family: 'hygiene',
    severity: 'MEDIUM',
    title: 'Default ServiceAccount with an automounted token',
    rule: 'A pod running as the namespace\'s default ServiceAccount sets automountServiceAccountToken: false (unset counts as mounted: the default ServiceAccount mounts its token unless told otherwise).',
    remediation: 'Give the workload its own ServiceAccount with only the RBAC it needs, or set automountServiceAccountToken: false if it never calls the API.',
    run: (spec) =>
      perPod(spec.serviceAccountName === 'default' && spec.automountServiceAccountToken !== false ? 'runs as the default ServiceAccount with its API token mounted' : null),
  },
  {
    id: 'hygiene-secret-env-literal',
    family: 'hygiene',
    severity: 'HIGH',
    title: 'Secret in a plain env value',
    rule: 'No container or init container sets a literal value for an env variable whose name looks secret (password, token, secret, API key, ...) or whose value is a PEM private key.',
    remediation: 'Move the value into a Secret and reference it with env[].valueFrom.secretKeyRef; rotate the value, since the manifest has exposed it.',
    run: (spec) =>
      eachDeployed(spec, (c) => {
        const literal = c.secretEnv.filter((e) => e.literal).map((e) => e.name);
        return literal.length > 0 ? `sets secret-looking env ${quote(literal)} to a literal value` : null;
      }),
  },
];
