// trivy-operator's reports in the informer cache: the slimmers (what the mapping reads, capped;
// domain/security/trivy-reports.ts) and the source that lists them only where the API server
// serves their CRDs. A cluster without trivy-operator answers 404 for the collection: that is
// "not installed", not an outage, so it neither holds readiness back nor marks the cache stale,
// and the path is asked again every REPORT_CRD_RECHECK_MS until the CRDs appear.
import type { CacheSyncStatus } from '../../domain/cluster/model.ts';
import { keepWorst, reportImage, severityOf, type ConfigAuditReportObject, type ReportCheck, type ReportSourceState, type ReportSubject, type ReportVulnerability, type VulnerabilityReportObject } from '../../domain/security/trivy-reports.ts';
import type { Logger } from '../log.ts';
import { KubeApiError, type KubeTransport } from './client.ts';
import { intern, internOrNull } from './intern.ts';
import type { CacheSource } from './namespaced-informers.ts';

export const REPORT_CRD_RECHECK_MS = 30_000;

// trivy-operator's labels (pkg/trivyoperator/constants.go, v0.29.0).
const LABEL_KIND = 'trivy-operator.resource.kind';
const LABEL_NAME = 'trivy-operator.resource.name';
const LABEL_CONTAINER = 'trivy-operator.container.name';

interface RawReportMeta {
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
}

/**
 * The scanned object. A name too long for a label value is written as a hash label with the
 * name in an annotation of the same key (pkg/kube/object.go ObjectToObjectMeta).
 */
