// Pod Security Standards, Baseline profile, as of Kubernetes 1.34.
// Source: https://kubernetes.io/docs/concepts/security/pod-security-standards/#baseline
// and its reference implementation, k8s.io/pod-security-admission/policy at v0.34
// (the checks PodSecurity admission runs), whose allowed values are copied here exactly:
// "undefined/nil" is allowed wherever the standard says so, values compare case-sensitively,
// and init and ephemeral containers are judged like the others.
//
// Not modelled: the relaxation of procMount for user-namespaced pods (hostUsers: false),
// which sits behind the UserNamespacesPodSecurityStandards feature gate, off by default.
import type { SeLinuxOptions } from '../../../schema/security.ts';
import { perContainer, perPod, podAndContainers, quote, type Check } from './types.ts';

/** Capabilities Baseline lets a container add: the container runtime's default set. */
export const BASELINE_CAPABILITIES: ReadonlySet<string> = new Set([
  'AUDIT_WRITE',
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'MKNOD',
  'NET_BIND_SERVICE',
  'SETFCAP',
  'SETGID',
  'SETPCAP',
  'SETUID',
  'SYS_CHROOT',
]);

/** The "safe" sysctls (namespaced, isolated from other pods), the 1.32+ set, which 1.34 keeps. */
export const SAFE_SYSCTLS: ReadonlySet<string> = new Set([
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.ip_local_reserved_ports',
  'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes',
  'net.ipv4.tcp_rmem',
  'net.ipv4.tcp_wmem',
]);

/** SELinux types Baseline allows ('' is unset); container_engine_t since 1.31. */
export const SELINUX_TYPES: ReadonlySet<string> = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t', 'container_engine_t']);

/** Seccomp and AppArmor profile types both profiles accept when set. */
export const CONFINED_PROFILE_TYPES: ReadonlySet<string> = new Set(['RuntimeDefault', 'Localhost']);

/** The AppArmor beta annotation's allowed values: empty, runtime/default, localhost/<profile>. */
export function allowedAppArmorAnnotation(value: string): boolean {
  return value === '' || value === 'runtime/default' || value.startsWith('localhost/');
}

function badSeLinux(o: SeLinuxOptions | null): string | null {
  if (!o) return null;
  const bad: string[] = [];
  if (!SELINUX_TYPES.has(o.type)) bad.push(`type "${o.type}"`);
  if (o.user !== '') bad.push('user');
  if (o.role !== '') bad.push('role');
  return bad.length > 0 ? `sets securityContext.seLinuxOptions ${bad.join(', ')}` : null;
}

function badProfile(field: string, type: string | null): string | null {
  return type !== null && !CONFINED_PROFILE_TYPES.has(type) ? `sets securityContext.${field}.type to "${type}"` : null;
}

