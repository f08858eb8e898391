// The extractor at its boundaries, one table: each row a PodSpec as the API returns it (a
// pod's spec or a template's spec.template.spec) and the parts of the compact spec it must
// yield. Every row's output must satisfy the schema and must not contain any env value.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as v from 'valibot';
import { isSecretLookingName, podSecuritySpec } from '../../domain/security/pod-spec.ts';
import { parseImageRef } from '../../domain/security/image-ref.ts';
import { PodSecuritySpec } from '../../schema/security.ts';

type Spec = v.InferOutput<typeof PodSecuritySpec>;

/** A value no output may ever contain: every env value in these rows is built from it. */
const LEAK = 'hunter2-do-not-keep';
const PEM = `-----BEGIN RSA PRIVATE KEY-----\nMIIE${LEAK}\n-----END RSA PRIVATE KEY-----`;

function first(s: Spec) {
  const c = s.containers[0];
  if (!c) throw new Error('no container');
  return c;
}

const app = (extra: Record<string, unknown> = {}) => ({ name: 'app', image: 'example/web:1', ...extra });

const rows: { name: string; raw: unknown; annotations?: unknown; want: (s: Spec) => void }[] = [
  {
    name: 'not an object: an empty spec with the API defaults (no host namespaces, default ServiceAccount)',
    raw: null,
    want: (s) =>
      assert.deepEqual(s, {
        hostNetwork: false,
        hostPID: false,
        hostIPC: false,
        os: null,
        securityContext: { runAsNonRoot: null, runAsUser: null, seccompProfileType: null, appArmorProfileType: null, seLinuxOptions: null, windowsHostProcess: null, sysctls: [] },
        serviceAccountName: 'default',
        automountServiceAccountToken: null,
        volumes: [],
        containers: [],
      }),
  },
  {
    name: 'a bare container: every security field unset stays null (unset is not false)',
    raw: { containers: [app()] },
    want: (s) => {
      const c = s.containers[0];
      assert.ok(c);
      assert.deepEqual(c.securityContext, {
        runAsNonRoot: null,
        runAsUser: null,
        seccompProfileType: null,
        appArmorProfileType: null,
        seLinuxOptions: null,
        windowsHostProcess: null,
        privileged: null,
        allowPrivilegeEscalation: null,
        capabilitiesAdd: [],
        capabilitiesDrop: [],
        procMount: null,
      });
      assert.deepEqual(c.resources, { cpuRequest: false, memoryRequest: false, cpuLimit: false, memoryLimit: false });
      assert.deepEqual(c.probes, { liveness: false, readiness: false });
      assert.equal(c.kind, 'container');
    },
  },
  {
    name: 'host namespaces: true kept, false and absent both false',
    raw: { hostNetwork: true, hostPID: false, containers: [app()] },
    want: (s) => assert.deepEqual([s.hostNetwork, s.hostPID, s.hostIPC], [true, false, false]),
  },
  {
    name: 'init, then containers, then ephemeral containers, as the PSS visit them',
    raw: { containers: [app()], initContainers: [app({ name: 'migrate' })], ephemeralContainers: [app({ name: 'debugger' })] },
    want: (s) => assert.deepEqual(s.containers.map((c) => [c.name, c.kind]), [['migrate', 'init'], ['app', 'container'], ['debugger', 'ephemeral']]),
  },
  {
    name: 'a container without a name is dropped',
    raw: { containers: [{ image: 'x:1' }, app()] },
    want: (s) => assert.deepEqual(s.containers.map((c) => c.name), ['app']),
  },
  {
    name: 'ports: an unset hostPort reads 0, a set one is kept',
    raw: { containers: [app({ ports: [{ containerPort: 80 }, { containerPort: 443, hostPort: 0 }, { containerPort: 8443, hostPort: 8443 }] })] },
    want: (s) => assert.deepEqual(s.containers[0]?.ports, [{ hostPort: 0 }, { hostPort: 0 }, { hostPort: 8443 }]),
  },
  {
    name: 'pod securityContext: values kept, sysctl names only',
    raw: {
      securityContext: { runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' }, appArmorProfile: { type: 'Localhost', localhostProfile: 'p' }, sysctls: [{ name: 'kernel.msgmax', value: '65536' }], windowsOptions: { hostProcess: false } },
      containers: [app()],
    },
    want: (s) =>
      assert.deepEqual(s.securityContext, { runAsNonRoot: true, runAsUser: 1000, seccompProfileType: 'RuntimeDefault', appArmorProfileType: 'Localhost', seLinuxOptions: null, windowsHostProcess: false, sysctls: ['kernel.msgmax'] }),
  },
  {
    name: 'a profile object without a type reads "" (set, and no allowed value), not null',
    raw: { securityContext: { seccompProfile: {} }, containers: [app({ securityContext: { appArmorProfile: {} } })] },
    want: (s) => {
      assert.equal(s.securityContext.seccompProfileType, '');
      assert.equal(s.containers[0]?.securityContext.appArmorProfileType, '');
    },
  },
  {
    name: 'runAsUser 0 is kept as 0 (root), not taken for unset',
    raw: { containers: [app({ securityContext: { runAsUser: 0 } })] },
    want: (s) => assert.equal(s.containers[0]?.securityContext.runAsUser, 0),
  },
  {
    name: 'container securityContext: capabilities keep their case, SELinux keeps type/user/role',
    raw: {
      containers: [
        app({
          securityContext: {
            privileged: false,
            allowPrivilegeEscalation: false,
            capabilities: { drop: ['all'], add: ['NET_BIND_SERVICE'] },
            readOnlyRootFilesystem: true,
            procMount: 'Unmasked',
            seLinuxOptions: { type: 'spc_t', level: 's0:c1' },
          },
        }),
      ],
    },
    want: (s) => {
      const sc = first(s).securityContext;
      assert.deepEqual(sc.capabilitiesDrop, ['all']);
      assert.deepEqual(sc.capabilitiesAdd, ['NET_BIND_SERVICE']);
      assert.deepEqual(sc.seLinuxOptions, { type: 'spc_t', user: '', role: '' });
      assert.deepEqual([sc.privileged, sc.allowPrivilegeEscalation, sc.procMount], [false, false, 'Unmasked']);
      assert.equal('readOnlyRootFilesystem' in sc, false, 'no check reads it, so it is not kept');
    },
  },
  {
    name: 'resources: presence per request and limit',
    raw: { containers: [app({ resources: { requests: { cpu: '100m' }, limits: { memory: '128Mi' } } })] },
    want: (s) => assert.deepEqual(s.containers[0]?.resources, { cpuRequest: true, memoryRequest: false, cpuLimit: false, memoryLimit: true }),
  },
  {
    name: 'probes and the hosts they or lifecycle handlers point at ("" is no host)',
    raw: {
      containers: [
        app({
          livenessProbe: { httpGet: { path: '/healthz', port: 8080, host: '' } },
          readinessProbe: { tcpSocket: { port: 8080, host: '10.0.0.1' } },
          lifecycle: { preStop: { httpGet: { path: '/stop', port: 80, host: 'metadata.internal' } } },
        }),
      ],
    },
    want: (s) => {
      assert.deepEqual(first(s).probes, { liveness: true, readiness: true });
      assert.deepEqual(first(s).probeHosts, ['10.0.0.1', 'metadata.internal']);
    },
  },
  {
    name: 'env: only secret-looking names (or PEM values) kept, name and literal-ness only',
    raw: {
      containers: [
        app({
          env: [
            { name: 'DB_PASSWORD', value: LEAK },
            { name: 'API_TOKEN', valueFrom: { secretKeyRef: { name: 's', key: 'token' } } },
            { name: 'EMPTY_SECRET', value: '' },
            { name: 'TLS_KEY_PEM', value: PEM },
            { name: 'LOG_LEVEL', value: LEAK },
          ],
        }),
      ],
    },
    want: (s) =>
      assert.deepEqual(s.containers[0]?.secretEnv, [
        { name: 'DB_PASSWORD', literal: true },
        { name: 'API_TOKEN', literal: false },
        { name: 'EMPTY_SECRET', literal: false },
        { name: 'TLS_KEY_PEM', literal: true },
      ]),
  },
  {
    name: 'ServiceAccount: the name, the deprecated alias, empty is default',
    raw: { serviceAccount: 'legacy', containers: [app()] },
    want: (s) => assert.equal(s.serviceAccountName, 'legacy'),
  },
  {
    name: 'ServiceAccount: an empty name is the default one; automount false kept',
    raw: { serviceAccountName: '', automountServiceAccountToken: false, containers: [app()] },
    want: (s) => assert.deepEqual([s.serviceAccountName, s.automountServiceAccountToken], ['default', false]),
  },
  {
    name: 'volumes: the source field names the type; hostPath keeps its path; no source is unknown',
    raw: {
      volumes: [
        { name: 'cfg', configMap: { name: 'c' } },
        { name: 'sock', hostPath: { path: '/var/run/docker.sock', type: 'Socket' } },
        { name: 'share', nfs: { server: 'n', path: '/x' } },
        { name: 'token', projected: { sources: [] } },
        { name: 'odd' },
      ],
      containers: [app()],
    },
    want: (s) =>
      assert.deepEqual(s.volumes, [
        { name: 'cfg', type: 'configMap', hostPath: null },
        { name: 'sock', type: 'hostPath', hostPath: '/var/run/docker.sock' },
        { name: 'share', type: 'nfs', hostPath: null },
        { name: 'token', type: 'projected', hostPath: null },
        { name: 'odd', type: 'unknown', hostPath: null },
      ]),
  },
  {
    name: 'AppArmor beta annotation read for its container only',
    raw: { containers: [app(), app({ name: 'side' })] },
    annotations: { 'container.apparmor.security.beta.kubernetes.io/side': 'unconfined', 'other/annotation': 'x' },
    want: (s) => assert.deepEqual(s.containers.map((c) => c.appArmorAnnotation), [null, 'unconfined']),
  },
  {
    name: 'spec.os.name kept (Windows exemptions)',
    raw: { os: { name: 'windows' }, containers: [app()] },
    want: (s) => assert.equal(s.os, 'windows'),
  },
];

describe('podSecuritySpec', () => {
  for (const row of rows) {
    it(row.name, () => {
      const spec = podSecuritySpec(row.raw, row.annotations);
      v.parse(PodSecuritySpec, spec);
      assert.ok(!JSON.stringify(spec).includes(LEAK), 'an env value leaked into the compact spec');
      row.want(spec);
    });
  }
});

describe('isSecretLookingName', () => {
  const cases: [string, boolean][] = [
    ['PASSWORD', true],
    ['db_password', true],
    ['MYSQL_ROOT_PASSWD', true],
    ['GITHUB_TOKEN', true],
    ['AWS_SECRET_ACCESS_KEY', true],
    ['AWS_ACCESS_KEY_ID', true],
    ['AZURE_STORAGE_KEY', true],
    ['STRIPE_API_KEY', true],
    ['apikey', true],
    ['GOOGLE_APPLICATION_CREDENTIALS', true],
    ['AUTH_BEARER', true],
    ['LOG_LEVEL', false],
    ['PORT', false],
    ['KEYCLOAK_URL', false],
  ];
  for (const [name, want] of cases) it(`${name} → ${String(want)}`, () => assert.equal(isSecretLookingName(name), want));
});

describe('parseImageRef', () => {
  const cases: [string, string | null, string | null][] = [
    ['nginx', null, null],
    ['nginx:1.27', '1.27', null],
    ['nginx:latest', 'latest', null],
    ['registry.local:5000/team/nginx', null, null],
    ['registry.local:5000/team/nginx:2', '2', null],
    ['nginx@sha256:abc', null, 'sha256:abc'],
    ['nginx:1.27@sha256:abc', '1.27', 'sha256:abc'],
    ['nginx:', null, null],
    ['', null, null],
  ];
  for (const [image, tag, digest] of cases) it(`"${image}"`, () => assert.deepEqual(parseImageRef(image), { tag, digest }));
});
