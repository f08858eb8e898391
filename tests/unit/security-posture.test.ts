// The posture formula and `evaluate`, table by table: Polaris' score and grade (with the
// examples from Polaris' own tests), the grade floors just below and at each bound, and
// whole workloads: a restricted-compliant one that yields no PSS finding, a deliberately
// bad one that trips every check, and the per-namespace and top-failing summaries.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as v from 'valibot';
import { CHECKS } from '../../domain/security/checks/index.ts';
import { podSecuritySpec } from '../../domain/security/pod-spec.ts';
import { evaluate, polarisGrade, polarisScore, TOP_FAILING_CHECKS, type WorkloadInput } from '../../domain/security/posture.ts';
import { MisconfigFinding, Posture, type CheckCounts, type Grade } from '../../schema/security.ts';

describe('polarisScore and polarisGrade', () => {
  const rows: { name: string; counts: CheckCounts; score: number; grade: Grade }[] = [
    { name: 'nothing checked: 100, as Polaris answers', counts: { passed: 0, warnings: 0, dangers: 0 }, score: 100, grade: 'A+' },
    { name: 'all pass', counts: { passed: 57, warnings: 0, dangers: 0 }, score: 100, grade: 'A+' },
    { name: "Polaris' helpers_test TestGetGrade: 10 passed, 3 warnings, 1 danger → 80, B-", counts: { passed: 10, warnings: 3, dangers: 1 }, score: 80, grade: 'B-' },
    { name: "Polaris' fullaudit_test: 0 passed, 3 warnings, 3 dangers → 0", counts: { passed: 0, warnings: 3, dangers: 3 }, score: 0, grade: 'F' },
    { name: 'a danger weighs twice a warning: 1 passed, 1 warning → 66', counts: { passed: 1, warnings: 1, dangers: 0 }, score: 66, grade: 'D' },
    { name: '1 passed, 1 danger → 50', counts: { passed: 1, warnings: 0, dangers: 1 }, score: 50, grade: 'F' },
    { name: 'floor, not round: 9 passed, 1 warning → 94.7 → 94', counts: { passed: 9, warnings: 1, dangers: 0 }, score: 94, grade: 'A' },
    { name: 'exact integer division where Polaris\' float truncation says 57: 29 passed, 42 warnings → 58', counts: { passed: 29, warnings: 42, dangers: 0 }, score: 58, grade: 'F' },
    { name: 'only failures → 0', counts: { passed: 0, warnings: 1, dangers: 0 }, score: 0, grade: 'F' },
  ];
  for (const row of rows) {
    it(row.name, () => {
      assert.equal(polarisScore(row.counts), row.score);
      assert.equal(polarisGrade(row.score), row.grade);
    });
  }

  const floors: [number, Grade][] = [
    [100, 'A+'], [97, 'A+'], [96, 'A'], [93, 'A'], [92, 'A-'], [90, 'A-'], [89, 'B+'], [87, 'B+'], [86, 'B'], [83, 'B'], [82, 'B-'], [80, 'B-'],
    [79, 'C+'], [77, 'C+'], [76, 'C'], [73, 'C'], [72, 'C-'], [70, 'C-'], [69, 'D+'], [67, 'D+'], [66, 'D'], [63, 'D'], [62, 'D-'], [60, 'D-'], [59, 'F'], [0, 'F'],
  ];
  for (const [score, grade] of floors) it(`grade of ${score} is ${grade}`, () => assert.equal(polarisGrade(score), grade));
});

const DIGEST = '@sha256:4f5e6d7c8b9a0f1e2d3c4b5a69788796a5b4c3d2e1f00112233445566778899a';
const restricted = { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } };
const resources = { requests: { cpu: '100m', memory: '64Mi' }, limits: { memory: '128Mi' } };
const probe = { httpGet: { path: '/healthz', port: 8080 } };

/** Restricted-compliant and hygienic: nothing any check can object to. */
const GOOD = {
  serviceAccountName: 'web',
  securityContext: { runAsNonRoot: true, runAsUser: 10001, seccompProfile: { type: 'RuntimeDefault' } },
  volumes: [{ name: 'tmp', emptyDir: {} }, { name: 'cfg', configMap: { name: 'web' } }, { name: 'data', persistentVolumeClaim: { claimName: 'web' } }],
  initContainers: [{ name: 'migrate', image: `example/migrate:1.0${DIGEST}`, securityContext: restricted, resources }],
  containers: [
    {
      name: 'app',
      image: `example/web:1.4${DIGEST}`,
      ports: [{ containerPort: 8080 }],
      securityContext: { ...restricted, capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] }, readOnlyRootFilesystem: true },
      resources,
      livenessProbe: probe,
      readinessProbe: probe,
      env: [{ name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } }, { name: 'LOG_LEVEL', value: 'info' }],
    },
  ],
};

