// Workload hygiene checks at their boundaries, one table: each row a PodSpec as the API
// returns it, the workload kind, one check, and exactly which subjects fail (null = the pod).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CHECKS_BY_ID } from '../../domain/security/checks/index.ts';
import { HYGIENE_CHECKS } from '../../domain/security/checks/hygiene.ts';
import { podSecuritySpec } from '../../domain/security/pod-spec.ts';

const app = (extra: Record<string, unknown> = {}) => ({ name: 'app', image: 'example/web:1', ...extra });
const res = (requests: Record<string, string>, limits: Record<string, string> = {}) => ({ resources: { requests, limits } });
const probe = { httpGet: { path: '/healthz', port: 8080 } };

interface Row {
  name: string;
  check: string;
  kind?: string;
  pod: Record<string, unknown>;
  fails: (string | null)[];
  /** Total results expected, where the row is about what is judged at all. */
  results?: number;
  message?: RegExp;
}

const rows: Row[] = [
  // Requests and limits
  { name: 'CPU request set', check: 'hygiene-cpu-request-missing', pod: { containers: [app(res({ cpu: '100m' }))] }, fails: [] },
  { name: 'CPU limit only (copied into the request)', check: 'hygiene-cpu-request-missing', pod: { containers: [app(res({}, { cpu: '1' }))] }, fails: [] },
  { name: 'no CPU request', check: 'hygiene-cpu-request-missing', pod: { containers: [app(res({ memory: '64Mi' }))] }, fails: ['app'], message: /^container "app" has no CPU request$/ },
  { name: 'an init container without a CPU request', check: 'hygiene-cpu-request-missing', pod: { initContainers: [app({ name: 'i' })], containers: [app(res({ cpu: '1' }))] }, fails: ['i'] },
  { name: 'ephemeral containers are not judged', check: 'hygiene-cpu-request-missing', pod: { containers: [app(res({ cpu: '1' }))], ephemeralContainers: [app({ name: 'dbg' })] }, fails: [], results: 1 },
  { name: 'memory request set', check: 'hygiene-memory-request-missing', pod: { containers: [app(res({ memory: '64Mi' }))] }, fails: [] },
  { name: 'memory limit only (copied into the request)', check: 'hygiene-memory-request-missing', pod: { containers: [app(res({}, { memory: '64Mi' }))] }, fails: [] },
  { name: 'no memory request', check: 'hygiene-memory-request-missing', pod: { containers: [app(res({ cpu: '1' }))] }, fails: ['app'] },
  { name: 'memory limit set', check: 'hygiene-memory-limit-missing', pod: { containers: [app(res({}, { memory: '64Mi' }))] }, fails: [] },
  { name: 'memory request without a limit', check: 'hygiene-memory-limit-missing', pod: { containers: [app(res({ memory: '64Mi' }))] }, fails: ['app'], message: /has no memory limit/ },

  // Probes
  { name: 'liveness probe set', check: 'hygiene-liveness-probe-missing', pod: { containers: [app({ livenessProbe: probe })] }, fails: [] },
  { name: 'no liveness probe', check: 'hygiene-liveness-probe-missing', pod: { containers: [app({ readinessProbe: probe })] }, fails: ['app'], message: /has no liveness probe/ },
  { name: 'a startup probe is not a liveness probe', check: 'hygiene-liveness-probe-missing', pod: { containers: [app({ startupProbe: probe })] }, fails: ['app'] },
  { name: 'init containers are not judged for probes', check: 'hygiene-liveness-probe-missing', pod: { initContainers: [app({ name: 'i' })], containers: [app({ livenessProbe: probe })] }, fails: [], results: 1 },
  { name: 'a Job is not judged for probes', check: 'hygiene-liveness-probe-missing', kind: 'Job', pod: { containers: [app()] }, fails: [], results: 0 },
  { name: 'a CronJob is not judged for probes', check: 'hygiene-readiness-probe-missing', kind: 'CronJob', pod: { containers: [app()] }, fails: [], results: 0 },
  { name: 'a StatefulSet is', check: 'hygiene-readiness-probe-missing', kind: 'StatefulSet', pod: { containers: [app()] }, fails: ['app'] },
  { name: 'readiness probe set', check: 'hygiene-readiness-probe-missing', pod: { containers: [app({ readinessProbe: probe })] }, fails: [] },

  // Image tag
  { name: 'a versioned tag', check: 'hygiene-image-latest', pod: { containers: [app({ image: 'nginx:1.27' })] }, fails: [] },
  { name: 'latest', check: 'hygiene-image-latest', pod: { containers: [app({ image: 'nginx:latest' })] }, fails: ['app'], message: /"nginx:latest" with the latest tag/ },
  { name: 'no tag (pulls latest)', check: 'hygiene-image-latest', pod: { containers: [app({ image: 'nginx' })] }, fails: ['app'], message: /without a tag/ },
  { name: 'a registry port is not a tag', check: 'hygiene-image-latest', pod: { containers: [app({ image: 'registry.local:5000/nginx' })] }, fails: ['app'] },
  { name: 'a registry port and a tag', check: 'hygiene-image-latest', pod: { containers: [app({ image: 'registry.local:5000/nginx:1.2' })] }, fails: [] },
  { name: 'a digest without a tag', check: 'hygiene-image-latest', pod: { containers: [app({ image: 'nginx@sha256:0123' })] }, fails: [] },
  { name: 'latest pinned by digest (the digest decides)', check: 'hygiene-image-latest', pod: { containers: [app({ image: 'nginx:latest@sha256:0123' })] }, fails: [] },
  { name: 'an init container on latest', check: 'hygiene-image-latest', pod: { initContainers: [app({ name: 'i', image: 'busybox:latest' })], containers: [app()] }, fails: ['i'] },

  // Image digest
  { name: 'pinned by digest', check: 'hygiene-image-digest', pod: { containers: [app({ image: 'nginx:1.27@sha256:0123' })] }, fails: [] },
  { name: 'tag only', check: 'hygiene-image-digest', pod: { containers: [app({ image: 'nginx:1.27' })] }, fails: ['app'], message: /not pinned by digest/ },

  // Default ServiceAccount token
  { name: 'default ServiceAccount, automount unset', check: 'hygiene-default-service-account-token', pod: { containers: [app()] }, fails: [null], message: /^pod runs as the default ServiceAccount/ },
  { name: 'default ServiceAccount named explicitly, automount true', check: 'hygiene-default-service-account-token', pod: { serviceAccountName: 'default', automountServiceAccountToken: true, containers: [app()] }, fails: [null] },
  { name: 'default ServiceAccount, automount false', check: 'hygiene-default-service-account-token', pod: { automountServiceAccountToken: false, containers: [app()] }, fails: [] },
  { name: 'its own ServiceAccount, token mounted', check: 'hygiene-default-service-account-token', pod: { serviceAccountName: 'web', containers: [app()] }, fails: [] },

  // Secrets in plain env
  { name: 'a password from a Secret', check: 'hygiene-secret-env-literal', pod: { containers: [app({ env: [{ name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'pw' } } }] })] }, fails: [] },
  { name: 'a literal password', check: 'hygiene-secret-env-literal', pod: { containers: [app({ env: [{ name: 'DB_PASSWORD', value: 'x' }] })] }, fails: ['app'], message: /^container "app" sets secret-looking env "DB_PASSWORD" to a literal value$/ },
  { name: 'an empty literal leaks nothing', check: 'hygiene-secret-env-literal', pod: { containers: [app({ env: [{ name: 'DB_PASSWORD', value: '' }] })] }, fails: [] },
  { name: 'a harmless name with a literal', check: 'hygiene-secret-env-literal', pod: { containers: [app({ env: [{ name: 'LOG_LEVEL', value: 'debug' }] })] }, fails: [] },
  { name: 'a PEM private key under any name', check: 'hygiene-secret-env-literal', pod: { containers: [app({ env: [{ name: 'CERT_DATA', value: '-----BEGIN PRIVATE KEY-----\nMII\n-----END PRIVATE KEY-----' }] })] }, fails: ['app'] },
  { name: 'an init container with a literal token', check: 'hygiene-secret-env-literal', pod: { initContainers: [app({ name: 'i', env: [{ name: 'GITHUB_TOKEN', value: 'ghp_x' }] })], containers: [app()] }, fails: ['i'] },
];

function check(id: string) {
  const found = CHECKS_BY_ID.get(id);
  if (!found) throw new Error(`no check ${id}`);
  return found;
}

describe('workload hygiene checks', () => {
  for (const row of rows) {
    it(`${row.check}: ${row.name}`, () => {
      const results = check(row.check).run(podSecuritySpec(row.pod), { kind: row.kind ?? 'Deployment', namespace: 'shop', name: 'web' });
      const failed = results.filter((r) => !r.passed);
      assert.deepEqual(
        failed.map((r) => r.container),
        row.fails,
      );
      if (row.results !== undefined) assert.equal(results.length, row.results);
      if (row.message) assert.match(failed[0]?.message ?? '', row.message);
    });
  }

  it('every hygiene check has at least one passing and one failing row', () => {
    for (const c of HYGIENE_CHECKS) {
      const mine = rows.filter((r) => r.check === c.id);
      assert.ok(mine.some((r) => r.fails.length === 0), `${c.id} has no passing row`);
      assert.ok(mine.some((r) => r.fails.length > 0), `${c.id} has no failing row`);
    }
  });
});
