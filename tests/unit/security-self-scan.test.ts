// The self-scan's pure rules (domain/security/self-scan.ts) at their edges: which images a scan
// takes, the Job it asks for, a scan log read back (rows as trivy v0.74.0 printed them with
// TRIVY_ROW_TEMPLATE on the offline DB), and the findings' attribution. The real trivy running
// the Job's own program against a registry is tests/integration/self-scan.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WorkloadInput } from '../../domain/security/posture.ts';
import { IMAGE_REFERENCE, parseScanLog, SCAN_SCRIPT, SELF_SCAN_MAX_IMAGES, selfScanImages, selfScanJob, selfScanOutcome, selfScanReports, trivyWords, vulnerabilityOfRow, type SelfScanJobInput } from '../../domain/security/self-scan.ts';
import { vulnFindings } from '../../domain/security/trivy-reports.ts';
import type { ContainerSecuritySpec, PodSecuritySpec } from '../../schema/security.ts';
import { selfScanConfigFromEnv } from '../../runtime/cli/expert-command.ts';

const container = (name: string, image: string): ContainerSecuritySpec => ({
  name,
  kind: 'container',
  image,
  ports: [],
  securityContext: { privileged: null, allowPrivilegeEscalation: null, runAsNonRoot: null, runAsUser: null, readOnlyRootFilesystem: null, capabilitiesAdd: [], capabilitiesDrop: [], seccompProfile: null, procMount: null, appArmorProfile: null, seLinuxType: null, windowsHostProcess: null },
  resources: { cpuRequest: true, memoryRequest: true, cpuLimit: true, memoryLimit: true },
  probes: { liveness: true, readiness: true },
  probeHosts: [],
} as unknown as ContainerSecuritySpec);
const spec = (containers: ContainerSecuritySpec[]): PodSecuritySpec => ({ hostNetwork: false, hostPID: false, hostIPC: false, os: null, securityContext: {} as PodSecuritySpec['securityContext'], serviceAccountName: 'default', automountServiceAccountToken: null, volumes: [], containers });
const workload = (namespace: string, kind: string, name: string, containers: [string, string][]): WorkloadInput => ({ namespace, kind, name, spec: spec(containers.map(([n, i]) => container(n, i))) });

const ROW_HIGH = '["CVE-2023-4911","libc6","2.36-9+deb12u2","2.36-9+deb12u3","HIGH",{"nvd":{"V3Vector":"CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H","V3Score":7.8}},"glibc: buffer overflow in ld.so\'s GLIBC_TUNABLES handling, aka Looney Tunables","https://avd.aquasec.com/nvd/cve-2023-4911"]';
const ROW_LOW_NO_FIX = '["CVE-2019-9192","libc6","2.36-9+deb12u2","","LOW",null,"glibc: uncontrolled recursion in regexec check_dst_limits_calc_pos_1, disputed","https://avd.aquasec.com/nvd/cve-2019-9192"]';
const ROW_VENDOR_SCORE = '["CVE-2025-1","openssl","3.0.1","3.0.2","CRITICAL",{"redhat":{"V3Score":9.1}},"t",""]';
const NONCE = '0123456789abcdef01234567';
const cri = (lines: string[]) => lines.map((l) => `2026-11-27T10:00:00.000000000Z stdout F ${l}`).join('\n');

describe('the images a self-scan takes', () => {
  it('each image once, in name order, only plain references', () => {
    const workloads = [
      workload('shop', 'Deployment', 'web', [['app', 'registry.local:5000/shop/web:1.0'], ['sidecar', 'busybox:1.36']]),
      workload('shop', 'Deployment', 'api', [['app', 'registry.local:5000/shop/web:1.0']]),
      workload('shop', 'Pod', 'odd', [['app', 'evil\nimage'], ['b', 'x y:1'], ['c', '']]),
    ];
    assert.deepEqual(selfScanImages(workloads), { images: ['busybox:1.36', 'registry.local:5000/shop/web:1.0'], skipped: 3 });
  });
  it(`at most ${String(SELF_SCAN_MAX_IMAGES)}; the rest are counted as skipped`, () => {
    const many = Array.from({ length: SELF_SCAN_MAX_IMAGES + 5 }, (_, i) => workload('shop', 'Pod', `p${String(i)}`, [['c', `img${String(i).padStart(3, '0')}:1`]]));
    const { images, skipped } = selfScanImages(many);
    assert.equal(images.length, SELF_SCAN_MAX_IMAGES);
    assert.equal(images[0], 'img000:1');
    assert.equal(skipped, 5);
  });
  const table: [string, boolean][] = [
    ['nginx', true],
    ['127.0.0.1:5000/shop/web:1.0', true],
    ['ghcr.io/acme/web@sha256:0123abcd', true],
    ['a/b:c@sha256:00', true],
    ['-flag', false],
    ['has space', false],
    ['new\nline', false],
    ['$(id)', false],
    ['', false],
  ];
  for (const [image, want] of table) it(`${JSON.stringify(image)} is ${want ? '' : 'not '}a plain reference`, () => assert.equal(IMAGE_REFERENCE.test(image), want));
});

