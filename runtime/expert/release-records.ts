// Helm 3's storage: one Secret per revision of a release (type helm.sh/release.v1, label
// owner=helm), its `release` key base64 of a gzipped JSON record (Secret data adds its own
// base64). The expert pod watches those Secrets, keeps the few fields a release list shows,
// and decodes one record whole only when its values are asked for.
import { gunzipSync } from 'node:zlib';
import { isHelmStatus } from '../../domain/helm/release.ts';
import type { WireRevision } from '../../schema/expert.ts';
import type { KubeAccess, KubeTransport } from '../kube/client.ts';
import { apiRequest } from '../kube/api-request.ts';
import { Informer } from '../kube/informer.ts';
import type { Logger } from '../log.ts';

export const RELEASE_SECRET_TYPE = 'helm.sh/release.v1';
/** Revisions the expert pod keeps (every revision Helm keeps of every release: 10 per release by default). */
export const MAX_REVISIONS = 20_000;
/** A decoded record larger than this is refused (a release with a huge manifest is still listed from its labels). */
const MAX_RECORD_BYTES = 32 * 1024 * 1024;

export interface ReleaseRecord {
  name?: string;
  namespace?: string;
  version?: number;
  info?: { status?: string; last_deployed?: string; description?: string };
  chart?: { metadata?: { name?: string; version?: string; appVersion?: string } };
  config?: Record<string, unknown> | null;
  manifest?: string;
}

interface RawSecret {
  type?: string;
  metadata?: { name?: string; namespace?: string };
  data?: { release?: string };
}

/** The record inside one release Secret (as the API answers it), or null when it is not one. */
export function decodeReleaseSecret(raw: unknown): ReleaseRecord | null {
  const secret = raw as RawSecret;
  if (secret.type !== RELEASE_SECRET_TYPE || typeof secret.data?.release !== 'string') return null;
  try {
    const stored = Buffer.from(Buffer.from(secret.data.release, 'base64').toString('utf8'), 'base64');
    // Helm gzips every record it writes; a plain JSON record is read too, as Helm does.
    const json = stored[0] === 0x1f && stored[1] === 0x8b ? gunzipSync(stored, { maxOutputLength: MAX_RECORD_BYTES }) : stored;
    return JSON.parse(json.toString('utf8')) as ReleaseRecord;
  } catch {
    return null;
  }
}

export function revisionOf(record: ReleaseRecord, fallbackNamespace: string): WireRevision | null {
  if (typeof record.name !== 'string' || typeof record.version !== 'number') return null;
  const status = record.info?.status ?? 'unknown';
  const updated = record.info?.last_deployed;
  return {
    name: record.name,
    namespace: record.namespace ?? fallbackNamespace,
    revision: record.version,
    status: isHelmStatus(status) ? status : 'unknown',
    chart: record.chart?.metadata?.name ?? '',
    chart_version: record.chart?.metadata?.version ?? '',
    app_version: record.chart?.metadata?.appVersion ?? '',
    updated: typeof updated === 'string' && !Number.isNaN(Date.parse(updated)) ? new Date(updated).toISOString() : null,
    description: record.info?.description ?? '',
  };
}

export function releaseInformer(transport: KubeTransport, log: Logger): Informer<WireRevision> {
  return new Informer<WireRevision>({
    resource: 'helm release secrets',
    path: '/api/v1/secrets',
    labelSelector: 'owner=helm',
    // Bounded like every cache of objects nobody counts: past it the list says it is cut.
    maxObjects: MAX_REVISIONS,
    transport,
    log,
    slim: (raw) => {
      const record = decodeReleaseSecret(raw);
      return record === null ? null : revisionOf(record, (raw as RawSecret).metadata?.namespace ?? '');
    },
  });
}

/** The Secret Helm keeps one revision in. */
export function releaseSecretName(name: string, revision: number): string {
  return `sh.helm.release.v1.${name}.v${String(revision)}`;
}

/** One revision's whole record, read live (not kept): null when the Secret is gone. */
export async function readRecord(kc: KubeAccess, namespace: string, name: string, revision: number): Promise<ReleaseRecord | null> {
  const answer = await apiRequest(kc, 'GET', `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets/${encodeURIComponent(releaseSecretName(name, revision))}`);
  if (answer.status === 404) return null;
  if (answer.status !== 200) throw new Error(`reading release ${namespace}/${name} revision ${String(revision)}: status ${String(answer.status)}`);
  return decodeReleaseSecret(JSON.parse(answer.text));
}
