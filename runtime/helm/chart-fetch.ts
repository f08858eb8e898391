// A chart package fetched by the agent, through the one outbound client (pinned resolution, no
// redirects, refused ranges, size cap, timeout), from a chart repository (its index.yaml names
// the package's URL and SHA-256 digest, checked before the package goes to the expert pod) or
// an OCI registry (./oci-pull.ts), with a saved config's credentials when the source names one.
// The expert pod itself never fetches anything from outside the cluster.
import { createHash } from 'node:crypto';
import { CHART_PACKAGE_MAX_BYTES } from '../../schema/expert.ts';
import type { ChartSource } from '../../schema/helm.ts';
import type { OutboundClient } from '../outbound/client.ts';
import type { ConfigCredentials } from './config-store.ts';
import { parseIndexEntries, type IndexEntry } from './index-parse.ts';
import { pullOciChart } from './oci-pull.ts';

/** A repository's index can be large (every version of every chart it serves). */
const INDEX_MAX_BYTES = 32 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 30_000;

export type FetchedChart = { ok: true; name: string; version: string; packageBase64: string } | { ok: false; field: string; message: string };

/** Where a source points, with the credentials of the saved config it names (looked up by the caller). */
export type ResolvedSource = { name: string; version?: string } & ConfigCredentials & { field: string };

/** The source's location and credentials: its own URL, or its saved config's; null when the config is gone. */
export async function resolveSource(source: ChartSource, credentialsOf: (id: number) => Promise<ConfigCredentials | null>): Promise<ResolvedSource | null> {
  if (source.config_id !== undefined) {
    const saved = await credentialsOf(source.config_id);
    return saved === null ? null : { ...saved, name: source.name, ...(source.version === undefined ? {} : { version: source.version }), field: 'chart.config_id' };
  }
  const url = source.repo_url ?? source.oci_url ?? '';
  return { url, username: null, password: null, plainHttp: source.plain_http, name: source.name, ...(source.version === undefined ? {} : { version: source.version }), field: source.repo_url !== undefined ? 'chart.repo_url' : 'chart.oci_url' };
}

export async function fetchChart(outbound: OutboundClient, source: ResolvedSource): Promise<FetchedChart> {
  if (source.url.startsWith('oci://')) {
    if (source.version === undefined) return { ok: false, field: 'chart.version', message: 'a chart from an OCI registry needs its version' };
    const pulled = await pullOciChart(outbound, { url: source.url, name: source.name, version: source.version, plainHttp: source.plainHttp, username: source.username, password: source.password });
    return pulled.ok ? { ok: true, name: source.name, version: source.version, packageBase64: pulled.bytes.toString('base64') } : { ok: false, field: source.field, message: pulled.message };
  }
  return fetchFromRepository(outbound, source);
}

async function fetchFromRepository(outbound: OutboundClient, source: ResolvedSource): Promise<FetchedChart> {
  const problem = outbound.urlProblem(source.url, 'base');
  if (problem !== null) return { ok: false, field: source.field, message: problem };
  const base = source.url.endsWith('/') ? source.url : `${source.url}/`;
  const basic = source.username !== null || source.password !== null ? `Basic ${Buffer.from(`${source.username ?? ''}:${source.password ?? ''}`).toString('base64')}` : null;
  // Helm's rule too: a repository's credentials go to its own origin only, never to a package hosted elsewhere.
  const auth = (url: URL): Record<string, string> => (basic !== null && url.origin === new URL(base).origin ? { authorization: basic } : {});
  let versions: IndexEntry[];
  try {
    const indexUrl = new URL('index.yaml', base);
    const response = await outbound.fetcher({ timeoutMs: FETCH_TIMEOUT_MS, maxResponseBytes: INDEX_MAX_BYTES })(indexUrl, { headers: auth(indexUrl) });
    if (!response.ok) return { ok: false, field: source.field, message: `the repository answered ${String(response.status)} for index.yaml` };
    versions = await parseIndexEntries(await response.text(), source.name);
  } catch (err) {
    return { ok: false, field: source.field, message: `the repository's index.yaml could not be read: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (versions.length === 0) return { ok: false, field: 'chart.name', message: `the repository has no chart "${source.name}"` };
  // `helm repo index` lists the newest version first; without a version the first entry is taken.
  const entry = source.version === undefined ? versions[0] : versions.find((e) => e.version === source.version || e.version === source.version?.replace(/^v/, ''));
  if (!entry || typeof entry.version !== 'string') return { ok: false, field: 'chart.version', message: `the repository has no version ${source.version ?? ''} of "${source.name}"` };
  const url = entry.urls?.[0];
  if (!url) return { ok: false, field: 'chart.name', message: `the index names no package for ${source.name} ${entry.version}` };
  const packageUrl = new URL(url, base);
  const packageProblem = outbound.urlProblem(packageUrl.toString(), 'endpoint');
  if (packageProblem !== null) return { ok: false, field: source.field, message: `the package URL ${packageUrl.toString()}: ${packageProblem}` };
  let bytes: Buffer;
  try {
    const response = await outbound.fetcher({ timeoutMs: FETCH_TIMEOUT_MS, maxResponseBytes: CHART_PACKAGE_MAX_BYTES })(packageUrl, { headers: auth(packageUrl) });
    if (!response.ok) return { ok: false, field: source.field, message: `the repository answered ${String(response.status)} for ${packageUrl.toString()}` };
    bytes = Buffer.from(await response.arrayBuffer());
  } catch (err) {
    return { ok: false, field: source.field, message: `the chart package could not be fetched: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (typeof entry.digest === 'string' && entry.digest !== '') {
    const digest = createHash('sha256').update(bytes).digest('hex');
    if (digest !== entry.digest.replace(/^sha256:/, '')) return { ok: false, field: source.field, message: `the package of ${source.name} ${entry.version} does not match the digest in index.yaml` };
  }
  return { ok: true, name: source.name, version: entry.version, packageBase64: bytes.toString('base64') };
}