export const BASELINE_CHECKS: readonly Check[] = [
  {
    id: 'pss-baseline-host-process',
    family: 'pss-baseline',
    severity: 'CRITICAL',
    title: 'Windows HostProcess',
    rule: 'securityContext.windowsOptions.hostProcess, pod and every container: undefined or false.',
    remediation: 'Remove windowsOptions.hostProcess (or set it to false); a HostProcess container has privileged access to the Windows node.',
    run: (spec) =>
      podAndContainers(spec, spec.securityContext.windowsHostProcess === true ? 'sets securityContext.windowsOptions.hostProcess=true' : null, (c) =>
        c.securityContext.windowsHostProcess === true ? 'sets securityContext.windowsOptions.hostProcess=true' : null,
      ),
  },
  {
    id: 'pss-baseline-host-namespaces',
    family: 'pss-baseline',
    severity: 'HIGH',
    title: 'Host namespaces',
    rule: 'spec.hostNetwork, spec.hostPID, spec.hostIPC: undefined or false.',
    remediation: 'Remove hostNetwork, hostPID and hostIPC from the pod spec (or set them to false); expose the workload through a Service instead of the node network.',
    run: (spec) => {
      const shared = [spec.hostNetwork && 'hostNetwork', spec.hostPID && 'hostPID', spec.hostIPC && 'hostIPC'].filter((s): s is string => typeof s === 'string');
      return perPod(shared.length > 0 ? `shares the host's namespaces: ${shared.map((s) => `${s}=true`).join(', ')}` : null);
    },
  },
  {
    id: 'pss-baseline-privileged',
    family: 'pss-baseline',
    severity: 'CRITICAL',
    title: 'Privileged containers',
    rule: 'securityContext.privileged of every container: undefined or false.',
    remediation: 'Remove securityContext.privileged (or set it to false) and add only the specific capabilities the process needs.',
    run: (spec) => perContainer(spec.containers, (c) => (c.securityContext.privileged === true ? 'sets securityContext.privileged=true' : null)),
  },
  {
    id: 'pss-baseline-capabilities',
    family: 'pss-baseline',
    severity: 'HIGH',
    title: 'Capabilities beyond the default set',
    rule: `securityContext.capabilities.add of every container: empty, or only ${[...BASELINE_CAPABILITIES].join(', ')}.`,
    remediation: 'Remove the capabilities outside the runtime default set from securityContext.capabilities.add (NET_ADMIN, SYS_ADMIN, NET_RAW, ...); grant the narrowest one the process really needs.',
    run: (spec) =>
      perContainer(spec.containers, (c) => {
        const extra = c.securityContext.capabilitiesAdd.filter((cap) => !BASELINE_CAPABILITIES.has(cap));
        return extra.length > 0 ? `adds capabilities beyond the default set: ${quote(extra)}` : null;
      }),
  },
  {
    id: 'pss-baseline-host-path-volumes',
    family: 'pss-baseline',
    severity: 'HIGH',
    title: 'HostPath volumes',
    rule: 'spec.volumes[*].hostPath: undefined.',
    remediation: 'Replace hostPath volumes with a PersistentVolumeClaim, emptyDir, ConfigMap or Secret; a host path exposes the node\'s filesystem to the pod.',
    run: (spec) => {
      const host = spec.volumes.filter((vol) => vol.type === 'hostPath');
      return perPod(host.length > 0 ? `mounts host paths: ${host.map((vol) => `"${vol.name}" (${vol.hostPath ?? ''})`).join(', ')}` : null);
    },
  },
  {
    id: 'pss-baseline-host-ports',
    family: 'pss-baseline',
    severity: 'MEDIUM',
    title: 'Host ports',
    rule: 'ports[*].hostPort of every container: undefined or 0.',
    remediation: 'Remove hostPort and reach the container through a Service (NodePort or LoadBalancer if it must be exposed).',
    run: (spec) =>
      perContainer(spec.containers, (c) => {
        const ports = c.ports.filter((p) => p.hostPort !== 0).map((p) => String(p.hostPort));
        return ports.length > 0 ? `binds host ports ${ports.join(', ')}` : null;
      }),
  },
  {
    id: 'pss-baseline-probe-host',
    family: 'pss-baseline',
    severity: 'MEDIUM',
    title: 'Host in probes and lifecycle hooks',
    rule: 'host of httpGet and tcpSocket in liveness, readiness and startup probes and postStart/preStop handlers: undefined or empty (Kubernetes 1.34).',
    remediation: 'Remove the host field from the probe or lifecycle handler; the kubelet then targets the pod\'s own IP.',
    run: (spec) => perContainer(spec.containers, (c) => (c.probeHosts.length > 0 ? `points a probe or lifecycle handler at host ${quote(c.probeHosts)}` : null)),
  },
  {
    id: 'pss-baseline-apparmor',
    family: 'pss-baseline',
    severity: 'MEDIUM',
    title: 'AppArmor profile overridden',
    rule: 'securityContext.appArmorProfile.type, pod and every container: undefined, RuntimeDefault or Localhost; the container.apparmor.security.beta.kubernetes.io/* annotation: undefined, empty, runtime/default or localhost/*.',
    remediation: 'Set appArmorProfile.type to RuntimeDefault (or Localhost with a vetted profile), or leave it unset; never Unconfined.',
    run: (spec) =>
      podAndContainers(spec, badProfile('appArmorProfile', spec.securityContext.appArmorProfileType), (c) => {
        const field = badProfile('appArmorProfile', c.securityContext.appArmorProfileType);
        if (field) return field;
        const note = c.appArmorAnnotation;
        return note !== null && !allowedAppArmorAnnotation(note) ? `has AppArmor annotation "${note}"` : null;
      }),
  },
  {
    id: 'pss-baseline-selinux',
    family: 'pss-baseline',
    severity: 'MEDIUM',
    title: 'Custom SELinux options',
    rule: `securityContext.seLinuxOptions, pod and every container: type undefined or one of ${[...SELINUX_TYPES].filter(Boolean).join(', ')}; user and role undefined.`,
    remediation: 'Remove seLinuxOptions.user and .role, and use one of the container_* types (or none).',
    run: (spec) => podAndContainers(spec, badSeLinux(spec.securityContext.seLinuxOptions), (c) => badSeLinux(c.securityContext.seLinuxOptions)),
  },
  {
    id: 'pss-baseline-proc-mount',
    family: 'pss-baseline',
    severity: 'MEDIUM',
    title: '/proc mount type',
    rule: 'securityContext.procMount of every container: undefined or Default.',
    remediation: 'Remove securityContext.procMount (or set it to Default) so the runtime keeps masking sensitive /proc paths.',
    run: (spec) =>
      perContainer(spec.containers, (c) => {
        const mount = c.securityContext.procMount;
        return mount !== null && mount !== 'Default' ? `sets securityContext.procMount to "${mount}"` : null;
      }),
  },
  {
    id: 'pss-baseline-seccomp',
    family: 'pss-baseline',
    severity: 'HIGH',
    title: 'Seccomp disabled',
    rule: 'securityContext.seccompProfile.type, pod and every container: undefined, RuntimeDefault or Localhost (never Unconfined).',
    remediation: 'Set seccompProfile.type to RuntimeDefault at the pod level and remove Unconfined wherever it is set.',
    run: (spec) => podAndContainers(spec, badProfile('seccompProfile', spec.securityContext.seccompProfileType), (c) => badProfile('seccompProfile', c.securityContext.seccompProfileType)),
  },
  {
    id: 'pss-baseline-sysctls',
    family: 'pss-baseline',
    severity: 'MEDIUM',
    title: 'Unsafe sysctls',
    rule: `spec.securityContext.sysctls[*].name: only ${[...SAFE_SYSCTLS].join(', ')}.`,
    remediation: 'Remove the sysctls outside the safe set; node-wide kernel tuning belongs to the node, not to a pod.',
    run: (spec) => {
      const unsafe = spec.securityContext.sysctls.filter((s) => !SAFE_SYSCTLS.has(s));
      return perPod(unsafe.length > 0 ? `sets unsafe sysctls ${quote(unsafe)}` : null);
    },
  },
];
