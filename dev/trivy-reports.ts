// trivy's JSON as trivy-operator v0.29.0 writes it into the cluster: a VulnerabilityReport from
// `trivy image --format json`, a ConfigAuditReport from `trivy config --include-non-failures
// --format json`. KWOK pods cannot run the operator's scan jobs, so the tests (and the demo)
// produce the operator's objects from the real scanner's output here, field for field as the
// operator's code builds them (module github.com/aquasecurity/trivy-operator@v0.29.0):
//   names       pkg/vulnerabilityreport/builder.go reportName, pkg/configauditreport/builder.go reportName
//   labels      pkg/trivyoperator/constants.go, pkg/kube/object.go ObjectToObjectMeta
//   owner       controllerutil.SetControllerReference, blockOwnerDeletion false
//   vulns       pkg/vulnerabilityreport/io.go GetVulnerabilitiesFromScanResult, GetScoreFromCVSS, vulnerabilitySummary
//   registry    pkg/plugins/trivy/plugin.go ParseImageRef (go-containerregistry's defaults)
//   checks      pkg/configauditreport/controller/resource.go getCheck; checkID policy.GetResultID
// Two differences, both in hashes the operator computes with Go's spew printer (no reader uses
// them): `resource-spec-hash` here is an FNV-1a of the pod spec's JSON, and a name too long for
// a label is hashed the same way.
//
//   node --import tsx dev/trivy-reports.ts vuln   <trivy.json> <kind> <namespace> <name> <uid> <container> <image>
//   node --import tsx dev/trivy-reports.ts config <trivy.json> <kind> <namespace> <name> <uid>
// prints the report as JSON (pipe it to `kubectl apply -f -`).
import { readFileSync } from 'node:fs';

/** The object a report is about, as the operator's controller sees it. */
export interface ReportOwner {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid: string;
  /** Its pod spec (or template spec), for the `resource-spec-hash` label; omitted when absent. */
  podSpec?: unknown;
}

interface TrivyVulnerability {
  VulnerabilityID: string;
  PkgName: string;
  InstalledVersion: string;
  FixedVersion?: string;
  Severity: string;
  Title?: string;
  PrimaryURL?: string;
  PublishedDate?: string;
  LastModifiedDate?: string;
  CVSS?: Record<string, { V3Score?: number }>;
  PkgIdentifier?: { PURL?: string };
}

export interface TrivyImageReport {
  Trivy?: { Version?: string };
  Metadata?: { OS?: { Family?: string; Name?: string; EOSL?: boolean }; RepoDigests?: string[] };
  Results?: { Target: string; Vulnerabilities?: TrivyVulnerability[] }[];
}

export interface TrivyConfigReport {
  Trivy?: { Version?: string };
  Results?: { Misconfigurations?: { ID: string; Namespace?: string; Title?: string; Description?: string; Message?: string; Resolution?: string; Severity: string; Status: string }[] }[];
}

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const isLabelValue = (s: string) => s.length <= 63 && LABEL_VALUE.test(s);

/** FNV-1a 32-bit, spelled with k8s.io/apimachinery's rand.SafeEncodeString alphabet as the operator's hashes are. */
export function fnvHash(text: string): string {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  const alphanums = 'bcdfghjklmnpqrstvwxz2456789';
  const digits = String(h);
  let out = '';
  for (let i = 0; i < digits.length; i++) out += alphanums[digits.charCodeAt(i) % alphanums.length] ?? '';
  return out;
}

/** metadata the operator gives every report of `owner` (labels, hashed name annotation, owner reference). */
function ownerMeta(owner: ReportOwner, labels: Record<string, string>): { labels: Record<string, string>; annotations?: Record<string, string>; ownerReferences: object[] } {
  const all: Record<string, string> = { ...labels, 'app.kubernetes.io/managed-by': 'trivy-operator', 'trivy-operator.resource.kind': owner.kind, 'trivy-operator.resource.namespace': owner.namespace };
  if (owner.podSpec !== undefined) all['resource-spec-hash'] = fnvHash(JSON.stringify(owner.podSpec));
  let annotations: Record<string, string> | undefined;
  if (isLabelValue(owner.name)) all['trivy-operator.resource.name'] = owner.name;
  else {
    all['trivy-operator.resource.name-hash'] = fnvHash(owner.name);
    annotations = { 'trivy-operator.resource.name': owner.name };
  }
  return { labels: all, ...(annotations ? { annotations } : {}), ownerReferences: [{ apiVersion: owner.apiVersion, kind: owner.kind, name: owner.name, uid: owner.uid, controller: true, blockOwnerDeletion: false }] };
}

