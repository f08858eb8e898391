// A chart package fetched by the agent, through the one outbound client (pinned resolution, no
// redirects, refused ranges, size cap, timeout), from a chart repository: its index.yaml names
// the package's URL and SHA-256 digest, which is checked before the package goes to the expert
// pod. The expert pod itself never fetches anything from outside the cluster.
import { createHash } from 'node:crypto';
import { parse } from 'yaml';
import { CHART_PACKAGE_MAX_BYTES } from '../../schema/expert.ts';
import type { ChartSource } from '../../schema/helm.ts';
import type { OutboundClient } from '../outbound/client.ts';

/** A repository's index can be large (every version of every chart it serves). */
const INDEX_MAX_BYTES = 32 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 30_000;

export type FetchedChart = { ok: true; name: string; version: string; packageBase64: string } | { ok: false; field: string; message: string };

interface IndexEntry {
  name?: string;
  version?: string;
  urls?: string[];
  digest?: string;
}

export async function fetchChart(outbound: OutboundClient, source: ChartSource): Promise<FetchedChart> {
  const problem = outbound.urlProblem(source.repo_url, 'base');
  if (problem !== null) return { ok: false, field: 'chart.repo_url', message: problem };
  const base = source.repo_url.endsWith('/') ? source.repo_url : `${source.repo_url}/`;
  let index: { entries?: Record<string, IndexEntry[]> };
  try {
    const response = await outbound.fetcher({ timeoutMs: FETCH_TIMEOUT_MS, maxResponseBytes: INDEX_MAX_BYTES })(new URL('index.yaml', base));
    if (!response.ok) return { ok: false, field: 'chart.repo_url', message: `the repository answered ${String(response.status)} for index.yaml` };
    index = (parse(await response.text()) ?? {}) as typeof index;
  } catch (err) {
    return { ok: false, field: 'chart.repo_url', message: `the repository's index.yaml could not be read: ${err instanceof Error ? err.message : String(err)}` };
  }
  const versions = index.entries?.[source.name] ?? [];
  if (versions.length === 0) return { ok: false, field: 'chart.name', message: `the repository has no chart "${source.name}"` };
  // `helm repo index` lists the newest version first; without a version the first entry is taken.
  const entry = source.version === undefined ? versions[0] : versions.find((e) => e.version === source.version || e.version === source.version?.replace(/^v/, ''));
  if (!entry || typeof entry.version !== 'string') return { ok: false, field: 'chart.version', message: `the repository has no version ${source.version ?? ''} of "${source.name}"` };
  const url = entry.urls?.[0];
  if (!url) return { ok: false, field: 'chart.name', message: `the index names no package for ${source.name} ${entry.version}` };
  const packageUrl = new URL(url, base).toString();
  const packageProblem = outbound.urlProblem(packageUrl, 'endpoint');
  if (packageProblem !== null) return { ok: false, field: 'chart.repo_url', message: `the package URL ${packageUrl}: ${packageProblem}` };
  let bytes: Buffer;
  try {
    const response = await outbound.fetcher({ timeoutMs: FETCH_TIMEOUT_MS, maxResponseBytes: CHART_PACKAGE_MAX_BYTES })(packageUrl);
    if (!response.ok) return { ok: false, field: 'chart.repo_url', message: `the repository answered ${String(response.status)} for ${packageUrl}` };
    bytes = Buffer.from(await response.arrayBuffer());
  } catch (err) {
    return { ok: false, field: 'chart.repo_url', message: `the chart package could not be fetched: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (typeof entry.digest === 'string' && entry.digest !== '') {
    const digest = createHash('sha256').update(bytes).digest('hex');
    if (digest !== entry.digest.replace(/^sha256:/, '')) return { ok: false, field: 'chart.repo_url', message: `the package of ${source.name} ${entry.version} does not match the digest in index.yaml` };
  }
  return { ok: true, name: source.name, version: entry.version, packageBase64: bytes.toString('base64') };
}
