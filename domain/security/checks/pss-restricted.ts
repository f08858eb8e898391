// Pod Security Standards, Restricted profile, as of Kubernetes 1.34: the controls Restricted
// adds on top of Baseline (Baseline's own run beside them, in pss-baseline.ts).
// Source: https://kubernetes.io/docs/concepts/security/pod-security-standards/#restricted
// and its reference implementation, k8s.io/pod-security-admission/policy at v0.34; allowed
// values copied exactly. Where PodSecurity admission lets a Restricted check replace a
// Baseline one (capabilities, seccomp, hostPath), both are kept here: a hostPath volume
// fails Baseline and Restricted alike, and each profile's findings stay complete on their own.
//
// Not modelled: the runAsNonRoot/runAsUser relaxation for user-namespaced pods
// (hostUsers: false), which sits behind a feature gate that is off by default.
import type { ContainerSecuritySpec, PodSecuritySpec } from '../../../schema/security.ts';
import { CONFINED_PROFILE_TYPES } from './pss-baseline.ts';
import { isWindows, pass, perContainer, perPod, podAndContainers, quote, type Check, type CheckResult } from './types.ts';

/** Inline volume sources Restricted allows; every other source (hostPath, nfs, iscsi, ...) is refused. */
export const RESTRICTED_VOLUME_TYPES: ReadonlySet<string> = new Set([
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'image',
  'persistentVolumeClaim',
  'projected',
  'secret',
]);

/** Windows pods pass the controls the API refuses to let them set; each container still counts once. */
function unlessWindows(spec: PodSecuritySpec, judge: (c: ContainerSecuritySpec) => string | null): CheckResult[] {
  return isWindows(spec) ? spec.containers.map((c) => pass(c.name)) : perContainer(spec.containers, judge);
}

export const RESTRICTED_CHECKS: readonly Check[] = [
  {
    id: 'pss-restricted-volume-types',
    family: 'pss-restricted',
    severity: 'MEDIUM',
    title: 'Volume types',
    rule: `spec.volumes[*]: only ${[...RESTRICTED_VOLUME_TYPES].join(', ')}.`,
    remediation: 'Mount storage through a PersistentVolumeClaim (the cluster admin defines the PersistentVolume) instead of an inline hostPath, nfs, iscsi or other node-level source.',
    run: (spec) => {
      const bad = spec.volumes.filter((vol) => !RESTRICTED_VOLUME_TYPES.has(vol.type));
      return perPod(bad.length > 0 ? `uses restricted volume types: ${bad.map((vol) => `"${vol.name}" (${vol.type})`).join(', ')}` : null);
    },
  },
  {
    id: 'pss-restricted-privilege-escalation',
    family: 'pss-restricted',
    severity: 'HIGH',
    title: 'Privilege escalation',
    rule: 'securityContext.allowPrivilegeEscalation of every container: false (unset is not enough: it defaults to true). Windows pods are exempt.',
    remediation: 'Set securityContext.allowPrivilegeEscalation: false on every container so setuid binaries cannot gain privileges.',
    run: (spec) =>
      unlessWindows(spec, (c) => {
        const v = c.securityContext.allowPrivilegeEscalation;
        return v === false ? null : v === true ? 'sets securityContext.allowPrivilegeEscalation=true' : 'does not set securityContext.allowPrivilegeEscalation=false';
      }),
  },
  {
    id: 'pss-restricted-run-as-non-root',
    family: 'pss-restricted',
    severity: 'HIGH',
    title: 'Running as non-root',
    rule: 'securityContext.runAsNonRoot: true on the pod, or on every container; a container may leave it unset only when the pod sets true, and nothing may set false.',
    remediation: 'Set securityContext.runAsNonRoot: true at the pod level (and a non-zero runAsUser, or an image with a numeric non-root USER).',
    run: (spec) => {
      const podValue = spec.securityContext.runAsNonRoot;
      return [
        ...perPod(podValue === false ? 'sets securityContext.runAsNonRoot=false' : null),
        ...perContainer(spec.containers, (c) => {
          const own = c.securityContext.runAsNonRoot;
          if (own === false) return 'sets securityContext.runAsNonRoot=false';
          if (own === null && podValue !== true) return 'does not set securityContext.runAsNonRoot=true, and neither does the pod';
          return null;
        }),
      ];
    },
  },
  {
    id: 'pss-restricted-run-as-user',
    family: 'pss-restricted',
    severity: 'HIGH',
    title: 'Running as non-root user',
    rule: 'securityContext.runAsUser, pod and every container: undefined or non-zero.',
    remediation: 'Set runAsUser to a non-zero UID (or remove it and use an image with a non-root USER).',
    run: (spec) =>
      podAndContainers(spec, spec.securityContext.runAsUser === 0 ? 'sets securityContext.runAsUser=0' : null, (c) =>
        c.securityContext.runAsUser === 0 ? 'sets securityContext.runAsUser=0' : null,
      ),
  },
  {
    id: 'pss-restricted-seccomp',
    family: 'pss-restricted',
    severity: 'MEDIUM',
    title: 'Seccomp profile required',
    rule: 'securityContext.seccompProfile.type: RuntimeDefault or Localhost on the pod, or on every container; a container may leave it unset only when the pod sets an allowed type. Windows pods are exempt.',
    remediation: 'Set securityContext.seccompProfile.type: RuntimeDefault at the pod level.',
    run: (spec) => {
      if (isWindows(spec)) return [pass(null), ...spec.containers.map((c) => pass(c.name))];
      const podType = spec.securityContext.seccompProfileType;
      const podValid = podType !== null && CONFINED_PROFILE_TYPES.has(podType);
      return [
        ...perPod(podType !== null && !podValid ? `sets securityContext.seccompProfile.type to "${podType}"` : null),
        ...perContainer(spec.containers, (c) => {
          const own = c.securityContext.seccompProfileType;
          if (own !== null) return CONFINED_PROFILE_TYPES.has(own) ? null : `sets securityContext.seccompProfile.type to "${own}"`;
          return podValid ? null : 'sets no seccompProfile.type, and the pod sets neither RuntimeDefault nor Localhost';
        }),
      ];
    },
  },
  {
    id: 'pss-restricted-capabilities',
    family: 'pss-restricted',
    severity: 'MEDIUM',
    title: 'Capabilities not dropped',
    rule: 'securityContext.capabilities.drop of every container includes "ALL" (exactly, upper case); capabilities.add is empty or only NET_BIND_SERVICE. Windows pods are exempt.',
    remediation: 'Set securityContext.capabilities.drop: ["ALL"] on every container and add back at most NET_BIND_SERVICE.',
    run: (spec) =>
      unlessWindows(spec, (c) => {
        const problems: string[] = [];
        if (!c.securityContext.capabilitiesDrop.includes('ALL')) problems.push('does not drop "ALL" capabilities');
        const extra = c.securityContext.capabilitiesAdd.filter((cap) => cap !== 'NET_BIND_SERVICE');
        if (extra.length > 0) problems.push(`adds ${quote(extra)}`);
        return problems.length > 0 ? problems.join(' and ') : null;
      }),
  },
];