/**
 * go-containerregistry's reading of an image reference, as ParseImageRef uses it: Docker Hub is
 * `index.docker.io` with `library/` for one-part names, no tag and no digest means `latest`.
 */
export function parseImageRef(image: string, repoDigest = ''): { server: string; repository: string; tag: string; digest: string } {
  const at = image.indexOf('@');
  const name = at === -1 ? image : image.slice(0, at);
  const digest = at === -1 ? '' : image.slice(at + 1);
  const slash = name.indexOf('/');
  const first = slash === -1 ? '' : name.slice(0, slash);
  const hasRegistry = first.includes('.') || first.includes(':') || first === 'localhost';
  let server = hasRegistry ? first : 'index.docker.io';
  if (server === 'docker.io') server = 'index.docker.io';
  let rest = hasRegistry ? name.slice(slash + 1) : name;
  const colon = rest.lastIndexOf(':');
  let tag = '';
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
  }
  const repository = server === 'index.docker.io' && !rest.includes('/') ? `library/${rest}` : rest;
  if (tag === '' && digest === '') tag = 'latest';
  return { server, repository, tag, digest: digest || repoDigest };
}

/** The CVSS v3 score the operator keeps: NVD's when it has one, else a vendor's. */
function scoreOf(cvss: TrivyVulnerability['CVSS']): number | undefined {
  if (!cvss) return undefined;
  const nvd = cvss.nvd?.V3Score;
  if (nvd) return nvd;
  const vendor = Object.entries(cvss).find(([name, c]) => name !== 'nvd' && c.V3Score);
  return vendor?.[1].V3Score;
}

const SEVERITIES = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW'] as const;

export function vulnerabilityReport(trivy: TrivyImageReport, owner: ReportOwner, container: string, image: string, now: Date): object {
  const vulnerabilities = (trivy.Results ?? []).flatMap((r) =>
    (r.Vulnerabilities ?? []).map((v) => {
      const score = scoreOf(v.CVSS);
      return {
        vulnerabilityID: v.VulnerabilityID,
        resource: v.PkgName,
        installedVersion: v.InstalledVersion,
        fixedVersion: v.FixedVersion ?? '',
        publishedDate: v.PublishedDate ?? '',
        lastModifiedDate: v.LastModifiedDate ?? '',
        severity: v.Severity,
        title: v.Title ?? '',
        ...(v.PrimaryURL ? { primaryLink: v.PrimaryURL } : {}),
        links: [],
        ...(score !== undefined ? { score } : {}),
        target: '',
        ...(v.PkgIdentifier?.PURL ? { packagePURL: v.PkgIdentifier.PURL } : {}),
      };
    }),
  );
  const count = (s: string) => vulnerabilities.filter((v) => v.severity === s).length;
  const repoDigest = trivy.Metadata?.RepoDigests?.[0]?.split('@')[1] ?? '';
  const { server, repository, tag, digest } = parseImageRef(image, repoDigest);
  const kindName = `${owner.kind.toLowerCase()}-${owner.name}-${container}`;
  const os = trivy.Metadata?.OS;
  return {
    apiVersion: 'aquasecurity.github.io/v1alpha1',
    kind: 'VulnerabilityReport',
    metadata: { name: isLabelValue(kindName) ? kindName : `${owner.kind.toLowerCase()}-${fnvHash(`${owner.name}-${container}`)}`, namespace: owner.namespace, ...ownerMeta(owner, { 'trivy-operator.container.name': container }) },
    report: {
      updateTimestamp: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      scanner: { name: 'Trivy', vendor: 'Aqua Security', version: trivy.Trivy?.Version ?? '' },
      registry: { server },
      artifact: { repository, ...(digest ? { digest } : {}), ...(tag ? { tag } : {}) },
      os: { family: os?.Family ?? '', ...(os?.Name ? { name: os.Name } : {}), ...(os?.EOSL ? { eosl: true } : {}) },
      summary: { criticalCount: count('CRITICAL'), highCount: count('HIGH'), mediumCount: count('MEDIUM'), lowCount: count('LOW'), unknownCount: vulnerabilities.length - SEVERITIES.reduce((n, s) => n + count(s), 0), noneCount: 0 },
      vulnerabilities,
    },
  };
}

