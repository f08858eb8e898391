// Pod Security Standards Restricted at every control's boundary, one table: each row a
// PodSpec as the API returns it, one check, and exactly which subjects fail (null = the pod).
// Allowed values come from k8s.io/pod-security-admission/policy v0.34: pod-level settings
// that containers inherit, container overrides, and the Windows exemptions each get a row.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CHECKS_BY_ID } from '../../domain/security/checks/index.ts';
import { RESTRICTED_CHECKS } from '../../domain/security/checks/pss-restricted.ts';
import { podSecuritySpec } from '../../domain/security/pod-spec.ts';

const app = (extra: Record<string, unknown> = {}) => ({ name: 'app', image: 'example/web:1', ...extra });
const withSc = (securityContext: Record<string, unknown>, name = 'app') => app({ name, securityContext });
const windows = { os: { name: 'windows' } };

interface Row {
  name: string;
  check: string;
  pod: Record<string, unknown>;
  fails: (string | null)[];
  message?: RegExp;
}

const vol = (type: string, source: unknown = {}) => ({ name: type.toLowerCase(), [type]: source });

const rows: Row[] = [
  // Volume types
  { name: 'no volumes', check: 'pss-restricted-volume-types', pod: { containers: [app()] }, fails: [] },
  {
    name: 'every allowed type (configMap, csi, downwardAPI, emptyDir, ephemeral, image, persistentVolumeClaim, projected, secret)',
    check: 'pss-restricted-volume-types',
    pod: { volumes: ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'image', 'persistentVolumeClaim', 'projected', 'secret'].map((t) => vol(t)), containers: [app()] },
    fails: [],
  },
  { name: 'hostPath', check: 'pss-restricted-volume-types', pod: { volumes: [vol('hostPath', { path: '/etc' })], containers: [app()] }, fails: [null], message: /"hostpath" \(hostPath\)/ },
  { name: 'nfs', check: 'pss-restricted-volume-types', pod: { volumes: [vol('nfs', { server: 's', path: '/' })], containers: [app()] }, fails: [null], message: /\(nfs\)/ },
  { name: 'gitRepo', check: 'pss-restricted-volume-types', pod: { volumes: [vol('gitRepo', { repository: 'r' })], containers: [app()] }, fails: [null] },
  { name: 'a source this code does not know is refused too', check: 'pss-restricted-volume-types', pod: { volumes: [vol('futureVolume')], containers: [app()] }, fails: [null], message: /futureVolume/ },

  // Privilege escalation
  { name: 'allowPrivilegeEscalation false', check: 'pss-restricted-privilege-escalation', pod: { containers: [withSc({ allowPrivilegeEscalation: false })] }, fails: [] },
  { name: 'allowPrivilegeEscalation unset (defaults to true)', check: 'pss-restricted-privilege-escalation', pod: { containers: [app()] }, fails: ['app'], message: /does not set securityContext\.allowPrivilegeEscalation=false/ },
  { name: 'allowPrivilegeEscalation true', check: 'pss-restricted-privilege-escalation', pod: { containers: [withSc({ allowPrivilegeEscalation: true })] }, fails: ['app'], message: /sets securityContext\.allowPrivilegeEscalation=true/ },
  { name: 'an init container without it fails too', check: 'pss-restricted-privilege-escalation', pod: { initContainers: [app({ name: 'i' })], containers: [withSc({ allowPrivilegeEscalation: false })] }, fails: ['i'] },
  { name: 'Windows pods are exempt', check: 'pss-restricted-privilege-escalation', pod: { ...windows, containers: [app()] }, fails: [] },

  // Running as non-root
  { name: 'runAsNonRoot true on the pod, unset on the container', check: 'pss-restricted-run-as-non-root', pod: { securityContext: { runAsNonRoot: true }, containers: [app()] }, fails: [] },
  { name: 'runAsNonRoot unset on the pod, true on every container', check: 'pss-restricted-run-as-non-root', pod: { initContainers: [withSc({ runAsNonRoot: true }, 'i')], containers: [withSc({ runAsNonRoot: true })] }, fails: [] },
  { name: 'runAsNonRoot unset everywhere', check: 'pss-restricted-run-as-non-root', pod: { containers: [app()] }, fails: ['app'], message: /neither does the pod/ },
  { name: 'runAsNonRoot true on one container, unset on another with the pod unset', check: 'pss-restricted-run-as-non-root', pod: { containers: [withSc({ runAsNonRoot: true }), app({ name: 'side' })] }, fails: ['side'] },
  { name: 'pod true, container false: the container overrides and fails', check: 'pss-restricted-run-as-non-root', pod: { securityContext: { runAsNonRoot: true }, containers: [withSc({ runAsNonRoot: false })] }, fails: ['app'], message: /sets securityContext\.runAsNonRoot=false/ },
  { name: 'pod false, container true: the pod setting fails', check: 'pss-restricted-run-as-non-root', pod: { securityContext: { runAsNonRoot: false }, containers: [withSc({ runAsNonRoot: true })] }, fails: [null] },
  { name: 'pod false, container unset: both fail', check: 'pss-restricted-run-as-non-root', pod: { securityContext: { runAsNonRoot: false }, containers: [app()] }, fails: [null, 'app'] },

  // Running as non-root user
  { name: 'runAsUser unset', check: 'pss-restricted-run-as-user', pod: { containers: [app()] }, fails: [] },
  { name: 'runAsUser 1 on pod and container', check: 'pss-restricted-run-as-user', pod: { securityContext: { runAsUser: 1 }, containers: [withSc({ runAsUser: 1 })] }, fails: [] },
  { name: 'runAsUser 0 on the pod', check: 'pss-restricted-run-as-user', pod: { securityContext: { runAsUser: 0 }, containers: [app()] }, fails: [null], message: /^pod sets securityContext\.runAsUser=0$/ },
  { name: 'runAsUser 0 on the pod, 1000 on the container: the pod setting still fails', check: 'pss-restricted-run-as-user', pod: { securityContext: { runAsUser: 0 }, containers: [withSc({ runAsUser: 1000 })] }, fails: [null] },
  { name: 'runAsUser 0 on a container', check: 'pss-restricted-run-as-user', pod: { securityContext: { runAsUser: 1000 }, containers: [withSc({ runAsUser: 0 })] }, fails: ['app'] },

  // Seccomp
  { name: 'seccomp RuntimeDefault on the pod, containers unset', check: 'pss-restricted-seccomp', pod: { securityContext: { seccompProfile: { type: 'RuntimeDefault' } }, containers: [app(), app({ name: 'b' })] }, fails: [] },
  { name: 'seccomp Localhost on the pod', check: 'pss-restricted-seccomp', pod: { securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: 'p.json' } }, containers: [app()] }, fails: [] },
  { name: 'seccomp unset on the pod, set on every container', check: 'pss-restricted-seccomp', pod: { containers: [withSc({ seccompProfile: { type: 'RuntimeDefault' } })] }, fails: [] },
  { name: 'seccomp unset everywhere (Restricted requires it)', check: 'pss-restricted-seccomp', pod: { containers: [app()] }, fails: ['app'], message: /sets no seccompProfile\.type/ },
  {
    name: 'seccomp Unconfined on the pod, RuntimeDefault on the container: only the pod fails',
    check: 'pss-restricted-seccomp',
    pod: { securityContext: { seccompProfile: { type: 'Unconfined' } }, containers: [withSc({ seccompProfile: { type: 'RuntimeDefault' } })] },
    fails: [null],
  },
  { name: 'seccomp Unconfined on the pod, container unset: the container inherits it and fails too', check: 'pss-restricted-seccomp', pod: { securityContext: { seccompProfile: { type: 'Unconfined' } }, containers: [app()] }, fails: [null, 'app'] },
  { name: 'seccomp RuntimeDefault on the pod, Unconfined on a container', check: 'pss-restricted-seccomp', pod: { securityContext: { seccompProfile: { type: 'RuntimeDefault' } }, containers: [withSc({ seccompProfile: { type: 'Unconfined' } })] }, fails: ['app'], message: /"Unconfined"/ },
  { name: 'Windows pods are exempt', check: 'pss-restricted-seccomp', pod: { ...windows, containers: [app()] }, fails: [] },

  // Capabilities
  { name: 'drop ["ALL"]', check: 'pss-restricted-capabilities', pod: { containers: [withSc({ capabilities: { drop: ['ALL'] } })] }, fails: [] },
  { name: 'drop ["ALL"], add ["NET_BIND_SERVICE"]', check: 'pss-restricted-capabilities', pod: { containers: [withSc({ capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] } })] }, fails: [] },
  { name: 'drop ["all"] is not ALL (the PSS compare exactly)', check: 'pss-restricted-capabilities', pod: { containers: [withSc({ capabilities: { drop: ['all'] } })] }, fails: ['app'], message: /does not drop "ALL"/ },
  { name: 'no capabilities at all', check: 'pss-restricted-capabilities', pod: { containers: [app()] }, fails: ['app'] },
  { name: 'drop a list that is not ALL', check: 'pss-restricted-capabilities', pod: { containers: [withSc({ capabilities: { drop: ['NET_RAW', 'SYS_ADMIN'] } })] }, fails: ['app'] },
  { name: 'drop ALL but add CHOWN (in the Baseline set, not in Restricted)', check: 'pss-restricted-capabilities', pod: { containers: [withSc({ capabilities: { drop: ['ALL'], add: ['CHOWN'] } })] }, fails: ['app'], message: /^container "app" adds "CHOWN"$/ },
  { name: 'both wrong in one message', check: 'pss-restricted-capabilities', pod: { containers: [withSc({ capabilities: { add: ['SYS_ADMIN'] } })] }, fails: ['app'], message: /does not drop "ALL" capabilities and adds "SYS_ADMIN"/ },
  { name: 'Windows pods are exempt', check: 'pss-restricted-capabilities', pod: { ...windows, containers: [app()] }, fails: [] },
];