function subjectOf(meta: NonNullable<RawReportMeta['metadata']>): ReportSubject | null {
  const kind = meta.labels?.[LABEL_KIND];
  const name = meta.labels?.[LABEL_NAME] ?? meta.annotations?.[LABEL_NAME];
  return kind && name ? { kind: intern(kind), name: intern(name) } : null;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

interface RawVulnerabilityReport extends RawReportMeta {
  report?: {
    registry?: { server?: string };
    artifact?: { repository?: string; tag?: string; digest?: string };
    summary?: { criticalCount?: number; highCount?: number; mediumCount?: number; lowCount?: number; unknownCount?: number };
    vulnerabilities?: { vulnerabilityID?: string; resource?: string; installedVersion?: string; fixedVersion?: string; severity?: string; score?: number; title?: string; primaryLink?: string }[];
  };
}

export function slimVulnerabilityReport(raw: unknown): VulnerabilityReportObject | null {
  const r = raw as RawVulnerabilityReport;
  const meta = r.metadata;
  if (!meta?.name || !meta.namespace) return null;
  const report = r.report ?? {};
  const s = report.summary ?? {};
  const all: ReportVulnerability[] = (report.vulnerabilities ?? []).map((v) => ({
    cve: intern(str(v.vulnerabilityID)),
    pkg: intern(str(v.resource)),
    installed: intern(str(v.installedVersion)),
    fixed: internOrNull(str(v.fixedVersion) || undefined),
    severity: severityOf(v.severity),
    score: typeof v.score === 'number' && Number.isFinite(v.score) ? v.score : null,
    title: intern(str(v.title)),
    link: internOrNull(str(v.primaryLink) || undefined),
  }));
  const { kept, dropped } = keepWorst(all);
  return {
    namespace: meta.namespace,
    name: meta.name,
    subject: subjectOf(meta),
    container: internOrNull(meta.labels?.[LABEL_CONTAINER]),
    image: intern(reportImage(str(report.registry?.server), str(report.artifact?.repository), str(report.artifact?.tag), str(report.artifact?.digest))),
    summary: { CRITICAL: count(s.criticalCount), HIGH: count(s.highCount), MEDIUM: count(s.mediumCount), LOW: count(s.lowCount), UNKNOWN: count(s.unknownCount) },
    vulnerabilities: kept,
    dropped,
  };
}

interface RawConfigAuditReport extends RawReportMeta {
  report?: { checks?: { checkID?: string; title?: string; severity?: string; success?: boolean; messages?: string[]; remediation?: string }[] };
}

export function slimConfigAuditReport(raw: unknown): ConfigAuditReportObject | null {
  const r = raw as RawConfigAuditReport;
  const meta = r.metadata;
  if (!meta?.name || !meta.namespace) return null;
  const checks: ReportCheck[] = (r.report?.checks ?? [])
    .filter((c) => str(c.checkID) !== '')
    .map((c) => ({
      id: intern(str(c.checkID)),
      title: intern(str(c.title)),
      severity: severityOf(c.severity),
      success: c.success === true,
      // Passed checks' messages are never shown; failed ones' are the finding's message.
      messages: c.success === true ? [] : (c.messages ?? []).filter((m) => typeof m === 'string'),
      remediation: intern(str(c.remediation)),
    }));
  return { namespace: meta.namespace, name: meta.name, subject: subjectOf(meta), checks };
}

/**
 * A report kind's cache, created only once its collection answers: until then (404, the CRD is
 * not installed) it is synced and empty, and asks again later. A 403 or any other answer hands
 * over to the informer, which serves a refusal empty and reports it forbidden.
 */
export class ReportSource<T> {
  private inner: CacheSource<T> | null = null;
  private notInstalled = false;
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    readonly resource: string,
    /** A path whose LIST tells whether the CRD is served (the first watched namespace's, in namespaces scope). */
    private readonly probePath: string,
    private readonly transport: KubeTransport,
    private readonly create: () => CacheSource<T>,
    private readonly log: Logger,
    private readonly recheckMs = REPORT_CRD_RECHECK_MS,
  ) {}

  /** Starts in the background: nothing waits for scanner reports. */
  start(): void {
    void this.probe();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.inner?.stop();
  }

  values(): readonly T[] {
    return this.inner?.values() ?? EMPTY;
  }

  state(): ReportSourceState {
    if (this.inner) {
      const s: CacheSyncStatus = this.inner.status();
      return s.forbidden ? 'forbidden' : s.synced ? 'read' : 'pending';
    }
    return this.notInstalled ? 'not_installed' : 'pending';
  }

  /** Read again after an await: stop() may have run meanwhile. */
  private running(): boolean {
    return !this.stopped;
  }

  private async probe(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.transport.list(this.probePath, { limit: '1' });
    } catch (err) {
      if (err instanceof KubeApiError && err.status === 404) {
        if (!this.notInstalled) this.log.info('scanner reports not served (trivy-operator CRDs not installed); asking again later', { resource: this.resource });
        this.notInstalled = true;
        this.timer = setTimeout(() => void this.probe(), this.recheckMs);
        return;
      }
      // 403 and the rest: the informer knows how to serve and report them.
    }
    if (!this.running()) return;
    this.notInstalled = false;
    this.inner = this.create();
    void this.inner.start();
    this.timer = setTimeout(() => void this.recheck(), this.recheckMs);
  }

  /**
   * trivy-operator uninstalled (its CRDs deleted) while watched: the informer's relists now fail
   * with 404 and would retry every second; once the collection answers 404, drop the informer
   * and go back to asking every recheckMs.
   */
  private async recheck(): Promise<void> {
    const inner = this.inner;
    if (!this.running() || inner === null) return;
    if (inner.failingSince() !== null) {
      try {
        await this.transport.list(this.probePath, { limit: '1' });
      } catch (err) {
        if (err instanceof KubeApiError && err.status === 404 && this.running()) {
          this.log.info('scanner reports no longer served (trivy-operator CRDs removed)', { resource: this.resource });
          inner.stop();
          this.inner = null;
          this.notInstalled = true;
          this.timer = setTimeout(() => void this.probe(), this.recheckMs);
          return;
        }
      }
    }
    if (this.running()) this.timer = setTimeout(() => void this.recheck(), this.recheckMs);
  }
}

const EMPTY: readonly never[] = [];
