// trivy-operator in the tests' control plane, without the operator: its two report CRDs
// (tests/fixtures/trivy-operator/crds, v0.29.0), and its reports made from the real trivy
// binary's JSON on the offline DB (docs/trivy-offline.md) by dev/trivy-reports.ts.
// trivy's JSON is cached per input (the DB's generator hash, the command, the input's bytes)
// under $CAPSTAN_CACHE_DIR/trivy-json, so a warm run does not scan again. Never the network:
// every scan runs with trivy's offline flags and a dead proxy.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { configAuditReport, vulnerabilityReport, type ReportOwner, type TrivyConfigReport, type TrivyImageReport } from '../../dev/trivy-reports.ts';
import { waitForCrdsEstablished } from '../../dev/localcluster/kubectl.ts';
import { k, waitFor } from './cluster.ts';

const run = promisify(execFile);
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const CRD_DIR = join(ROOT, 'tests/fixtures/trivy-operator/crds');
export const CRDS = ['vulnerabilityreports.aquasecurity.github.io', 'configauditreports.aquasecurity.github.io'];

/** Applies trivy-operator's two report CRDs and waits until the API server serves them. */
export async function installTrivyOperatorCrds(): Promise<void> {
  await k(['apply', '--server-side', '-f', CRD_DIR]);
  await waitForCrdsEstablished(k, CRDS);
  // Established can precede the discovery cache by a moment: a LIST answering is the proof.
  await waitFor('the report CRDs served', () => k(['get', 'vulnerabilityreports,configauditreports', '-A']).then(() => true, () => false), 30_000, 250);
}

export async function uninstallTrivyOperatorCrds(): Promise<void> {
  await k(['delete', 'crd', ...CRDS, '--ignore-not-found', '--wait=true']);
}

interface Scanner {
  trivy: string;
  /** The offline DB's directory: cache/ for --cache-dir, bookworm-before-fixes/ the OCI layout its advisories hit. */
  db: string;
}

let scanner: Promise<Scanner> | null = null;

/** trivy and the offline DB, built once into the cache (scripts/build-trivy.sh; instant when built). */
export function trivyScanner(): Promise<Scanner> {
  scanner ??= (async () => {
    const lastLine = (out: string) => out.trim().split('\n').pop() ?? '';
    const db = lastLine((await run('bash', [join(ROOT, 'scripts/build-trivy.sh'), 'db'], { maxBuffer: 1 << 20 })).stdout);
    const trivy = process.env.CAPSTAN_TRIVY_BIN || lastLine((await run('bash', [join(ROOT, 'scripts/build-trivy.sh')], { maxBuffer: 1 << 20 })).stdout);
    return { trivy, db };
  })();
  return scanner;
}

const OFFLINE = ['--skip-version-check', '--disable-telemetry', '--quiet', '--format', 'json'];

/** trivy's JSON for `args` over `input`, from the cache when `key` was scanned before. */
async function cachedScan(key: string, args: (output: string) => string[]): Promise<unknown> {
  const { trivy } = await trivyScanner();
  const dir = join(process.env.CAPSTAN_CACHE_DIR ?? join(homedir(), '.cache/capstan'), 'trivy-json');
  const file = join(dir, `${createHash('sha256').update(key).digest('hex').slice(0, 24)}.json`);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    const partial = `${file}.${process.pid}.partial`;
    // A forgotten offline flag fails here instead of reaching out.
    await run(trivy, args(partial), { env: { ...process.env, HTTPS_PROXY: 'http://127.0.0.1:9', HTTP_PROXY: 'http://127.0.0.1:9', NO_PROXY: '' }, maxBuffer: 16 << 20 }).catch((err: unknown) => {
      const stderr = typeof err === 'object' && err !== null && 'stderr' in err && typeof err.stderr === 'string' ? err.stderr.trim() : err instanceof Error ? err.message : 'unknown error';
      throw new Error(`trivy ${key.split(' ')[0] ?? ''} failed: ${stderr}`);
    });
    renameSync(partial, file);
  }
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** `trivy image --input` on the offline DB's bookworm-before-fixes layout (9 findings: docs/trivy-offline.md). */
export async function scanFixtureImage(): Promise<TrivyImageReport> {
  const { db } = await trivyScanner();
  const layout = join(db, 'bookworm-before-fixes');
  // The DB directory's name is the hash of the generator's inputs, layout included.
  return (await cachedScan(`image v0.74.0 ${db}`, (out) => ['image', '--input', layout, '--cache-dir', join(db, 'cache'), '--skip-db-update', '--skip-java-db-update', '--skip-check-update', '--offline-scan', '--scanners', 'vuln', '--no-progress', ...OFFLINE, '--output', out])) as TrivyImageReport;
}