/** Restricted-compliant, and nothing else: no requests, no probes, latest, default ServiceAccount. */
const RESTRICTED_ONLY = {
  securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
  containers: [{ name: 'app', image: 'example/web:latest', securityContext: restricted }],
};

/** Trips every built-in check at least once. */
const BAD = {
  hostNetwork: true,
  hostPID: true,
  hostIPC: true,
  securityContext: {
    runAsNonRoot: false,
    runAsUser: 0,
    seccompProfile: { type: 'Unconfined' },
    appArmorProfile: { type: 'Unconfined' },
    seLinuxOptions: { type: 'spc_t', user: 'system_u' },
    sysctls: [{ name: 'kernel.msgmax', value: '65536' }],
    windowsOptions: { hostProcess: true },
  },
  volumes: [{ name: 'root', hostPath: { path: '/' } }],
  containers: [
    {
      name: 'app',
      image: 'nginx',
      ports: [{ containerPort: 80, hostPort: 80 }],
      securityContext: { privileged: true, allowPrivilegeEscalation: true, capabilities: { add: ['SYS_ADMIN'] }, procMount: 'Unmasked' },
      lifecycle: { postStart: { httpGet: { port: 80, host: '169.254.169.254' } } },
      env: [{ name: 'API_TOKEN', value: 'not-a-real-token' }],
    },
  ],
};

const wl = (namespace: string, name: string, pod: unknown, kind = 'Deployment'): WorkloadInput => ({ kind, namespace, name, spec: podSecuritySpec(pod) });
const pssIds = CHECKS.filter((c) => c.family !== 'hygiene').map((c) => c.id);

