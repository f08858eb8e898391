// Pod Security Standards Baseline at every control's boundary, one table: each row a PodSpec
// as the API returns it, one check, and exactly which subjects fail (null = the pod itself).
// Allowed values come from k8s.io/pod-security-admission/policy v0.34; every "undefined/nil
// is allowed" gets its row, and so does the nearest value that is not allowed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CHECKS_BY_ID } from '../../domain/security/checks/index.ts';
import { BASELINE_CHECKS, SAFE_SYSCTLS } from '../../domain/security/checks/pss-baseline.ts';
import { podSecuritySpec } from '../../domain/security/pod-spec.ts';

const app = (extra: Record<string, unknown> = {}) => ({ name: 'app', image: 'example/web:1', ...extra });
const withSc = (securityContext: Record<string, unknown>, name = 'app') => app({ name, securityContext });

interface Row {
  name: string;
  check: string;
  pod: Record<string, unknown>;
  annotations?: Record<string, string>;
  /** Subjects that fail, in result order; [] for a pass. */
  fails: (string | null)[];
  /** Matched against the first failure's message. */
  message?: RegExp;
}

const rows: Row[] = [
  // HostProcess
  { name: 'hostProcess unset', check: 'pss-baseline-host-process', pod: { containers: [app()] }, fails: [] },
  { name: 'hostProcess false on pod and container', check: 'pss-baseline-host-process', pod: { securityContext: { windowsOptions: { hostProcess: false } }, containers: [withSc({ windowsOptions: { hostProcess: false } })] }, fails: [] },
  { name: 'hostProcess true on the pod', check: 'pss-baseline-host-process', pod: { securityContext: { windowsOptions: { hostProcess: true } }, containers: [app()] }, fails: [null], message: /^pod sets securityContext\.windowsOptions\.hostProcess=true$/ },
  { name: 'hostProcess true on a container', check: 'pss-baseline-host-process', pod: { containers: [withSc({ windowsOptions: { hostProcess: true } })] }, fails: ['app'] },

  // Host namespaces
  { name: 'host namespaces unset', check: 'pss-baseline-host-namespaces', pod: { containers: [app()] }, fails: [] },
  { name: 'host namespaces all false', check: 'pss-baseline-host-namespaces', pod: { hostNetwork: false, hostPID: false, hostIPC: false, containers: [app()] }, fails: [] },
  { name: 'hostNetwork true', check: 'pss-baseline-host-namespaces', pod: { hostNetwork: true, containers: [app()] }, fails: [null], message: /hostNetwork=true$/ },
  { name: 'hostPID true', check: 'pss-baseline-host-namespaces', pod: { hostPID: true, containers: [app()] }, fails: [null], message: /hostPID=true/ },
  { name: 'hostIPC true', check: 'pss-baseline-host-namespaces', pod: { hostIPC: true, containers: [app()] }, fails: [null], message: /hostIPC=true/ },
  { name: 'all three in one result', check: 'pss-baseline-host-namespaces', pod: { hostNetwork: true, hostPID: true, hostIPC: true, containers: [app()] }, fails: [null], message: /hostNetwork=true, hostPID=true, hostIPC=true/ },

  // Privileged
  { name: 'privileged unset', check: 'pss-baseline-privileged', pod: { containers: [app()] }, fails: [] },
  { name: 'privileged false', check: 'pss-baseline-privileged', pod: { containers: [withSc({ privileged: false })] }, fails: [] },
  { name: 'privileged true', check: 'pss-baseline-privileged', pod: { containers: [withSc({ privileged: true })] }, fails: ['app'], message: /^container "app" sets securityContext\.privileged=true$/ },
  { name: 'a privileged init container is named as one', check: 'pss-baseline-privileged', pod: { initContainers: [withSc({ privileged: true }, 'setup')], containers: [app()] }, fails: ['setup'], message: /^init container "setup"/ },
  { name: 'a privileged ephemeral container counts too', check: 'pss-baseline-privileged', pod: { containers: [app()], ephemeralContainers: [withSc({ privileged: true }, 'dbg')] }, fails: ['dbg'], message: /^ephemeral container "dbg"/ },

  // Capabilities
  { name: 'no capabilities', check: 'pss-baseline-capabilities', pod: { containers: [app()] }, fails: [] },
  { name: 'add empty', check: 'pss-baseline-capabilities', pod: { containers: [withSc({ capabilities: { add: [] } })] }, fails: [] },
  {
    name: 'add the whole default set',
    check: 'pss-baseline-capabilities',
    pod: { containers: [withSc({ capabilities: { add: ['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT'] } })] },
    fails: [],
  },
  { name: 'add NET_RAW (outside the default set since PSS)', check: 'pss-baseline-capabilities', pod: { containers: [withSc({ capabilities: { add: ['NET_RAW'] } })] }, fails: ['app'], message: /"NET_RAW"/ },
  { name: 'add SYS_ADMIN', check: 'pss-baseline-capabilities', pod: { containers: [withSc({ capabilities: { add: ['CHOWN', 'SYS_ADMIN'] } })] }, fails: ['app'], message: /: "SYS_ADMIN"$/ },
  { name: 'add "chown" in lower case is not CHOWN', check: 'pss-baseline-capabilities', pod: { containers: [withSc({ capabilities: { add: ['chown'] } })] }, fails: ['app'] },
  { name: 'drop is not judged by Baseline', check: 'pss-baseline-capabilities', pod: { containers: [withSc({ capabilities: { drop: ['SYS_ADMIN'] } })] }, fails: [] },

  // HostPath volumes
  { name: 'no volumes', check: 'pss-baseline-host-path-volumes', pod: { containers: [app()] }, fails: [] },
  { name: 'emptyDir, configMap, nfs: no hostPath', check: 'pss-baseline-host-path-volumes', pod: { volumes: [{ name: 'a', emptyDir: {} }, { name: 'b', configMap: { name: 'x' } }, { name: 'c', nfs: { server: 's', path: '/' } }], containers: [app()] }, fails: [] },
  { name: 'a hostPath volume, named with its path', check: 'pss-baseline-host-path-volumes', pod: { volumes: [{ name: 'sock', hostPath: { path: '/var/run/docker.sock' } }], containers: [app()] }, fails: [null], message: /"sock" \(\/var\/run\/docker\.sock\)/ },

  // Host ports
  { name: 'no ports', check: 'pss-baseline-host-ports', pod: { containers: [app()] }, fails: [] },
  { name: 'containerPort only', check: 'pss-baseline-host-ports', pod: { containers: [app({ ports: [{ containerPort: 8080 }] })] }, fails: [] },
  { name: 'hostPort 0 is no host port', check: 'pss-baseline-host-ports', pod: { containers: [app({ ports: [{ containerPort: 8080, hostPort: 0 }] })] }, fails: [] },
  { name: 'hostPort 1', check: 'pss-baseline-host-ports', pod: { containers: [app({ ports: [{ containerPort: 8080, hostPort: 1 }] })] }, fails: ['app'], message: /binds host ports 1$/ },
  { name: 'hostPort on an init container', check: 'pss-baseline-host-ports', pod: { initContainers: [app({ name: 'i', ports: [{ containerPort: 80, hostPort: 80 }] })], containers: [app()] }, fails: ['i'] },

  // Host in probes and lifecycle hooks (1.34)
  { name: 'probes without host', check: 'pss-baseline-probe-host', pod: { containers: [app({ livenessProbe: { httpGet: { port: 80 } }, readinessProbe: { tcpSocket: { port: 80 } } })] }, fails: [] },
  { name: 'probe host ""', check: 'pss-baseline-probe-host', pod: { containers: [app({ livenessProbe: { httpGet: { port: 80, host: '' } } })] }, fails: [] },
  { name: 'httpGet probe host set', check: 'pss-baseline-probe-host', pod: { containers: [app({ startupProbe: { httpGet: { port: 80, host: '169.254.169.254' } } })] }, fails: ['app'], message: /"169\.254\.169\.254"/ },
  { name: 'tcpSocket probe host set', check: 'pss-baseline-probe-host', pod: { containers: [app({ readinessProbe: { tcpSocket: { port: 80, host: 'db' } } })] }, fails: ['app'] },
  { name: 'postStart handler host set', check: 'pss-baseline-probe-host', pod: { containers: [app({ lifecycle: { postStart: { httpGet: { port: 80, host: 'x' } } } })] }, fails: ['app'] },

  // AppArmor
  { name: 'AppArmor unset', check: 'pss-baseline-apparmor', pod: { containers: [app()] }, fails: [] },
  { name: 'AppArmor RuntimeDefault on pod, Localhost on container', check: 'pss-baseline-apparmor', pod: { securityContext: { appArmorProfile: { type: 'RuntimeDefault' } }, containers: [withSc({ appArmorProfile: { type: 'Localhost', localhostProfile: 'k8s-nginx' } })] }, fails: [] },
  { name: 'AppArmor Unconfined on the pod', check: 'pss-baseline-apparmor', pod: { securityContext: { appArmorProfile: { type: 'Unconfined' } }, containers: [app()] }, fails: [null], message: /^pod sets securityContext\.appArmorProfile\.type to "Unconfined"$/ },
  { name: 'AppArmor Unconfined on a container', check: 'pss-baseline-apparmor', pod: { containers: [withSc({ appArmorProfile: { type: 'Unconfined' } })] }, fails: ['app'] },
  { name: 'AppArmor annotation runtime/default', check: 'pss-baseline-apparmor', pod: { containers: [app()] }, annotations: { 'container.apparmor.security.beta.kubernetes.io/app': 'runtime/default' }, fails: [] },
  { name: 'AppArmor annotation localhost/profile', check: 'pss-baseline-apparmor', pod: { containers: [app()] }, annotations: { 'container.apparmor.security.beta.kubernetes.io/app': 'localhost/k8s-nginx' }, fails: [] },
  { name: 'AppArmor annotation empty', check: 'pss-baseline-apparmor', pod: { containers: [app()] }, annotations: { 'container.apparmor.security.beta.kubernetes.io/app': '' }, fails: [] },
  { name: 'AppArmor annotation unconfined', check: 'pss-baseline-apparmor', pod: { containers: [app()] }, annotations: { 'container.apparmor.security.beta.kubernetes.io/app': 'unconfined' }, fails: ['app'], message: /annotation "unconfined"/ },

  // SELinux
  { name: 'SELinux unset', check: 'pss-baseline-selinux', pod: { containers: [app()] }, fails: [] },
  { name: 'SELinux level only (not restricted)', check: 'pss-baseline-selinux', pod: { securityContext: { seLinuxOptions: { level: 's0:c123,c456' } }, containers: [app()] }, fails: [] },
  { name: 'SELinux container_t', check: 'pss-baseline-selinux', pod: { containers: [withSc({ seLinuxOptions: { type: 'container_t' } })] }, fails: [] },
  { name: 'SELinux container_engine_t (allowed since 1.31)', check: 'pss-baseline-selinux', pod: { containers: [withSc({ seLinuxOptions: { type: 'container_engine_t' } })] }, fails: [] },
  { name: 'SELinux spc_t', check: 'pss-baseline-selinux', pod: { containers: [withSc({ seLinuxOptions: { type: 'spc_t' } })] }, fails: ['app'], message: /type "spc_t"/ },
  { name: 'SELinux user set on the pod', check: 'pss-baseline-selinux', pod: { securityContext: { seLinuxOptions: { user: 'system_u' } }, containers: [app()] }, fails: [null], message: /user/ },
  { name: 'SELinux role set', check: 'pss-baseline-selinux', pod: { containers: [withSc({ seLinuxOptions: { role: 'system_r' } })] }, fails: ['app'], message: /role/ },

  // /proc mount
  { name: 'procMount unset', check: 'pss-baseline-proc-mount', pod: { containers: [app()] }, fails: [] },
  { name: 'procMount Default', check: 'pss-baseline-proc-mount', pod: { containers: [withSc({ procMount: 'Default' })] }, fails: [] },
  { name: 'procMount Unmasked', check: 'pss-baseline-proc-mount', pod: { containers: [withSc({ procMount: 'Unmasked' })] }, fails: ['app'], message: /"Unmasked"/ },

  // Seccomp
  { name: 'seccomp unset (Baseline allows it)', check: 'pss-baseline-seccomp', pod: { containers: [app()] }, fails: [] },
  { name: 'seccomp RuntimeDefault pod, Localhost container', check: 'pss-baseline-seccomp', pod: { securityContext: { seccompProfile: { type: 'RuntimeDefault' } }, containers: [withSc({ seccompProfile: { type: 'Localhost', localhostProfile: 'p.json' } })] }, fails: [] },
  { name: 'seccomp Unconfined on the pod', check: 'pss-baseline-seccomp', pod: { securityContext: { seccompProfile: { type: 'Unconfined' } }, containers: [app()] }, fails: [null], message: /^pod sets securityContext\.seccompProfile\.type to "Unconfined"$/ },
  { name: 'seccomp Unconfined on a container', check: 'pss-baseline-seccomp', pod: { securityContext: { seccompProfile: { type: 'RuntimeDefault' } }, containers: [withSc({ seccompProfile: { type: 'Unconfined' } })] }, fails: ['app'] },
  {
    name: 'seccomp Unconfined on the pod, overridden by every container: the pod setting still fails (PodSecurity names the pod)',
    check: 'pss-baseline-seccomp',
    pod: { securityContext: { seccompProfile: { type: 'Unconfined' } }, containers: [withSc({ seccompProfile: { type: 'RuntimeDefault' } })] },
    fails: [null],
  },
  { name: 'seccomp profile without a type', check: 'pss-baseline-seccomp', pod: { containers: [withSc({ seccompProfile: {} })] }, fails: ['app'] },

  // Sysctls
  { name: 'no sysctls', check: 'pss-baseline-sysctls', pod: { containers: [app()] }, fails: [] },
  {
    name: 'the whole safe set (1.32+: tcp_rmem, tcp_wmem)',
    check: 'pss-baseline-sysctls',
    pod: {
      securityContext: {
        sysctls: [
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
        ].map((name) => ({ name, value: '1' })),
      },
      containers: [app()],
    },
    fails: [],
  },
  { name: 'kernel.msgmax is not safe', check: 'pss-baseline-sysctls', pod: { securityContext: { sysctls: [{ name: 'kernel.msgmax', value: '1' }] }, containers: [app()] }, fails: [null], message: /"kernel\.msgmax"/ },
  { name: 'net.core.somaxconn is not safe', check: 'pss-baseline-sysctls', pod: { securityContext: { sysctls: [{ name: 'net.core.somaxconn', value: '1024' }] }, containers: [app()] }, fails: [null] },
];

