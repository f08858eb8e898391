// Security posture (spec §1 "Security", §2 "Findings"): the compact pod spec every built-in
// check reads, the misconfiguration finding they produce, and the posture they add up to.
// The checks, their severities and the formula: docs/security-posture.md.
import * as v from 'valibot';
import { NamespaceName } from './common.ts';

/**
 * A security finding's severity: trivy's ladder, for vulnerabilities and misconfiguration checks alike, upper case as the spec's filters spell it (`CRITICAL`).
 * UNKNOWN is trivy's rung for an advisory without a rating; no built-in check uses it.
 */
export const SecuritySeverity = v.picklist(['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'UNKNOWN']);
export type SecuritySeverity = v.InferOutput<typeof SecuritySeverity>;
export const SEVERITIES: readonly SecuritySeverity[] = SecuritySeverity.options;
/** A severity's place on the ladder, 0 for CRITICAL: the one order every sort uses. */
export const SEVERITY_RANK: Readonly<Record<SecuritySeverity, number>> = Object.fromEntries(SEVERITIES.map((s, i) => [s, i])) as Record<SecuritySeverity, number>;

/** Where a check comes from: the Pod Security Standards' two profiles, or workload hygiene. */
export const CheckFamily = v.picklist(['pss-baseline', 'pss-restricted', 'hygiene']);
export type CheckFamily = v.InferOutput<typeof CheckFamily>;

/** SELinux options as set; an empty string is the same as unset (as the PSS treat it). */
export const SeLinuxOptions = v.object({ type: v.string(), user: v.string(), role: v.string() });
export type SeLinuxOptions = v.InferOutput<typeof SeLinuxOptions>;

/**
 * The security-relevant part of a securityContext, pod or container level. `null` is
 * "not set", which the PSS often allow and which is not the same as `false`.
 */
const CommonSecurityContext = {
  runAsNonRoot: v.nullable(v.boolean()),
  runAsUser: v.nullable(v.number()),
  /** seccompProfile.type as written (RuntimeDefault, Localhost, Unconfined, or anything else). */
  seccompProfileType: v.nullable(v.string()),
  /** appArmorProfile.type as written (RuntimeDefault, Localhost, Unconfined, ...). */
  appArmorProfileType: v.nullable(v.string()),
  seLinuxOptions: v.nullable(SeLinuxOptions),
  /** windowsOptions.hostProcess. */
  windowsHostProcess: v.nullable(v.boolean()),
};

export const PodSecurityContext = v.object({
  ...CommonSecurityContext,
  /** Sysctl names only: the PSS judge the name, and values are not ours to keep. */
  sysctls: v.array(v.string()),
});
export type PodSecurityContext = v.InferOutput<typeof PodSecurityContext>;

export const ContainerSecurityContext = v.object({
  ...CommonSecurityContext,
  privileged: v.nullable(v.boolean()),
  allowPrivilegeEscalation: v.nullable(v.boolean()),
  /** capabilities.add / .drop as written (case kept: the PSS compare exactly, "all" is not "ALL"). */
  capabilitiesAdd: v.array(v.string()),
  capabilitiesDrop: v.array(v.string()),
  procMount: v.nullable(v.string()),
});
export type ContainerSecurityContext = v.InferOutput<typeof ContainerSecurityContext>;

/** Which list of the pod spec a container sits in. */
export const ContainerKind = v.picklist(['container', 'init', 'ephemeral']);
export type ContainerKind = v.InferOutput<typeof ContainerKind>;

/** An env entry whose name (or literal value) looks like a secret: its name and how it is set, never the value. */
export const SecretLookingEnv = v.object({
  name: v.string(),
  /** true: a literal `value` in the spec; false: from a Secret, ConfigMap or field (`valueFrom`). */
  literal: v.boolean(),
});
export type SecretLookingEnv = v.InferOutput<typeof SecretLookingEnv>;

export const ContainerSecuritySpec = v.object({
  name: v.string(),
  kind: ContainerKind,
  image: v.string(),
  /** Every declared port's hostPort, 0 when unset (0 is what the API means by "no host port"). */
  ports: v.array(v.object({ hostPort: v.number() })),
  securityContext: ContainerSecurityContext,
  /** Whether each is declared, in requests or limits (values are not judged here). */
  resources: v.object({
    cpuRequest: v.boolean(),
    memoryRequest: v.boolean(),
    cpuLimit: v.boolean(),
    memoryLimit: v.boolean(),
  }),
  probes: v.object({ liveness: v.boolean(), readiness: v.boolean() }),
  /** Non-empty `host` fields of httpGet/tcpSocket probes and lifecycle handlers (PSS baseline, 1.34). */
  probeHosts: v.array(v.string()),
  /** AppArmor beta annotation for this container (`container.apparmor.security.beta.kubernetes.io/<name>`), if any. */
  appArmorAnnotation: v.nullable(v.string()),
  secretEnv: v.array(SecretLookingEnv),
});
export type ContainerSecuritySpec = v.InferOutput<typeof ContainerSecuritySpec>;

export const VolumeSpec = v.object({
  name: v.string(),
  /** The volume source's field name as the API spells it (hostPath, configMap, nfs, ...), or `unknown`. */
  type: v.string(),
  /** The host path, for a hostPath volume. */
  hostPath: v.nullable(v.string()),
});
export type VolumeSpec = v.InferOutput<typeof VolumeSpec>;

/** The input of every built-in check: a pod's spec, or a workload's pod template, cut to what they read. */
export const PodSecuritySpec = v.object({
  hostNetwork: v.boolean(),
  hostPID: v.boolean(),
  hostIPC: v.boolean(),
  /** spec.os.name: Windows pods are exempt from some restricted controls (PSS 1.25+). */
  os: v.nullable(v.string()),
  securityContext: PodSecurityContext,
  /** The ServiceAccount the pod runs as (`default` when the spec names none). */
  serviceAccountName: v.string(),
  automountServiceAccountToken: v.nullable(v.boolean()),
  volumes: v.array(VolumeSpec),
  /** Init containers, then containers, then ephemeral containers, as the PSS visit them. */
  containers: v.array(ContainerSecuritySpec),
});
export type PodSecuritySpec = v.InferOutput<typeof PodSecuritySpec>;

/**
 * A misconfiguration finding (spec §2): `namespace`, `workload`, `check_id`, `severity`,
 * `message`, `resource`, `source`, plus what the dashboard and the export need to act on it.
 */
export const MisconfigFinding = v.object({
  /** `<namespace>/<Kind>/<name>#<check_id>[:<container>]`: stable while the misconfiguration lasts. */
  id: v.string(),
  namespace: v.string(),
  /** The workload's name. */
  workload: v.string(),
  workload_kind: v.string(),
  check_id: v.string(),
  severity: SecuritySeverity,
  /** Names the container (or the pod) and what it sets. */
  message: v.string(),
  remediation: v.string(),
  /** `<Kind>/<name>` of the object to fix. */
  resource: v.string(),
  /** The container at fault; null when the pod spec as a whole is (host namespaces, volumes...). */
  container: v.nullable(v.string()),
  /** `capstan` for the built-in checks; `trivy` for a scanner's ConfigAuditReport. */
  source: v.picklist(['capstan', 'trivy']),
});
export type MisconfigFinding = v.InferOutput<typeof MisconfigFinding>;

export const SeverityCounts = v.object({
  CRITICAL: v.number(),
  HIGH: v.number(),
  MEDIUM: v.number(),
  LOW: v.number(),
  UNKNOWN: v.number(),
});
export type SeverityCounts = v.InferOutput<typeof SeverityCounts>;
/** Every severity counted zero, to add to. */
export const zeroCounts = (): SeverityCounts => ({ CRITICAL: 0, HIGH: 0, MEDIUM: 0, LOW: 0, UNKNOWN: 0 });

export const Grade = v.picklist(['A+', 'A', 'A-', 'B+', 'B', 'B-', 'C+', 'C', 'C-', 'D+', 'D', 'D-', 'F']);
export type Grade = v.InferOutput<typeof Grade>;

/** The formula's inputs, so a reader can redo the score: passed results, failed at warning and at danger level. */
export const CheckCounts = v.object({ passed: v.number(), warnings: v.number(), dangers: v.number() });
export type CheckCounts = v.InferOutput<typeof CheckCounts>;

export const FailingCheck = v.object({
  check_id: v.string(),
  severity: SecuritySeverity,
  title: v.string(),
  /** Failed results (one per container or pod at fault). */
  failures: v.number(),
  /** Distinct workloads with at least one failure. */
  workloads: v.number(),
});
export type FailingCheck = v.InferOutput<typeof FailingCheck>;

const PostureFields = {
  grade: Grade,
  /** 0–100, Polaris' formula over `checks`. */
  score: v.number(),
  /** Failed findings per severity. */
  by_severity: SeverityCounts,
  /** Workloads the checks ran on. */
  workloads_covered: v.number(),
  checks: CheckCounts,
  /** The checks failing on the most workloads, worst first. */
  top_failing_checks: v.array(FailingCheck),
};

export const NamespacePosture = v.object({ namespace: v.string(), ...PostureFields });
export type NamespacePosture = v.InferOutput<typeof NamespacePosture>;

/** Posture (spec §2): `grade`, `score`, `by_severity`, `workloads_covered`, and per namespace the same. */
export const Posture = v.object({
  ...PostureFields,
  /** Worst score first, then by name. */
  namespaces: v.array(NamespacePosture),
});
export type Posture = v.InferOutput<typeof Posture>;


/** `GET /security/posture`. */
export const PostureInput = v.object({
  /** One namespace's posture (its fields at the top level); a hidden one is the standard 403. */
  namespace: v.optional(NamespaceName),
});

/** `GET /security/posture`: the cluster's (or one namespace's) posture as the caller may see it. */
export const PostureAnswer = v.object({
  /** The namespace asked for, or null for every visible namespace. */
  namespace: v.nullable(v.string()),
  ...PostureFields,
  /** The visible namespaces with workloads, worst score first (just the one asked for, when there is one). */
  namespaces: v.array(NamespacePosture),
});
export type PostureAnswer = v.InferOutput<typeof PostureAnswer>;

/**
 * A vulnerability finding (spec §2), from a scanner's report: trivy-operator's
 * VulnerabilityReports (domain/security/trivy-reports.ts).
 */
export const VulnFinding = v.object({
  /** `<namespace>/<Kind>/<name>#<cve>:<pkg>:<image>`. */
  id: v.string(),
  namespace: v.string(),
  workload: v.string(),
  /** The workload's kind, so two same-named workloads of different kinds stay apart. */
  workload_kind: v.string(),
  image: v.string(),
  cve: v.string(),
  severity: SecuritySeverity,
  cvss: v.nullable(v.number()),
  pkg: v.string(),
  installed_ver: v.string(),
  fixed_ver: v.nullable(v.string()),
  fix_available: v.boolean(),
  source: v.picklist(['trivy', 'capstan']),
});
export type VulnFinding = v.InferOutput<typeof VulnFinding>;

export const FINDINGS_SORTS = ['severity', 'cvss', 'fixable', 'namespace', 'workload'] as const;
export const FindingsSort = v.picklist(FINDINGS_SORTS);
export type FindingsSort = v.InferOutput<typeof FindingsSort>;

/** The largest `page_size` `GET /security/findings` serves. */
export const FINDINGS_MAX_PAGE_SIZE = 500;
export const FINDINGS_DEFAULT_PAGE_SIZE = 50;

/** `GET /security/findings` (spec §4 "Security"); invalid values are 400 naming the field. */
export const FindingsInput = v.object({
  namespace: v.optional(NamespaceName),
  severity: v.optional(v.picklist(SecuritySeverity.options, 'severity must be CRITICAL, HIGH, MEDIUM, LOW or UNKNOWN')),
  /** Only this kind; the other list is empty. */
  kind: v.optional(v.picklist(['vuln', 'misconfig'], 'kind must be vuln or misconfig')),
  /** `true`: only vulnerabilities with a fixed version. Misconfigurations are not filtered by it. */
  fixable: v.optional(v.picklist(['true'], 'fixable must be true')),
  /** Exactly this workload's findings (its name; with `workload_kind`, only that kind's). */
  workload: v.optional(v.pipe(v.string(), v.regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, 'workload must be an object name'), v.maxLength(253, 'workload must be at most 253 characters'))),
  workload_kind: v.optional(v.pipe(v.string(), v.regex(/^[A-Z][A-Za-z]{0,62}$/, 'workload_kind must be a kind such as Deployment'))),
  /** `image`: also `groups`, the vulnerabilities counted per image. */
  group_by: v.optional(v.picklist(['image'], 'group_by must be image')),
  /** Case-insensitive substring of namespace, workload, resource, image, CVE, package, check or message. */
  search: v.optional(v.pipe(v.string(), v.maxLength(200, 'search must be at most 200 characters'))),
  sort: v.optional(v.picklist(FINDINGS_SORTS, 'sort must be severity, cvss, fixable, namespace or workload'), 'severity'),
  /** From 1; a page past the last (or 0) clamps into range, as spec §7 asks. Without it, everything. */
  page: v.optional(v.pipe(v.string(), v.regex(/^\d{1,15}$/, 'page must be a whole number'), v.transform(Number))),
  page_size: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,4}$/, `page_size must be 1–${FINDINGS_MAX_PAGE_SIZE}`),
      v.transform(Number),
      v.minValue(1, `page_size must be 1–${FINDINGS_MAX_PAGE_SIZE}`),
      v.maxValue(FINDINGS_MAX_PAGE_SIZE, `page_size must be 1–${FINDINGS_MAX_PAGE_SIZE}`),
    ),
  ),
});
export type FindingsInput = v.InferOutput<typeof FindingsInput>;