describe('evaluate', () => {
  it('a restricted-compliant, hygienic workload: no finding, 100, A+', () => {
    const { findings, posture } = evaluate([wl('shop', 'web', GOOD)]);
    assert.deepEqual(findings, []);
    assert.deepEqual([posture.score, posture.grade, posture.workloads_covered], [100, 'A+', 1]);
    assert.equal(posture.checks.warnings + posture.checks.dangers, 0);
    assert.ok(posture.checks.passed > CHECKS.length, 'per-container checks count once per container');
  });

  it('a restricted-compliant pod yields zero Pod Security Standards findings, whatever its hygiene', () => {
    const { findings } = evaluate([wl('shop', 'web', RESTRICTED_ONLY)]);
    assert.deepEqual(findings.filter((f) => pssIds.includes(f.check_id)), []);
    assert.ok(findings.some((f) => f.check_id === 'hygiene-image-latest'));
  });

  it('a deliberately bad pod trips every check', () => {
    const { findings, posture } = evaluate([wl('shop', 'bad', BAD)]);
    const tripped = new Set(findings.map((f) => f.check_id));
    assert.deepEqual(CHECKS.map((c) => c.id).filter((id) => !tripped.has(id)), []);
    assert.equal(posture.grade, 'F');
    assert.ok(posture.by_severity.CRITICAL > 0 && posture.by_severity.HIGH > 0 && posture.by_severity.MEDIUM > 0 && posture.by_severity.LOW > 0);
  });

  it('every finding fits the schema, carries source capstan and the check\'s remediation, and has a unique id', () => {
    const { findings } = evaluate([wl('shop', 'bad', BAD), wl('shop', 'web', RESTRICTED_ONLY, 'StatefulSet')]);
    for (const f of findings) {
      v.parse(MisconfigFinding, f);
      assert.equal(f.source, 'capstan');
      assert.equal(f.remediation, CHECKS.find((c) => c.id === f.check_id)?.remediation);
    }
    assert.equal(new Set(findings.map((f) => f.id)).size, findings.length);
    const hostNs = findings.find((f) => f.check_id === 'pss-baseline-host-namespaces');
    assert.deepEqual(
      hostNs && { id: hostNs.id, resource: hostNs.resource, container: hostNs.container, workload: hostNs.workload, workload_kind: hostNs.workload_kind },
      { id: 'shop/Deployment/bad#pss-baseline-host-namespaces', resource: 'Deployment/bad', container: null, workload: 'bad', workload_kind: 'Deployment' },
    );
    const privileged = findings.find((f) => f.check_id === 'pss-baseline-privileged');
    assert.deepEqual(privileged && [privileged.id, privileged.container, privileged.message], ['shop/Deployment/bad#pss-baseline-privileged:app', 'app', 'container "app" sets securityContext.privileged=true']);
  });

  it('findings come severity first, then namespace, resource, check', () => {
    const { findings } = evaluate([wl('b', 'x', BAD), wl('a', 'y', BAD)]);
    const rank = { CRITICAL: 0, HIGH: 1, MEDIUM: 2, LOW: 3, UNKNOWN: 4 };
    for (let i = 1; i < findings.length; i++) {
      const [a, b] = [findings[i - 1], findings[i]];
      assert.ok(a && b);
      assert.ok(rank[a.severity] < rank[b.severity] || (rank[a.severity] === rank[b.severity] && `${a.namespace} ${a.resource} ${a.check_id}` <= `${b.namespace} ${b.resource} ${b.check_id}`), `${a.id} before ${b.id}`);
    }
  });

  it('the posture adds up: by_severity counts the findings, the score is the formula over the counts', () => {
    const { findings, posture } = evaluate([wl('shop', 'bad', BAD), wl('shop', 'web', GOOD), wl('ops', 'batch', RESTRICTED_ONLY, 'Job')]);
    v.parse(Posture, posture);
    const bySeverity = { CRITICAL: 0, HIGH: 0, MEDIUM: 0, LOW: 0, UNKNOWN: 0 };
    for (const f of findings) bySeverity[f.severity]++;
    assert.deepEqual(posture.by_severity, bySeverity);
    assert.equal(posture.checks.dangers, bySeverity.CRITICAL + bySeverity.HIGH);
    assert.equal(posture.checks.warnings, bySeverity.MEDIUM + bySeverity.LOW + bySeverity.UNKNOWN);
    assert.equal(posture.score, polarisScore(posture.checks));
    assert.equal(posture.grade, polarisGrade(posture.score));
    assert.equal(posture.workloads_covered, 3);
  });

  it('per namespace: worst score first, each namespace its own counts, summing to the cluster', () => {
    const { posture } = evaluate([wl('zeta', 'web', GOOD), wl('alpha', 'web', GOOD), wl('shop', 'bad', BAD), wl('shop', 'web', GOOD)]);
    assert.deepEqual(posture.namespaces.map((n) => [n.namespace, n.grade, n.workloads_covered]), [['shop', 'C', 2], ['alpha', 'A+', 1], ['zeta', 'A+', 1]]);
    const shop = posture.namespaces[0];
    assert.ok(shop && shop.score < 100);
    const sum = posture.namespaces.reduce((acc, n) => ({ passed: acc.passed + n.checks.passed, warnings: acc.warnings + n.checks.warnings, dangers: acc.dangers + n.checks.dangers }), { passed: 0, warnings: 0, dangers: 0 });
    assert.deepEqual(sum, posture.checks);
    assert.deepEqual(posture.namespaces[1]?.top_failing_checks, []);
  });

  it('top failing checks: most workloads first, then severity; capped', () => {
    const workloads = [wl('shop', 'a', RESTRICTED_ONLY), wl('shop', 'b', RESTRICTED_ONLY), wl('shop', 'bad', BAD)];
    const { posture } = evaluate(workloads);
    const top = posture.top_failing_checks;
    assert.equal(top.length, TOP_FAILING_CHECKS);
    assert.equal(top[0]?.workloads, 3);
    const rank = { CRITICAL: 0, HIGH: 1, MEDIUM: 2, LOW: 3, UNKNOWN: 4 };
    for (let i = 1; i < top.length; i++) {
      const [a, b] = [top[i - 1], top[i]];
      assert.ok(a && b);
      assert.ok(a.workloads > b.workloads || (a.workloads === b.workloads && rank[a.severity] <= rank[b.severity]), `${a.check_id} before ${b.check_id}`);
    }
    const latest = top.find((t) => t.check_id === 'hygiene-image-latest');
    assert.deepEqual(latest && [latest.failures, latest.workloads, latest.title], [3, 3, 'Image tag latest or missing']);
  });

  it('no workloads: nothing checked, 100 and A+ as Polaris answers, and workloads_covered 0 says why', () => {
    const { findings, posture } = evaluate([]);
    assert.deepEqual(findings, []);
    assert.deepEqual([posture.score, posture.grade, posture.workloads_covered, posture.namespaces], [100, 'A+', 0, []]);
  });

  it('a Job is not judged for probes, a Deployment of the same spec is', () => {
    const pod = { containers: [{ name: 'app', image: 'x:1' }] };
    const ids = (kind: string) => evaluate([wl('ns', 'w', pod, kind)]).findings.map((f) => f.check_id);
    assert.ok(!ids('Job').includes('hygiene-liveness-probe-missing'));
    assert.ok(ids('Deployment').includes('hygiene-liveness-probe-missing'));
  });
});
