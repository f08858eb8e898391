// trivy-operator's reports (VulnerabilityReport, ConfigAuditReport; aquasecurity.github.io
// v1alpha1, trivy-operator v0.29.0) as the informer cache keeps them, and their mapping to the
// spec's findings (`source: trivy`) and to posture results. Pure: the runtime slims the API
// objects (runtime/kube/slim-reports.ts) and hands them in with the cluster's controllers.
// The rules: docs/security-posture.md "Scanner reports (trivy-operator)".
import type { MisconfigFinding, SecuritySeverity, SeverityCounts, VulnFinding } from '../../schema/security.ts';
import { SEVERITIES, SEVERITY_RANK } from '../../schema/security.ts';
import type { ControllerObject } from '../cluster/model.ts';
import type { ExternalResult } from './posture.ts';

/**
 * Vulnerabilities kept per report, the most severe first (then fixable first, then the higher
 * CVSS): a big image's report lists thousands, and 5000 of them must stay small in memory.
 * The report's own summary (all of them, counted by the operator) is kept whole.
 */
export const MAX_VULNS_PER_REPORT = 300;

/** The object the operator scanned, from its `trivy-operator.resource.*` labels. */
export interface ReportSubject {
  kind: string;
  name: string;
}

export interface ReportVulnerability {
  cve: string;
  /** `resource`: the package. */
  pkg: string;
  installed: string;
  /** null when the report's fixedVersion is empty (no fix published). */
  fixed: string | null;
  severity: SecuritySeverity;
  /** `score`: CVSS v3 (NVD's when present, else a vendor's), as the operator picks it. */
  score: number | null;
  title: string;
  link: string | null;
}

export interface VulnerabilityReportObject {
  namespace: string;
  name: string;
  /** null when the labels name no object (not written by the operator): such a report is not attributed. */
  subject: ReportSubject | null;
  container: string | null;
  /** `registry.server/artifact.repository:tag`, or `@digest` when there is no tag. */
  image: string;
  summary: SeverityCounts;
  /** At most MAX_VULNS_PER_REPORT, worst first. */
  vulnerabilities: ReportVulnerability[];
  /** How many were dropped by the cap. */
  dropped: number;
}

export interface ReportCheck {
  id: string;
  title: string;
  severity: SecuritySeverity;
  success: boolean;
  messages: string[];
  remediation: string;
}

export interface ConfigAuditReportObject {
  namespace: string;
  name: string;
  subject: ReportSubject | null;
  checks: ReportCheck[];
}

/** A severity as the operator writes it; anything else (a newer rung, a typo) is UNKNOWN. */
export function severityOf(raw: unknown): SecuritySeverity {
  return typeof raw === 'string' && (SEVERITIES as readonly string[]).includes(raw) ? (raw as SecuritySeverity) : 'UNKNOWN';
}

/**
 * The image as one string, from the report's `registry.server` and `artifact`: the operator
 * parses the pod's image reference with go-containerregistry, so `nginx:1.25` reads
 * `index.docker.io/library/nginx:1.25`.
 */
export function reportImage(server: string, repository: string, tag: string, digest: string): string {
  const name = server === '' ? repository : `${server}/${repository}`;
  if (tag !== '') return `${name}:${tag}`;
  return digest === '' ? name : `${name}@${digest}`;
}

const worstFirst = (a: ReportVulnerability, b: ReportVulnerability) =>
  SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || Number(b.fixed !== null) - Number(a.fixed !== null) || (b.score ?? -1) - (a.score ?? -1) || a.cve.localeCompare(b.cve) || a.pkg.localeCompare(b.pkg);

/** The MAX_VULNS_PER_REPORT worst, and how many were dropped. */
export function keepWorst(vulns: ReportVulnerability[], max = MAX_VULNS_PER_REPORT): { kept: ReportVulnerability[]; dropped: number } {
  const sorted = [...vulns].sort(worstFirst);
  return { kept: sorted.slice(0, max), dropped: Math.max(0, sorted.length - max) };
}

/** What a finding names: the workload the scanned object belongs to. */
export interface Attributed {
  kind: string;
  name: string;
}

/**
 * The workload a report's subject belongs to. trivy-operator scans a Deployment through its
 * current ReplicaSet and labels the report with the ReplicaSet; a CronJob's Job it already
 * reports on the CronJob. When the cache knows the ReplicaSet's (or Job's) controller, the
 * finding names that controller; otherwise the subject itself.
 */