describe('the scan Job', () => {
  const base: SelfScanJobInput = { name: 'capstan-scan-ab12', namespace: 'capstan', nonce: NONCE, images: ['a:1', 'b:2'], scannerImage: 'aquasec/trivy:0.74.0', resources: { requests: { cpu: '250m', memory: '256Mi' }, limits: { cpu: '1', memory: '1Gi' } }, cacheClaim: 'capstan-scan-cache', offline: false, timeoutSecs: 1800 };
  type Job = { metadata: { name: string; labels: Record<string, string> }; spec: { backoffLimit: number; activeDeadlineSeconds: number; template: { spec: { automountServiceAccountToken: boolean; securityContext: Record<string, unknown>; volumes: Record<string, unknown>[]; containers: { command: string[]; args: string[]; env: { name: string; value: string }[]; securityContext: Record<string, unknown>; resources: unknown }[] } } } };
  const job = (o: Partial<SelfScanJobInput> = {}) => selfScanJob({ ...base, ...o }) as unknown as Job;
  const env = (j: Job) => Object.fromEntries(j.spec.template.spec.containers[0]?.env.map((e) => [e.name, e.value]) ?? []);

  it('runs the script over the images as arguments, never inside the script', () => {
    const [c] = job().spec.template.spec.containers;
    assert.ok(c);
    assert.deepEqual(c.command, ['/bin/sh', '-c', SCAN_SCRIPT, 'capstan-self-scan']);
    assert.deepEqual(c.args, ['a:1', 'b:2']);
  });
  it('no retries, the deadline, no API credential, the restricted level', () => {
    const j = job();
    assert.equal(j.spec.backoffLimit, 0);
    assert.equal(j.spec.activeDeadlineSeconds, 1800);
    const pod = j.spec.template.spec;
    assert.equal(pod.automountServiceAccountToken, false);
    assert.equal(pod.securityContext.runAsNonRoot, true);
    assert.deepEqual(pod.containers[0]?.securityContext, { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
    assert.deepEqual(pod.containers[0].resources, base.resources);
  });
  it('the cache PVC when there is one, else an empty directory', () => {
    assert.deepEqual(job().spec.template.spec.volumes[0], { name: 'cache', persistentVolumeClaim: { claimName: 'capstan-scan-cache' } });
    assert.deepEqual(job({ cacheClaim: null }).spec.template.spec.volumes[0], { name: 'cache', emptyDir: {} });
  });
  it('offline adds every skip-update flag; online downloads the database into the cache', () => {
    assert.equal(env(job()).TRIVY_SKIP_DB_UPDATE, undefined);
    assert.equal(env(job()).TRIVY_CACHE_DIR, '/cache');
    const off = env(job({ offline: true }));
    for (const flag of ['TRIVY_SKIP_DB_UPDATE', 'TRIVY_SKIP_JAVA_DB_UPDATE', 'TRIVY_SKIP_CHECK_UPDATE', 'TRIVY_OFFLINE_SCAN']) assert.equal(off[flag], 'true', flag);
    assert.equal(off.CAPSTAN_SCAN_NONCE, NONCE);
  });
});

describe("a template row of trivy's output", () => {
  const table: [string, string, ReturnType<typeof vulnerabilityOfRow>][] = [
    ['a fixable HIGH with the NVD score', ROW_HIGH, { cve: 'CVE-2023-4911', pkg: 'libc6', installed: '2.36-9+deb12u2', fixed: '2.36-9+deb12u3', severity: 'HIGH', score: 7.8, title: "glibc: buffer overflow in ld.so's GLIBC_TUNABLES handling, aka Looney Tunables", link: 'https://avd.aquasec.com/nvd/cve-2023-4911' }],
    ['no fix and no CVSS', ROW_LOW_NO_FIX, { cve: 'CVE-2019-9192', pkg: 'libc6', installed: '2.36-9+deb12u2', fixed: null, severity: 'LOW', score: null, title: 'glibc: uncontrolled recursion in regexec check_dst_limits_calc_pos_1, disputed', link: 'https://avd.aquasec.com/nvd/cve-2019-9192' }],
    ["a vendor's score when NVD has none; an empty link is none", ROW_VENDOR_SCORE, { cve: 'CVE-2025-1', pkg: 'openssl', installed: '3.0.1', fixed: '3.0.2', severity: 'CRITICAL', score: 9.1, title: 't', link: null }],
    ['an unknown severity is UNKNOWN', '["CVE-1","p","1","","NEGLIGIBLE",null,"",""]', { cve: 'CVE-1', pkg: 'p', installed: '1', fixed: null, severity: 'UNKNOWN', score: null, title: '', link: null }],
    ["trivy's own log line", '2026-11-27T10:00:00Z\tWARN\tsomething', null],
    ['a broken row', '["CVE-1","p"', null],
    ['too short', '["CVE-1","p","1"]', null],
    ['an object, not a row', '{"cve":"CVE-1"}', null],
  ];
  for (const [name, line, want] of table) it(name, () => assert.deepEqual(vulnerabilityOfRow(line), want));
});

describe('the scan log read back', () => {
  const log = cri([
    `capstan-self-scan ${NONCE} begin a:1`,
    ROW_HIGH,
    ROW_LOW_NO_FIX,
    `capstan-self-scan ${NONCE} end 0`,
    `capstan-self-scan ${NONCE} begin private.example/app:2`,
    '2026-11-27T10:00:01Z\tFATAL\tFatal error\trun error: image scan error: unable to find the specified image "private.example/app:2": UNAUTHORIZED',
    `capstan-self-scan ${NONCE} end 1`,
    `capstan-self-scan ${NONCE} begin c:3`,
  ]);
  const results = parseScanLog(log, NONCE, ['a:1', 'private.example/app:2', 'c:3', 'd:4'], false);

  it("an image trivy scanned: its rows, worst first, and their counts", () => {
    const a = results[0];
    assert.ok(a?.ok);
    assert.deepEqual(a.vulnerabilities.map((v) => v.cve), ['CVE-2023-4911', 'CVE-2019-9192']);
    assert.deepEqual(a.summary, { CRITICAL: 0, HIGH: 1, MEDIUM: 0, LOW: 1, UNKNOWN: 0 });
    assert.equal(a.dropped, 0);
  });
  it("an image trivy could not scan: its exit status and words", () => {
    const b = results[1];
    assert.ok(b && !b.ok);
    assert.equal(b.message, 'trivy ended 1: run error: image scan error: unable to find the specified image "private.example/app:2": UNAUTHORIZED');
  });
  it("a long error keeps its end, where trivy names the cause", () => {
    const words = trivyWords([`2026-11-27T10:00:01Z\tFATAL\tFatal error\t${'unable to initialize: '.repeat(30)}MANIFEST_UNKNOWN: manifest unknown`]);
    assert.equal(words.length, 300);
    assert.match(words, /^….*MANIFEST_UNKNOWN: manifest unknown$/);
    assert.equal(trivyWords([]), 'no message');
  });
  it('an image begun but not ended, and one never begun, say the scan ended first', () => {
    assert.deepEqual(results.slice(2).map((r) => [r.image, r.ok, !r.ok && /ended before/.test(r.message)]), [['c:3', false, true], ['d:4', false, true]]);
  });
  it('a log cut at its limit says so', () => {
    const [r] = parseScanLog('', NONCE, ['a:1'], true);
    assert.ok(r && !r.ok && /MiB/.test(r.message));
  });
  it('marks with another nonce (printed by something in the scan) are not marks', () => {
    const forged = `capstan-self-scan ffffffffffffffffffffffff begin a:1\n${ROW_HIGH}\ncapstan-self-scan ffffffffffffffffffffffff end 0`;
    const [r] = parseScanLog(forged, NONCE, ['a:1'], false);
    assert.equal(r?.ok, false);
  });
  it('plain text lines read as well as the kubelet-format ones', () => {
    const [r] = parseScanLog([`capstan-self-scan ${NONCE} begin a:1`, ROW_HIGH, `capstan-self-scan ${NONCE} end 0`].join('\n'), NONCE, ['a:1'], false);
    assert.ok(r?.ok && r.vulnerabilities.length === 1);
  });
});

describe('the findings of a self-scan', () => {
  const workloads = [
    workload('shop', 'Deployment', 'web', [['app', 'a:1'], ['proxy', 'a:1']]),
    workload('tools', 'Pod', 'debug', [['c', 'a:1']]),
    workload('shop', 'Deployment', 'cache', [['c', 'private.example/app:2']]),
  ];
  const results = parseScanLog(cri([`capstan-self-scan ${NONCE} begin a:1`, ROW_HIGH, `capstan-self-scan ${NONCE} end 0`]), NONCE, ['a:1', 'private.example/app:2'], false);

  it('name each workload running a scanned image, once per workload, CVE, package and image', () => {
    const vulns = vulnFindings(selfScanReports(workloads, results), new Map());
    assert.deepEqual(vulns.map((v) => [v.id, v.workload_kind, v.fix_available, v.source]), [
      ['shop/Deployment/web#CVE-2023-4911:libc6:a:1', 'Deployment', true, 'trivy'],
      ['tools/Pod/debug#CVE-2023-4911:libc6:a:1', 'Pod', true, 'trivy'],
    ]);
  });
  it("the Task's words count what was scanned and name what was not", () => {
    assert.equal(selfScanOutcome(results, 2), 'Scanned 1 of 2 images. 2 more were not scanned (over 200, or not a plain image reference). Not scanned: private.example/app:2 (the scan ended before this image was scanned (its deadline, or the pod was stopped)).');
  });
});

describe("the expert pod's self-scan settings from the chart's environment", () => {
  const chart = { CAPSTAN_SELF_SCAN_IMAGE: 'docker.io/aquasec/trivy:0.74.0', CAPSTAN_EXPERT_NAMESPACE: 'capstan', CAPSTAN_SELF_SCAN_CACHE_CLAIM: 'capstan-agent-scan-cache', CAPSTAN_SELF_SCAN_RESOURCES: '{"limits":{"cpu":"1","memory":"1Gi"},"requests":{"cpu":"250m","memory":"256Mi"}}', CAPSTAN_SELF_SCAN_OFFLINE: 'false', CAPSTAN_SELF_SCAN_TIMEOUT_SECS: '1800' };
  it('reads what the chart renders', () => {
    assert.deepEqual(selfScanConfigFromEnv(chart), { namespace: 'capstan', scannerImage: 'docker.io/aquasec/trivy:0.74.0', cacheClaim: 'capstan-agent-scan-cache', resources: { requests: { cpu: '250m', memory: '256Mi' }, limits: { cpu: '1', memory: '1Gi' } }, offline: false, timeoutSecs: 1800 });
  });
  it('no image: no self-scans', () => assert.equal(selfScanConfigFromEnv({}), null));
  it('no cache claim: an empty directory', () => assert.equal(selfScanConfigFromEnv({ ...chart, CAPSTAN_SELF_SCAN_CACHE_CLAIM: '' })?.cacheClaim, null));
  const bad: [string, Record<string, string>][] = [
    ['CAPSTAN_EXPERT_NAMESPACE', { CAPSTAN_EXPERT_NAMESPACE: '' }],
    ['CAPSTAN_SELF_SCAN_CACHE_CLAIM', { CAPSTAN_SELF_SCAN_CACHE_CLAIM: 'Bad_Name' }],
    ['CAPSTAN_SELF_SCAN_RESOURCES', { CAPSTAN_SELF_SCAN_RESOURCES: '{"limits":{"gpu":"1"}}' }],
    ['CAPSTAN_SELF_SCAN_RESOURCES', { CAPSTAN_SELF_SCAN_RESOURCES: '{"limits":{"cpu":"lots"}}' }],
    ['CAPSTAN_SELF_SCAN_RESOURCES', { CAPSTAN_SELF_SCAN_RESOURCES: 'not json' }],
    ['CAPSTAN_SELF_SCAN_OFFLINE', { CAPSTAN_SELF_SCAN_OFFLINE: 'yes' }],
    ['CAPSTAN_SELF_SCAN_TIMEOUT_SECS', { CAPSTAN_SELF_SCAN_TIMEOUT_SECS: '59' }],
    ['CAPSTAN_SELF_SCAN_TIMEOUT_SECS', { CAPSTAN_SELF_SCAN_TIMEOUT_SECS: '7201' }],
    ['CAPSTAN_SELF_SCAN_TIMEOUT_SECS', { CAPSTAN_SELF_SCAN_TIMEOUT_SECS: '1.5' }],
  ];
  for (const [name, change] of bad) it(`${JSON.stringify(change)} stops the pod, naming ${name}`, () => assert.throws(() => selfScanConfigFromEnv({ ...chart, ...change }), new RegExp(name)));
});