/** One row of a page: either kind, tagged. */
export const FindingRow = v.variant('kind', [v.object({ kind: v.literal('vuln'), ...VulnFinding.entries }), v.object({ kind: v.literal('misconfig'), ...MisconfigFinding.entries })]);
export type FindingRow = v.InferOutput<typeof FindingRow>;

/** `group_by=image`: the vulnerabilities of one image. */
export const ImageGroup = v.object({
  image: v.string(),
  findings: v.number(),
  by_severity: SeverityCounts,
  /** Findings with a fixed version. */
  fixable: v.number(),
  /** Distinct `<namespace>/<workload>` running it. */
  workloads: v.number(),
});
export type ImageGroup = v.InferOutput<typeof ImageGroup>;

/**
 * Whether Capstan reads a kind of trivy-operator report: `read`; `not_installed` (the API server
 * does not serve its CRD); `forbidden` (RBAC refuses the list); `off` (the agent does not watch
 * them); `pending` (the first list has not answered yet).
 */
export const ReportSourceState = v.picklist(['read', 'not_installed', 'forbidden', 'off', 'pending']);
export type ReportSourceState = v.InferOutput<typeof ReportSourceState>;
export const ScannerReportStatus = v.object({ vulnerabilityreports: ReportSourceState, configauditreports: ReportSourceState });
export type ScannerReportStatus = v.InferOutput<typeof ScannerReportStatus>;

/**
 * `GET /security/findings`: `{vulns, misconfigs}`, everything that matches; with `page`, the
 * two lists hold that page's rows only, `rows` the same page in order with each row's `kind`.
 */
export const FindingsAnswer = v.object({
  vulns: v.array(VulnFinding),
  misconfigs: v.array(MisconfigFinding),
  rows: v.optional(v.array(FindingRow)),
  page: v.optional(v.number()),
  page_size: v.optional(v.number()),
  /** Matching findings of both kinds. */
  total: v.optional(v.number()),
  has_more: v.optional(v.boolean()),
  sort: v.optional(FindingsSort),
  /** With `group_by=image`: every matching vulnerability counted per image (not paged), most severe first. */
  groups: v.optional(v.array(ImageGroup)),
  /** Whether trivy-operator's reports were read (`vulns` and `source: trivy` misconfigurations come from them), and if not why. */
  scanner_reports: v.optional(ScannerReportStatus),
});
export type FindingsAnswer = v.InferOutput<typeof FindingsAnswer>;