function check(id: string) {
  const found = CHECKS_BY_ID.get(id);
  if (!found) throw new Error(`no check ${id}`);
  return found;
}

describe('PSS Restricted checks', () => {
  for (const row of rows) {
    it(`${row.check}: ${row.name}`, () => {
      const results = check(row.check).run(podSecuritySpec(row.pod), { kind: 'Deployment', namespace: 'shop', name: 'web' });
      const failed = results.filter((r) => !r.passed);
      assert.deepEqual(
        failed.map((r) => r.container),
        row.fails,
      );
      if (row.message) assert.match(failed[0]?.message ?? '', row.message);
    });
  }

  it('every Restricted check has at least one passing and one failing row', () => {
    for (const c of RESTRICTED_CHECKS) {
      const mine = rows.filter((r) => r.check === c.id);
      assert.ok(mine.some((r) => r.fails.length === 0), `${c.id} has no passing row`);
      assert.ok(mine.some((r) => r.fails.length > 0), `${c.id} has no failing row`);
    }
  });

  it('a Windows pod counts as many results as a Linux pod of the same shape', () => {
    const shape = { initContainers: [app({ name: 'i' })], containers: [app()] };
    const ref = { kind: 'Deployment', namespace: 'shop', name: 'web' };
    for (const c of RESTRICTED_CHECKS) assert.equal(c.run(podSecuritySpec({ ...windows, ...shape }), ref).length, c.run(podSecuritySpec(shape), ref).length, c.id);
  });
});
