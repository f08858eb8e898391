// The built-in self-scan on the real control plane (issue 29, item 6): POST /security/scan in
// `self` mode asks the expert pod (`capstan expert`, the real process, cluster-admin through its
// own ServiceAccount) to run the trivy Job; the API server creates its pod at the restricted Pod
// Security level with the cache PVC bound. KWOK runs no containers, so this test is the pod's
// kubelet: it runs the pod's own program (its command, arguments and environment, the volumes
// mapped to directories) with the real trivy against a real registry (Debian's docker-registry)
// on the offline DB, writes the output where KWOK serves the container's log, and lets KWOK end
// the pod. The expert reads the log through the API server and the agent stores the findings.
// The expert's self-scan settings and the cache PVC are the chart's own, rendered.
// test-plan: shares-cluster
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { RunningAgent } from '../../runtime/agent.ts';
import { auditLogPath } from '../../dev/localcluster/cluster.ts';
import { agentSession, signInAs } from '../support/agent-session.ts';
import { get, render } from '../support/chart-render.ts';
import { k, startTestAgent, testCluster, waitFor } from '../support/cluster.ts';
import { SELF_SCAN_NAMESPACE, writeScanLog } from '../support/cluster-logs.ts';
import { provisionExpert, type ProvisionedExpert } from '../support/expert.ts';
import { testIssuer } from '../support/license-keys.ts';
import { startRegistry, type RunningRegistry } from '../support/registry.ts';
import { FIXTURE_VULN_ROWS } from '../support/trivy-fixture.ts';
import { trivyScanner } from '../support/trivy-reports.ts';

const run = promisify(execFile);
const SYS = SELF_SCAN_NAMESPACE;
const APPS = 'it-self-scan-apps';
const PASSWORD = 'self-scan-admin-password';
/** The chart's cache PVC (security.scanning.selfScan.cache). */
const CACHE_CLAIM = 'capstan-agent-scan-cache';
const issuer = testIssuer();

let registry: RunningRegistry;
let provisioned: ProvisionedExpert;
let agent: RunningAgent;
let cookie = '';
let webImage = '';
let missingImage = '';
const { call, taskEnded } = agentSession(() => ({ url: agent.url, cookie }));

const deployment = (name: string, image: string) =>
  JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: APPS },
    spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image }] } } },
  });

interface PodSpec {
  metadata: { name: string };
  status: { phase?: string };
  spec: { containers: { name: string; command: string[]; args: string[]; env: { name: string; value: string }[]; volumeMounts: { name: string; mountPath: string }[] }[]; volumes: { name: string; persistentVolumeClaim?: { claimName: string } }[] };
}

/**
 * What the kubelet would do with the scan pod: run its container's program with its environment.
 * The volumes become directories (the cache holds a copy of the offline DB, as the PVC would
 * after an earlier scan); trivy is on PATH; a dead proxy keeps everything but loopback away.
 */
