// The built-in self-scan (docs/security-posture.md, "Self-scan"): the expert pod runs one
// Kubernetes Job with the real trivy over the cluster's images, one after another in one
// container, and reads the container's log back. Pure: the images to scan, the Job's manifest,
// the log's parsing and the findings' attribution; runtime/expert/self-scan.ts does the I/O.
//
// Why one container and a loop, not a container per image (trivy-operator's way): the images
// share one vulnerability database on the cache volume, and trivy holds a lock on it while it
// scans, so containers side by side would wait on each other; and one image trivy cannot pull
// (a private registry) must not stop the others, which a chain of init containers would.
import type { SecuritySeverity, SeverityCounts } from '../../schema/security.ts';
import { SEVERITIES } from '../../schema/security.ts';
import type { WorkloadInput } from './posture.ts';
import { keepWorst, severityOf, type ReportVulnerability, type VulnerabilityReportObject } from './trivy-reports.ts';

/** Images one scan covers; beyond it the scan takes the first ones in name order and says how many it left. */
export const SELF_SCAN_MAX_IMAGES = 200;
/** What the expert reads of the scan's log: a row per vulnerability, ~200 bytes each. */
export const SELF_SCAN_LOG_MAX_BYTES = 64 * 1024 * 1024;
/** The scan container's name, which the log is read from. */
export const SELF_SCAN_CONTAINER = 'trivy';
/** Labels every scan Job and its pod carry (the chart's cleanup and the tests find them by these). */
export const SELF_SCAN_LABELS = { 'app.kubernetes.io/managed-by': 'capstan', 'app.kubernetes.io/component': 'self-scan' } as const;
/** An error's words kept per image. */
const MESSAGE_CHARS = 300;

/**
 * An image reference as a pod spec may carry it and as trivy's argument is safe to print: no
 * whitespace or control characters (so no image can write a line of its own into the log), the
 * characters of `registry[:port]/path[:tag][@digest]` only.
 */
export const IMAGE_REFERENCE = /^[A-Za-z0-9][A-Za-z0-9._\-/:@+]{0,510}$/;

/**
 * trivy's report as one JSON array per vulnerability (its `template` format: Go templates with
 * sprig's `toRawJson`, so every string is escaped and no package's metadata can break a line):
 * id, package, installed version, fixed version, severity, CVSS by vendor, title, link.
 */
export const TRIVY_ROW_TEMPLATE = '{{- range . }}{{- range .Vulnerabilities }}{{ toRawJson (list .VulnerabilityID .PkgName .InstalledVersion .FixedVersion .Severity .CVSS .Title .PrimaryURL) }}\n{{ end }}{{- end -}}';

/**
 * The container's program: for each image (its arguments), a begin mark, trivy, and an end
 * mark with trivy's exit status. The marks carry a nonce made per Job: a line of trivy's own
 * output cannot pass for one. Every setting reaches trivy as its TRIVY_* environment.
 */
export const SCAN_SCRIPT = 'for image do printf "capstan-self-scan %s begin %s\\n" "$CAPSTAN_SCAN_NONCE" "$image"; trivy image "$image"; printf "capstan-self-scan %s end %s\\n" "$CAPSTAN_SCAN_NONCE" "$?"; done';

/** The distinct images of the judged workloads, in name order, cut at `max`; `skipped` counts what was cut or is not a plain reference. */
export function selfScanImages(workloads: readonly WorkloadInput[], max = SELF_SCAN_MAX_IMAGES): { images: string[]; skipped: number } {
  const all = new Set<string>();
  for (const w of workloads) for (const c of w.spec.containers) all.add(c.image);
  const valid = [...all].filter((i) => IMAGE_REFERENCE.test(i)).sort();
  return { images: valid.slice(0, max), skipped: all.size - Math.min(valid.length, max) };
}

export interface SelfScanJobInput {
  name: string;
  namespace: string;
  nonce: string;
  images: readonly string[];
  /** `security.scanning.selfScan.image`: an image with trivy and a POSIX shell. */
  scannerImage: string;
  resources: { requests: Record<string, string>; limits: Record<string, string> };
  /** The cache PVC's name (`selfScan.cache.enabled`), else null: an empty directory, the database downloaded each scan. */
  cacheClaim: string | null;
  /** Use only the database already on the cache (an air-gapped cluster): trivy reaches nothing. */
  offline: boolean;
  timeoutSecs: number;
}