/** `trivy config --include-non-failures` on one manifest (passes included, as the operator's report lists them). */
export async function scanManifest(manifest: string): Promise<TrivyConfigReport> {
  const { db } = await trivyScanner();
  return (await cachedScan(`config v0.74.0 ${manifest}`, (out) => {
    const dir = mkdtempSync(join(tmpdir(), 'capstan-trivy-config-'));
    const path = join(dir, 'manifest.json');
    writeFileSync(path, manifest);
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    return ['config', '--cache-dir', join(db, 'cache'), '--skip-check-update', '--include-non-failures', ...OFFLINE, '--output', out, path];
  })) as TrivyConfigReport;
}

interface LiveObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string; uid: string; labels?: Record<string, string> };
  spec: { template?: { spec?: unknown } };
}

/** A workload as it is in the cluster, for a report's owner and for `trivy config`. */
export async function liveOwner(kind: string, namespace: string, name: string): Promise<{ owner: ReportOwner; manifest: string }> {
  const o = JSON.parse(await k(['get', kind, name, '-n', namespace, '-o', 'json'])) as LiveObject;
  const owner: ReportOwner = { apiVersion: o.apiVersion, kind: o.kind, namespace, name, uid: o.metadata.uid, podSpec: o.spec.template?.spec };
  // What trivy reads: the object without server-set fields, so the same spec scans (and caches) alike.
  const manifest = JSON.stringify({ apiVersion: o.apiVersion, kind: o.kind, metadata: { name, namespace, ...(o.metadata.labels ? { labels: o.metadata.labels } : {}) }, spec: o.spec });
  return { owner, manifest };
}

/** The ReplicaSet trivy-operator would scan for a Deployment: its newest (the Deployment's current revision). */
export async function currentReplicaSet(namespace: string, deployment: string): Promise<string> {
  let name = '';
  await waitFor(`a ReplicaSet of ${namespace}/${deployment}`, async () => {
    const list = JSON.parse(await k(['get', 'replicasets', '-n', namespace, '-o', 'json'])) as { items: { metadata: { name: string; annotations?: Record<string, string>; ownerReferences?: { kind: string; name: string }[] } }[] };
    const owned = list.items.filter((rs) => rs.metadata.ownerReferences?.some((r) => r.kind === 'Deployment' && r.name === deployment));
    owned.sort((a, b) => Number(b.metadata.annotations?.['deployment.kubernetes.io/revision'] ?? 0) - Number(a.metadata.annotations?.['deployment.kubernetes.io/revision'] ?? 0));
    name = owned[0]?.metadata.name ?? '';
    return name !== '';
  }, 30_000, 250);
  return name;
}

/**
 * What trivy-operator writes for one scanned object: a VulnerabilityReport per container (each
 * scanned as the fixture image, whatever it names) and a ConfigAuditReport, applied.
 */
export async function applyOperatorReports(kind: string, namespace: string, name: string, containers: readonly { name: string; image: string }[], failedOnly = true): Promise<{ vuln: object[]; audit: object }> {
  const { owner, manifest } = await liveOwner(kind, namespace, name);
  const image = await scanFixtureImage();
  const config = await scanManifest(manifest);
  const now = new Date();
  const vuln = containers.map((c) => vulnerabilityReport(image, owner, c.name, c.image, now));
  const audit = configAuditReport(config, owner, now, failedOnly);
  await k(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [...vuln, audit] }));
  return { vuln, audit };
}
