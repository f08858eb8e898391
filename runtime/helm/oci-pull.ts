// A Helm chart pulled from an OCI registry by the agent, through the one outbound client: the
// manifest of `<path>/<name>:<version>`, its one Helm chart layer, checked against its digest.
// Registries answer 401 with a challenge: Basic (a registry behind htpasswd) is answered with
// the credentials; Bearer (most hosted registries) sends them to the challenge's realm for a
// token first (the distribution token protocol). The realm must pass the same outbound rules,
// and credentials go nowhere else. No error message carries a credential. Hosted registries
// answer a blob with a redirect to their storage (a signed URL): it is followed by hand, at most
// twice, each target checked by the outbound rules and sent no credential of the registry's;
// the digest check after it is what makes the bytes trusted.
import { createHash } from 'node:crypto';
import { CHART_PACKAGE_MAX_BYTES } from '../../schema/expert.ts';
import type { OutboundClient } from '../outbound/client.ts';

export const HELM_CHART_LAYER = 'application/vnd.cncf.helm.chart.content.v1.tar+gzip';
const MANIFEST_ACCEPT = 'application/vnd.oci.image.manifest.v1+json';
const SMALL_MAX_BYTES = 1024 * 1024;
const TIMEOUT_MS = 30_000;
/** Redirects a blob may take to its storage (a registry's CDN, then a region, at most). */
const MAX_BLOB_REDIRECTS = 2;

export interface OciChartRef {
  /** `oci://host[:port]/path`, without the chart's name. */
  url: string;
  name: string;
  version: string;
  plainHttp: boolean;
  username: string | null;
  password: string | null;
}

export type OciPull = { ok: true; bytes: Buffer } | { ok: false; message: string };

interface Challenge {
  scheme: 'basic' | 'bearer';
  params: Record<string, string>;
}

/** A WWW-Authenticate header's first challenge: `Bearer realm="…",service="…",scope="…"`. */
export function parseChallenge(header: string | null): Challenge | null {
  if (header === null) return null;
  const match = /^\s*(Basic|Bearer)\b(.*)$/i.exec(header);
  if (!match) return null;
  const params: Record<string, string> = {};
  for (const p of (match[2] ?? '').matchAll(/([A-Za-z]+)="([^"]*)"/g)) if (p[1] !== undefined && p[2] !== undefined) params[p[1].toLowerCase()] = p[2];
  return { scheme: (match[1] ?? '').toLowerCase() === 'basic' ? 'basic' : 'bearer', params };
}