/**
 * The operator's checkID is the rule's first alias (`KSV001`; policy.GetResultID); trivy
 * v0.74's JSON spells the ID `KSV-0001` and keeps the old one as the rule's package name
 * (`builtin.kubernetes.KSV001`).
 */
function checkIdOf(m: { ID: string; Namespace?: string }): string {
  const legacy = m.Namespace?.split('.').pop() ?? '';
  return /^[A-Z]+\d+$/.test(legacy) ? legacy : m.ID;
}

/**
 * `failedOnly`: the operator's default (`report.recordFailedChecksOnly: true` in its chart),
 * a report that lists failed checks only; false lists the passes too. Infrastructure checks
 * (KCV*) go to InfraAssessmentReports of control-plane components, never here (controller/helper.go filter).
 */
export function configAuditReport(trivy: TrivyConfigReport, owner: ReportOwner, now: Date, failedOnly = true): object {
  const checks = (trivy.Results ?? []).flatMap((r) =>
    (r.Misconfigurations ?? [])
      .filter((m) => !checkIdOf(m).startsWith('KCV') && !(failedOnly && m.Status === 'PASS'))
      .map((m) => {
      const success = m.Status === 'PASS';
      // getCheck: a result's description (trivy's Message) is the one message; a pass has none.
      const message = success ? '' : (m.Message ?? '');
      return {
        checkID: checkIdOf(m),
        title: m.Title ?? '',
        description: m.Description ?? '',
        severity: m.Severity,
        category: 'Kubernetes Security Check',
        ...(message ? { messages: [message] } : {}),
        remediation: m.Resolution ?? '',
        success,
      };
      }),
  );
  const failed = (s: string) => checks.filter((c) => !c.success && c.severity === s).length;
  const kindName = `${owner.kind.toLowerCase()}-${owner.name}`;
  return {
    apiVersion: 'aquasecurity.github.io/v1alpha1',
    kind: 'ConfigAuditReport',
    metadata: { name: DNS_LABEL.test(kindName) && kindName.length <= 63 ? kindName : `${owner.kind.toLowerCase()}-${fnvHash(owner.name)}`, namespace: owner.namespace, ...ownerMeta(owner, {}) },
    report: {
      updateTimestamp: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      scanner: { name: 'Trivy', vendor: 'Aqua Security', version: trivy.Trivy?.Version ?? '' },
      summary: { criticalCount: failed('CRITICAL'), highCount: failed('HIGH'), mediumCount: failed('MEDIUM'), lowCount: failed('LOW') },
      checks,
    },
  };
}

function main(argv: string[]): void {
  const [what, file, kind, namespace, name, uid, container, image] = argv;
  const apiVersion = kind === 'ReplicaSet' || kind === 'StatefulSet' || kind === 'DaemonSet' || kind === 'Deployment' ? 'apps/v1' : kind === 'Job' || kind === 'CronJob' ? 'batch/v1' : 'v1';
  if (!file || !kind || !namespace || !name || !uid) throw new Error('usage: trivy-reports.ts vuln|config <trivy.json> <kind> <namespace> <name> <uid> [<container> <image>]');
  const trivy: unknown = JSON.parse(readFileSync(file, 'utf8'));
  const owner = { apiVersion, kind, namespace, name, uid };
  if (what === 'vuln') {
    if (!container || !image) throw new Error('vuln needs <container> <image>');
    console.log(JSON.stringify(vulnerabilityReport(trivy as TrivyImageReport, owner, container, image, new Date()), null, 2));
  } else if (what === 'config') console.log(JSON.stringify(configAuditReport(trivy as TrivyConfigReport, owner, new Date()), null, 2));
  else throw new Error(`unknown report kind ${what ?? ''}: vuln or config`);
}

if (import.meta.url === `file://${process.argv[1]}`) main(process.argv.slice(2));