async function runScanPod(pod: PodSpec): Promise<string> {
  const c = pod.spec.containers[0];
  assert.ok(c && c.command[0] === '/bin/sh', 'the scan container runs its program through sh');
  const { trivy, db } = await trivyScanner();
  const cache = mkdtempSync(join(tmpdir(), 'capstan-scan-cache-'));
  cpSync(join(db, 'cache'), cache, { recursive: true });
  const scratch = mkdtempSync(join(tmpdir(), 'capstan-scan-tmp-'));
  const mounts: Record<string, string> = { '/cache': cache, '/tmp': scratch };
  assert.deepEqual(c.volumeMounts.map((m) => m.mountPath).sort(), Object.keys(mounts).sort(), 'only the cache and /tmp are mounted');
  const env: Record<string, string> = { PATH: `${dirname(trivy)}:/usr/bin:/bin`, HTTPS_PROXY: 'http://127.0.0.1:9', HTTP_PROXY: 'http://127.0.0.1:9' };
  for (const { name, value } of c.env) env[name] = mounts[value] ?? value;
  const child = spawn(c.command[0], [...c.command.slice(1), ...c.args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  // The container's log is stdout and stderr as they come.
  let log = '';
  child.stdout.on('data', (b: Buffer) => (log += b.toString()));
  child.stderr.on('data', (b: Buffer) => (log += b.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.equal(code, 0, `the scan program ends 0 whatever trivy says of one image: ${log}`);
  return log;
}

describe('self-scan: trivy in a Job through the expert pod', () => {
  before(async () => {
    registry = await startRegistry(null);
    webImage = `${registry.host}/shop/web:1.0`;
    missingImage = `${registry.host}/shop/missing:1`;
    const { db } = await trivyScanner();
    await run(join(testCluster().binDir, 'crane'), ['push', join(db, 'bookworm-before-fixes'), webImage]);
    await k(['create', 'namespace', APPS]);
    await k(['apply', '-f', '-'], deployment('web', webImage));
    await k(['apply', '-f', '-'], deployment('gone', missingImage));
    // The expert pod's self-scan settings exactly as the chart renders them for this namespace
    // (an air-gapped install: offline, the database already in the cache), and the chart's PVC,
    // bound here to a volume made for it (KWOK's cluster has no provisioner).
    const rendered = await render({ expertMode: { enabled: true }, security: { scanning: { selfScan: { offline: true, timeoutSecs: 300 } } } }, [], { namespace: SYS });
    const expert = (get(rendered, 'Deployment', 'capstan-expert-exec', SYS) as unknown as { spec: { template: { spec: { containers: { name: string; env?: { name: string; value?: string }[] }[] } } } }).spec.template.spec.containers.find((c) => c.name === 'expert');
    const env = Object.fromEntries((expert?.env ?? []).filter((e) => /^CAPSTAN_(SELF_SCAN_|EXPERT_NAMESPACE$)/.test(e.name)).map((e) => [e.name, e.value ?? '']));
    assert.deepEqual(Object.keys(env).sort(), ['CAPSTAN_EXPERT_NAMESPACE', 'CAPSTAN_SELF_SCAN_CACHE_CLAIM', 'CAPSTAN_SELF_SCAN_IMAGE', 'CAPSTAN_SELF_SCAN_OFFLINE', 'CAPSTAN_SELF_SCAN_RESOURCES', 'CAPSTAN_SELF_SCAN_TIMEOUT_SECS']);
    assert.equal(env.CAPSTAN_SELF_SCAN_CACHE_CLAIM, CACHE_CLAIM);
    provisioned = await provisionExpert(SYS, { env });
    await k(['label', 'namespace', SYS, 'pod-security.kubernetes.io/enforce=restricted']);
    await k(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: `${SYS}-cache` }, spec: { capacity: { storage: '2Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: '', hostPath: { path: mkdtempSync(join(tmpdir(), 'capstan-pv-')) }, claimRef: { namespace: SYS, name: CACHE_CLAIM } } }));
    await k(['apply', '-f', '-'], JSON.stringify(get(rendered, 'PersistentVolumeClaim', CACHE_CLAIM, SYS)));
    agent = await startTestAgent('self-scan', {
      accounts: { adminPassword: PASSWORD },
      expert: { url: provisioned.expert.url, tokenFile: provisioned.tokenFile },
      watchScope: 'namespaces',
      settings: { tenantNamespaces: [APPS] },
      license: { publicKeyPem: issuer.publicKeyPem },
    });
    cookie = await signInAs(agent.url, 'admin', PASSWORD);
  });
  after(async () => {
    await agent.close();
    await provisioned.remove();
    await registry.close();
    await k(['delete', 'namespace', APPS, '--wait=false']);
    await k(['delete', 'persistentvolume', `${SYS}-cache`, '--wait=false', '--ignore-not-found']);
  });

  it('is refused as before until the license and both halves of expert mode are there', async () => {
    assert.equal((await call('PUT', '/admin/settings/scanning', { scanner_source: 'self' })).status, 200);
    const free = await call('POST', '/security/scan', {});
    assert.deepEqual([free.status, free.body.error], [402, 'feature_not_licensed']);
    assert.equal((await call('PUT', '/admin/license', { key: issuer.key({ id: 'lic_self_scan', tier: 'pro', licensee: 'Self-scan test' }) })).status, 200);
    const off = await call('POST', '/security/scan', {});
    assert.deepEqual([off.status, off.body.error], [403, 'forbidden']);
    assert.match(String(off.body.message), /expert mode/);
    assert.equal((await call('PUT', '/admin/expert-mode', { enabled: true })).status, 200);
    const settings = await call('GET', '/admin/settings/scanning');
    assert.deepEqual((settings.body.effective as { source: string; self_scan: { allowed: boolean } }).self_scan.allowed, true);
  });

  it("scans the workloads' images in a Job the expert made, and stores what trivy found", async () => {
    const started = await call('POST', '/security/scan', {});
    assert.equal(started.status, 200, JSON.stringify(started.body));
    assert.deepEqual([started.body.source, started.body.started], ['self', true]);
    const jobName = String(started.body.job_name);
    const id = String(started.body.id);

    // The Job's pod, admitted at the restricted level and scheduled with the PVC bound.
    let pod: PodSpec | undefined;
    await waitFor(
      'the scan pod to run',
      async () => {
        const list = JSON.parse(await k(['get', 'pods', '-n', SYS, '-l', `capstan.dev/scan=${jobName}`, '-o', 'json'])) as { items: PodSpec[] };
        pod = list.items[0];
        return pod?.status.phase === 'Running';
      },
      60_000,
      500,
    );
    assert.ok(pod);
    assert.deepEqual(pod.spec.volumes.find((v) => v.name === 'cache')?.persistentVolumeClaim, { claimName: CACHE_CLAIM });
    assert.deepEqual(pod.spec.containers[0]?.args, [missingImage, webImage], 'the images of the workloads the agent sees, in name order');
    // While it runs, a read answers at once that it runs.
    const running = await call('GET', `/security/scan/${id}`);
    assert.equal(running.body.status, 'running');

    writeScanLog(testCluster().dir, await runScanPod(pod));
    await k(['annotate', 'pod', '-n', SYS, pod.metadata.name, 'sim.capstan.dev/complete=true']);

    const task = await taskEnded(`security_scan:${id}`);
    assert.equal(task.state, 'finished', JSON.stringify(task));
    assert.match(task.detail, /^Scanned 1 of 2 images\./);
    assert.match(task.detail, new RegExp(`${missingImage.replace(/[.]/g, '\\.')} \\(trivy ended 1: .*MANIFEST_UNKNOWN`));

    const scan = await call('GET', `/security/scan/${id}`);
    assert.equal(scan.body.status, 'succeeded', JSON.stringify(scan.body));
    const summary = scan.body.summary as { vulns: number; by_severity: Record<string, number> };
    assert.equal(summary.vulns, FIXTURE_VULN_ROWS.length, "one finding per CVE and package of web's image");
    assert.ok((summary.by_severity.HIGH ?? 0) >= 1, "web's image has a fixable HIGH: its result fails at HIGH");

    // The expert made the Job with its own account and removed it afterwards.
    const creators = readFileSync(auditLogPath(testCluster().dir), 'utf8')
      .split('\n')
      .filter((l) => l.includes(jobName))
      .map((l) => JSON.parse(l) as { verb: string; user: { username: string }; objectRef?: { resource?: string; name?: string } })
      .filter((e) => e.objectRef?.resource === 'jobs' && e.objectRef.name !== undefined && ['create', 'delete'].includes(e.verb));
    assert.deepEqual([...new Set(creators.map((e) => `${e.verb} ${e.user.username}`))].sort(), [`create ${provisioned.expertUser}`, `delete ${provisioned.expertUser}`]);
    await waitFor('the Job to be gone', async () => (await k(['get', 'jobs', '-n', SYS, '-o', 'name'])).trim() === '', 30_000, 500);
  });

  it('the expert pod refuses a request that is not a plain list of images, and any caller but the agent', async () => {
    const post = async (body: unknown, token?: string) => {
      const res = await fetch(`${provisioned.expert.url}/self-scan`, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const agentToken = readFileSync(provisioned.tokenFile, 'utf8').trim();
    assert.equal((await post({ job_name: 'capstan-scan-x', images: ['a:1'] })).status, 401);
    assert.equal((await post({ job_name: 'capstan-scan-x', images: ['a:1'] }, await provisioned.token('intruder', 'capstan-expert'))).status, 401);
    const injected = await post({ job_name: 'capstan-scan-x', images: ['a:1; rm -rf /'] }, agentToken);
    assert.deepEqual([injected.status, injected.body.error, injected.body.field], [400, 'invalid_input', 'images.0']);
    const extra = await post({ job_name: 'Not A Label', images: ['a:1'] }, agentToken);
    assert.deepEqual([extra.status, extra.body.field], [400, 'job_name']);
    assert.equal((await k(['get', 'jobs', '-n', SYS, '-o', 'name'])).trim(), '', 'nothing was created');
  });
});