/**
 * The Job: no retries, a deadline, removed by the API server an hour after it ends if the expert
 * could not; a pod that meets the `restricted` Pod Security level, with no API credential, a
 * read-only root and only the cache and /tmp writable.
 */
export function selfScanJob(i: SelfScanJobInput): Record<string, unknown> {
  const env: Record<string, string> = {
    CAPSTAN_SCAN_NONCE: i.nonce,
    TRIVY_CACHE_DIR: '/cache',
    TRIVY_IMAGE_SRC: 'remote',
    TRIVY_SCANNERS: 'vuln',
    TRIVY_FORMAT: 'template',
    TRIVY_TEMPLATE: TRIVY_ROW_TEMPLATE,
    TRIVY_QUIET: 'true',
    TRIVY_NO_PROGRESS: 'true',
    TRIVY_SKIP_VERSION_CHECK: 'true',
    TRIVY_DISABLE_TELEMETRY: 'true',
    TRIVY_TIMEOUT: `${String(Math.max(60, Math.floor(i.timeoutSecs / 2)))}s`,
    TMPDIR: '/tmp',
    HOME: '/tmp',
    ...(i.offline ? { TRIVY_SKIP_DB_UPDATE: 'true', TRIVY_SKIP_JAVA_DB_UPDATE: 'true', TRIVY_SKIP_CHECK_UPDATE: 'true', TRIVY_OFFLINE_SCAN: 'true' } : {}),
  };
  const labels = { ...SELF_SCAN_LABELS, 'capstan.dev/scan': i.name };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: i.name, namespace: i.namespace, labels },
    spec: {
      backoffLimit: 0,
      activeDeadlineSeconds: i.timeoutSecs,
      ttlSecondsAfterFinished: 3600,
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: 'Never',
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          securityContext: { runAsNonRoot: true, runAsUser: 65534, runAsGroup: 65534, fsGroup: 65534, seccompProfile: { type: 'RuntimeDefault' } },
          containers: [
            {
              name: SELF_SCAN_CONTAINER,
              image: i.scannerImage,
              command: ['/bin/sh', '-c', SCAN_SCRIPT, 'capstan-self-scan'],
              args: [...i.images],
              env: Object.entries(env).map(([name, value]) => ({ name, value })),
              resources: i.resources,
              securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
              volumeMounts: [
                { name: 'cache', mountPath: '/cache' },
                { name: 'tmp', mountPath: '/tmp' },
              ],
            },
          ],
          volumes: [i.cacheClaim === null ? { name: 'cache', emptyDir: {} } : { name: 'cache', persistentVolumeClaim: { claimName: i.cacheClaim } }, { name: 'tmp', emptyDir: {} }],
        },
      },
    },
  };
}

export type ImageScanResult = { image: string; ok: true; vulnerabilities: ReportVulnerability[]; summary: SeverityCounts; dropped: number } | { image: string; ok: false; message: string };

/** A CRI log line's content (`<time> stdout F <text>`), or the line itself when it is not one. */
function logText(line: string): string {
  const m = /^\S+ (?:stdout|stderr) [FP] (.*)$/.exec(line);
  return m ? (m[1] ?? '') : line;
}

function scoreOf(cvss: unknown): number | null {
  if (typeof cvss !== 'object' || cvss === null) return null;
  const byVendor = cvss as Record<string, { V3Score?: unknown } | null>;
  const nvd = byVendor.nvd?.V3Score;
  if (typeof nvd === 'number' && nvd > 0) return nvd;
  for (const [vendor, c] of Object.entries(byVendor)) if (vendor !== 'nvd' && typeof c?.V3Score === 'number' && c.V3Score > 0) return c.V3Score;
  return null;
}

/** One template row, or null when the line is not one (trivy's own warnings on stderr). */
export function vulnerabilityOfRow(line: string): ReportVulnerability | null {
  if (!line.startsWith('[')) return null;
  let row: unknown;
  try {
    row = JSON.parse(line);
  } catch {
    return null;
  }
  if (!Array.isArray(row) || row.length < 5) return null;
  const [id, pkg, installed, fixed, severity, cvss, title, link] = row as unknown[];
  if (typeof id !== 'string' || id === '' || typeof pkg !== 'string') return null;
  const text = (x: unknown) => (typeof x === 'string' ? x : '');
  return {
    cve: id,
    pkg,
    installed: text(installed),
    fixed: text(fixed) === '' ? null : text(fixed),
    severity: severityOf(severity),
    score: scoreOf(cvss),
    title: text(title),
    link: text(link) === '' ? null : text(link),
  };
}