export function attributeTo(namespace: string, subject: ReportSubject, owners: ReadonlyMap<string, Attributed>): Attributed {
  if (subject.kind === 'ReplicaSet' || subject.kind === 'Job') {
    const owner = owners.get(`${namespace}/${subject.kind}/${subject.name}`);
    if (owner) return owner;
  }
  return { kind: subject.kind, name: subject.name };
}

/** ReplicaSets owned by a Deployment and Jobs owned by a CronJob, keyed `<namespace>/<Kind>/<name>`. */
export function controllerOwners(controllers: readonly ControllerObject[]): Map<string, Attributed> {
  const owners = new Map<string, Attributed>();
  for (const c of controllers) {
    if ((c.kind === 'ReplicaSet' && c.owner?.kind === 'Deployment') || (c.kind === 'Job' && c.owner?.kind === 'CronJob')) owners.set(`${c.namespace}/${c.kind}/${c.name}`, c.owner);
  }
  return owners;
}

/**
 * Every vulnerability of every attributed report, one finding per workload, CVE, package and
 * image (two containers running one image, or two ReplicaSets of one Deployment, give it once).
 */
export function vulnFindings(reports: readonly VulnerabilityReportObject[], owners: ReadonlyMap<string, Attributed>): VulnFinding[] {
  const out = new Map<string, VulnFinding>();
  for (const r of reports) {
    if (r.subject === null) continue;
    const w = attributeTo(r.namespace, r.subject, owners);
    for (const v of r.vulnerabilities) {
      const id = `${r.namespace}/${w.kind}/${w.name}#${v.cve}:${v.pkg}:${r.image}`;
      if (out.has(id)) continue;
      out.set(id, { id, namespace: r.namespace, workload: w.name, workload_kind: w.kind, image: r.image, cve: v.cve, severity: v.severity, cvss: v.score, pkg: v.pkg, installed_ver: v.installed, fixed_ver: v.fixed, fix_available: v.fixed !== null, source: 'trivy' });
    }
  }
  return [...out.values()];
}

/** trivy's Kubernetes checks name the container first: "Container 'web' of Deployment 'x' should ...". */
const CONTAINER_IN_MESSAGE = /^Container '([^']+)'/;

function misconfigOf(namespace: string, w: Attributed, check: ReportCheck): MisconfigFinding {
  const message = check.messages.length > 0 ? check.messages.join('; ') : check.title;
  const resource = `${w.kind}/${w.name}`;
  return {
    id: `${namespace}/${resource}#${check.id}`,
    namespace,
    workload: w.name,
    workload_kind: w.kind,
    check_id: check.id,
    severity: check.severity,
    message,
    remediation: check.remediation,
    resource,
    container: CONTAINER_IN_MESSAGE.exec(check.messages[0] ?? '')?.[1] ?? null,
    source: 'trivy',
  };
}

/**
 * What the reports add to the posture (docs/security-posture.md): every ConfigAuditReport
 * check is one result, as a built-in check's is (a failed one carries its finding); every
 * scanned container image is one result, failed at danger when a CRITICAL or HIGH
 * vulnerability has a fix, at warning when only lower ones have a fix (counted under the
 * worst fixable severity), passed when nothing has a fix. Duplicates (one workload through
 * two ReplicaSets, two containers of one image) count once.
 */
export function scannerResults(vulnReports: readonly VulnerabilityReportObject[], auditReports: readonly ConfigAuditReportObject[], owners: ReadonlyMap<string, Attributed>): ExternalResult[] {
  const results = new Map<string, ExternalResult>();
  for (const r of auditReports) {
    if (r.subject === null) continue;
    const w = attributeTo(r.namespace, r.subject, owners);
    for (const check of r.checks) {
      const key = `${r.namespace}/${w.kind}/${w.name}#${check.id}`;
      if (results.has(key)) continue;
      results.set(key, { namespace: r.namespace, failure: check.success ? null : { severity: check.severity, finding: misconfigOf(r.namespace, w, check) } });
    }
  }
  for (const r of vulnReports) {
    if (r.subject === null) continue;
    const w = attributeTo(r.namespace, r.subject, owners);
    const key = `${r.namespace}/${w.kind}/${w.name}@${r.image}`;
    if (results.has(key)) continue;
    let worst: SecuritySeverity | null = null;
    for (const v of r.vulnerabilities) if (v.fixed !== null && (worst === null || SEVERITY_RANK[v.severity] < SEVERITY_RANK[worst])) worst = v.severity;
    results.set(key, { namespace: r.namespace, failure: worst === null ? null : { severity: worst, finding: null } });
  }
  return [...results.values()];
}

export type { ReportSourceState, ScannerReportStatus } from '../../schema/security.ts';