export async function pullOciChart(outbound: OutboundClient, ref: OciChartRef): Promise<OciPull> {
  const location = /^oci:\/\/([^/]+)(\/.*)?$/.exec(ref.url.replace(/\/$/, ''));
  if (!location?.[1]) return { ok: false, message: `${ref.url} is not oci://host/path` };
  const host = location[1];
  const repository = `${(location[2] ?? '').replace(/^\//, '')}${location[2] ? '/' : ''}${ref.name}`;
  const base = `${ref.plainHttp ? 'http' : 'https'}://${host}`;
  const problem = outbound.urlProblem(`${base}/`, 'base');
  if (problem !== null) return { ok: false, message: problem };
  // OCI tags cannot hold `+`; Helm pushes a version's `+` as `_`.
  const tag = ref.version.replace(/\+/g, '_');
  const basic = ref.username !== null || ref.password !== null ? `Basic ${Buffer.from(`${ref.username ?? ''}:${ref.password ?? ''}`).toString('base64')}` : null;
  let authorization: string | null = null;

  // Redirects come back to be checked (getBlob); anything else that redirects is answered as not ok.
  const send = (url: string, accept: string, maxBytes: number) => outbound.fetcher({ timeoutMs: TIMEOUT_MS, maxResponseBytes: maxBytes, answerRedirects: true })(url, { headers: { accept, ...(authorization ? { authorization } : {}) } });

  /** One GET, answering the registry's challenge once. */
  const get = async (url: string, accept: string, maxBytes: number): Promise<Response> => {
    const first = await send(url, accept, maxBytes);
    if (first.status !== 401 || authorization !== null) return first;
    await first.body?.cancel();
    const challenge = parseChallenge(first.headers.get('www-authenticate'));
    if (challenge?.scheme === 'basic') {
      if (basic === null) return new Response(null, { status: 401 });
      authorization = basic;
      return send(url, accept, maxBytes);
    }
    const realm = challenge?.params.realm;
    if (challenge?.scheme !== 'bearer' || realm === undefined) return new Response(null, { status: 401 });
    const realmProblem = outbound.urlProblem(realm, 'endpoint');
    if (realmProblem !== null) throw new Error(`the registry's token service ${realm}: ${realmProblem}`);
    const tokenUrl = new URL(realm);
    if (challenge.params.service) tokenUrl.searchParams.set('service', challenge.params.service);
    tokenUrl.searchParams.set('scope', challenge.params.scope ?? `repository:${repository}:pull`);
    const answer = await outbound.fetcher({ timeoutMs: TIMEOUT_MS, maxResponseBytes: SMALL_MAX_BYTES })(tokenUrl, { headers: basic ? { authorization: basic } : {} });
    if (!answer.ok) throw new Error(`the registry's token service answered ${String(answer.status)}`);
    const body = (await answer.json()) as { token?: string; access_token?: string };
    const token = body.token ?? body.access_token;
    if (typeof token !== 'string' || token === '') throw new Error("the registry's token service answered no token");
    authorization = `Bearer ${token}`;
    return send(url, accept, maxBytes);
  };

  /** The blob, following its redirects to storage by hand: the target checked, no registry credential sent there. */
  const getBlob = async (url: string): Promise<Response> => {
    let response = await get(url, 'application/octet-stream', CHART_PACKAGE_MAX_BYTES);
    let at = url;
    for (let hops = 0; response.status >= 300 && response.status < 400; hops++) {
      const location = response.headers.get('location');
      if (hops >= MAX_BLOB_REDIRECTS || location === null) throw new Error(`the chart layer's download was redirected ${location === null ? 'without a location' : `more than ${String(MAX_BLOB_REDIRECTS)} times`}`);
      const target = new URL(location, at);
      const targetProblem = outbound.urlProblem(target.toString(), 'endpoint');
      if (targetProblem !== null) throw new Error(`the registry redirected the chart layer to ${target.origin}: ${targetProblem}`);
      at = target.toString();
      response = await outbound.fetcher({ timeoutMs: TIMEOUT_MS, maxResponseBytes: CHART_PACKAGE_MAX_BYTES, answerRedirects: true })(target, { headers: { accept: 'application/octet-stream' } });
    }
    return response;
  };

  try {
    const manifestResponse = await get(`${base}/v2/${repository}/manifests/${encodeURIComponent(tag)}`, MANIFEST_ACCEPT, SMALL_MAX_BYTES);
    if (manifestResponse.status === 401 || manifestResponse.status === 403) return { ok: false, message: `the registry refused the credentials for ${host}/${repository} (${String(manifestResponse.status)})` };
    if (manifestResponse.status === 404) return { ok: false, message: `the registry has no ${host}/${repository}:${tag}` };
    if (!manifestResponse.ok) return { ok: false, message: `the registry answered ${String(manifestResponse.status)} for the manifest of ${host}/${repository}:${tag}` };
    const manifest = (await manifestResponse.json()) as { layers?: { mediaType?: string; digest?: string; size?: number }[] };
    const layer = manifest.layers?.find((l) => l.mediaType === HELM_CHART_LAYER);
    if (!layer || typeof layer.digest !== 'string' || !/^sha256:[a-f0-9]{64}$/.test(layer.digest)) return { ok: false, message: `${host}/${repository}:${tag} is not a Helm chart (no ${HELM_CHART_LAYER} layer)` };
    if (typeof layer.size === 'number' && layer.size > CHART_PACKAGE_MAX_BYTES) return { ok: false, message: `the chart is larger than ${String(CHART_PACKAGE_MAX_BYTES)} bytes` };
    const blob = await getBlob(`${base}/v2/${repository}/blobs/${layer.digest}`);
    if (!blob.ok) return { ok: false, message: `the registry answered ${String(blob.status)} for the chart layer of ${host}/${repository}:${tag}` };
    const bytes = Buffer.from(await blob.arrayBuffer());
    if (`sha256:${createHash('sha256').update(bytes).digest('hex')}` !== layer.digest) return { ok: false, message: `the chart layer of ${host}/${repository}:${tag} does not match its digest` };
    return { ok: true, bytes };
  } catch (err) {
    return { ok: false, message: `the chart could not be pulled from ${host}: ${err instanceof Error ? err.message : String(err)}` };
  }
}