/**
 * trivy's error in few words: its log prefix (time, level) dropped, and when long the end kept,
 * where trivy's chain of causes names the one that matters (`MANIFEST_UNKNOWN`, `UNAUTHORIZED`).
 */
export function trivyWords(lines: readonly string[]): string {
  const words = lines
    .map((l) => l.replace(/^\S+\s+(FATAL|ERROR|WARN)\s+(Fatal error\s+)?/, ''))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (words === '') return 'no message';
  return words.length <= MESSAGE_CHARS ? words : `…${words.slice(-(MESSAGE_CHARS - 1))}`;
}

function summaryOf(vulns: readonly ReportVulnerability[]): SeverityCounts {
  const counts = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<SecuritySeverity, number>;
  for (const v of vulns) counts[v.severity]++;
  return counts;
}

/**
 * Each image's result from the container's log: its rows between its marks when trivy ended 0,
 * else trivy's words. An image whose end mark never came (the log was cut, the Job's deadline
 * passed) is an error that says so.
 */
export function parseScanLog(log: string, nonce: string, images: readonly string[], cut: boolean): ImageScanResult[] {
  const begin = `capstan-self-scan ${nonce} begin `;
  const end = `capstan-self-scan ${nonce} end `;
  const found = new Map<string, ImageScanResult>();
  let current: { image: string; rows: ReportVulnerability[]; other: string[] } | null = null;
  for (const raw of log.split('\n')) {
    const line = logText(raw);
    if (line.startsWith(begin)) {
      current = { image: line.slice(begin.length), rows: [], other: [] };
      continue;
    }
    if (current === null) continue;
    if (line.startsWith(end)) {
      const status = Number(line.slice(end.length));
      if (status === 0) {
        const { kept, dropped } = keepWorst(current.rows);
        found.set(current.image, { image: current.image, ok: true, vulnerabilities: kept, summary: summaryOf(current.rows), dropped });
      } else {
        found.set(current.image, { image: current.image, ok: false, message: `trivy ended ${String(status)}: ${trivyWords(current.other)}` });
      }
      current = null;
      continue;
    }
    const row = vulnerabilityOfRow(line);
    if (row) current.rows.push(row);
    else if (line.trim() !== '' && current.other.length < 20) current.other.push(line);
  }
  const missing = cut ? `the scan's log passed ${String(SELF_SCAN_LOG_MAX_BYTES / 1024 / 1024)} MiB before this image's result` : 'the scan ended before this image was scanned (its deadline, or the pod was stopped)';
  return images.map((image) => found.get(image) ?? { image, ok: false, message: missing });
}

/**
 * The results as trivy-operator's reports would be (so one mapping, vulnFindings and
 * scannerResults, serves both): one per workload container whose image was scanned.
 */
export function selfScanReports(workloads: readonly WorkloadInput[], results: readonly ImageScanResult[]): VulnerabilityReportObject[] {
  const byImage = new Map<string, Extract<ImageScanResult, { ok: true }>>();
  for (const r of results) if (r.ok) byImage.set(r.image, r);
  const out: VulnerabilityReportObject[] = [];
  for (const w of workloads) {
    for (const c of w.spec.containers) {
      const r = byImage.get(c.image);
      if (!r) continue;
      out.push({ namespace: w.namespace, name: `${w.kind.toLowerCase()}-${w.name}-${c.name}`, subject: { kind: w.kind, name: w.name }, container: c.name, image: c.image, summary: r.summary, vulnerabilities: r.vulnerabilities, dropped: r.dropped });
    }
  }
  return out;
}

/** The Task's words for a finished self-scan: how many images, and the first errors. */
export function selfScanOutcome(results: readonly ImageScanResult[], skipped: number): string {
  const failed = results.filter((r): r is Extract<ImageScanResult, { ok: false }> => !r.ok);
  const scanned = results.length - failed.length;
  let words = `Scanned ${String(scanned)} of ${String(results.length)} images.`;
  if (skipped > 0) words += ` ${String(skipped)} more were not scanned (over ${String(SELF_SCAN_MAX_IMAGES)}, or not a plain image reference).`;
  if (failed.length > 0) words += ` Not scanned: ${failed.slice(0, 3).map((f) => `${f.image} (${f.message})`).join('; ')}${failed.length > 3 ? `; and ${String(failed.length - 3)} more` : ''}.`;
  return words;
}