function check(id: string) {
  const found = CHECKS_BY_ID.get(id);
  if (!found) throw new Error(`no check ${id}`);
  return found;
}

describe('PSS Baseline checks', () => {
  for (const row of rows) {
    it(`${row.check}: ${row.name}`, () => {
      const results = check(row.check).run(podSecuritySpec(row.pod, row.annotations), { kind: 'Deployment', namespace: 'shop', name: 'web' });
      const failed = results.filter((r) => !r.passed);
      assert.deepEqual(
        failed.map((r) => r.container),
        row.fails,
      );
      if (row.message) assert.match(failed[0]?.message ?? '', row.message);
      for (const r of results) assert.equal(r.message === '', r.passed, 'a pass has no message, a failure has one');
    });
  }

  it('the safe sysctls are exactly the PSS 1.32+ list, nothing more', () => {
    assert.deepEqual([...SAFE_SYSCTLS].sort(), [
      'kernel.shm_rmid_forced',
      'net.ipv4.ip_local_port_range',
      'net.ipv4.ip_local_reserved_ports',
      'net.ipv4.ip_unprivileged_port_start',
      'net.ipv4.ping_group_range',
      'net.ipv4.tcp_fin_timeout',
      'net.ipv4.tcp_keepalive_intvl',
      'net.ipv4.tcp_keepalive_probes',
      'net.ipv4.tcp_keepalive_time',
      'net.ipv4.tcp_rmem',
      'net.ipv4.tcp_syncookies',
      'net.ipv4.tcp_wmem',
    ]);
  });

  it('every Baseline check has at least one passing and one failing row', () => {
    for (const c of BASELINE_CHECKS) {
      const mine = rows.filter((r) => r.check === c.id);
      assert.ok(mine.some((r) => r.fails.length === 0), `${c.id} has no passing row`);
      assert.ok(mine.some((r) => r.fails.length > 0), `${c.id} has no failing row`);
    }
  });

  it('the number of results depends on the pod\'s shape, never on what it sets', () => {
    const bare = podSecuritySpec({ initContainers: [app({ name: 'i' })], containers: [app()] });
    const loaded = podSecuritySpec({
      hostNetwork: true,
      securityContext: { seccompProfile: { type: 'Unconfined' }, seLinuxOptions: { user: 'u' } },
      volumes: [{ name: 'h', hostPath: { path: '/' } }],
      initContainers: [withSc({ privileged: true, procMount: 'Unmasked' }, 'i')],
      containers: [withSc({ capabilities: { add: ['SYS_ADMIN'] } })],
    });
    const ref = { kind: 'Deployment', namespace: 'shop', name: 'web' };
    for (const c of BASELINE_CHECKS) assert.equal(c.run(bare, ref).length, c.run(loaded, ref).length, c.id);
  });
});
