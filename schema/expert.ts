// The hop between the agent and the expert pod (docs/expert-mode.md): what the agent sends and
// what the expert answers. Both sides validate with these; the hop is internal, not the API.
import * as v from 'valibot';
import { HELM_STATUSES } from '../domain/helm/release.ts';
import { IMAGE_REFERENCE, SELF_SCAN_MAX_IMAGES } from '../domain/security/self-scan.ts';
import { MAX_VULNS_PER_REPORT } from '../domain/security/trivy-reports.ts';
import { NamespaceName } from './common.ts';
import { HelmValues, ReleaseName } from './helm.ts';
import { SecuritySeverity, SeverityCounts } from './security.ts';

/** The audience the agent's projected token is minted for and the expert's TokenReview requires. */
export const EXPERT_AUDIENCE = 'capstan-expert';

/** A chart package, as the agent fetched and checked it: base64 of the .tgz, at most 10 MiB. */
export const CHART_PACKAGE_MAX_BYTES = 10 * 1024 * 1024;
export const ChartPackage = v.pipe(v.string(), v.base64('chart package must be base64'), v.maxLength(Math.ceil(CHART_PACKAGE_MAX_BYTES / 3) * 4));

export const WireRevision = v.object({
  name: v.string(),
  namespace: v.string(),
  revision: v.number(),
  status: v.picklist(HELM_STATUSES),
  chart: v.string(),
  chart_version: v.string(),
  app_version: v.string(),
  updated: v.nullable(v.string()),
  description: v.string(),
});
export type WireRevision = v.InferOutput<typeof WireRevision>;

export const WireReleases = v.object({ revisions: v.array(WireRevision), synced: v.boolean(), truncated: v.boolean() });
export type WireReleases = v.InferOutput<typeof WireReleases>;

export const WireValues = v.object({ values: v.record(v.string(), v.unknown()) });
export type WireValues = v.InferOutput<typeof WireValues>;

const Target = { namespace: NamespaceName, name: ReleaseName };
const Timing = { wait: v.boolean(), timeout_secs: v.pipe(v.number(), v.integer(), v.minValue(10), v.maxValue(900)) };

export const WireOperation = v.variant('operation', [
  v.object({ operation: v.literal('install'), ...Target, package: ChartPackage, values: HelmValues, ...Timing }),
  v.object({ operation: v.literal('upgrade'), ...Target, package: ChartPackage, values: HelmValues, ...Timing }),
  v.object({ operation: v.literal('rollback'), ...Target, revision: v.pipe(v.number(), v.integer(), v.minValue(1)), ...Timing }),
  v.object({ operation: v.literal('uninstall'), ...Target, ...Timing }),
  v.object({ operation: v.literal('diff'), ...Target, package: ChartPackage, values: HelmValues }),
]);
export type WireOperation = v.InferOutput<typeof WireOperation>;

export const WireOperationResult = v.variant('ok', [
  v.object({ ok: v.literal(true), summary: v.string(), diff: v.optional(v.object({ installed: v.boolean(), diff: v.string(), added: v.number(), removed: v.number() })) }),
  v.object({ ok: v.literal(false), timed_out: v.boolean(), message: v.string() }),
]);
export type WireOperationResult = v.InferOutput<typeof WireOperationResult>;

/** A scan Job's name: the scan run's `job_name` (`capstan-scan-<id>`), a DNS label. */
const JobName = v.pipe(v.string(), v.regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, 'job_name must be a DNS label'));
const ImageReference = v.pipe(v.string(), v.regex(IMAGE_REFERENCE, 'each image must be a plain image reference'));

/**
 * The agent asks the expert pod to scan these images in one Job (docs/security-posture.md,
 * "Self-scan"). Everything else about the Job (scanner image, cache, resources, deadline) is
 * the expert's own configuration from the chart: the agent cannot make it run another pod.
 */
export const WireSelfScan = v.object({
  job_name: JobName,
  images: v.pipe(v.array(ImageReference), v.minLength(1, 'images must name at least one image'), v.maxLength(SELF_SCAN_MAX_IMAGES)),
});
export type WireSelfScan = v.InferOutput<typeof WireSelfScan>;

const WireVulnerability = v.object({
  cve: v.string(),
  pkg: v.string(),
  installed: v.string(),
  fixed: v.nullable(v.string()),
  severity: SecuritySeverity,
  score: v.nullable(v.number()),
  title: v.string(),
  link: v.nullable(v.string()),
});

export const WireImageResult = v.variant('ok', [
  v.object({ image: v.string(), ok: v.literal(true), vulnerabilities: v.pipe(v.array(WireVulnerability), v.maxLength(MAX_VULNS_PER_REPORT)), summary: SeverityCounts, dropped: v.number() }),
  v.object({ image: v.string(), ok: v.literal(false), message: v.string() }),
]);

/** The longest a scan Job may run (CAPSTAN_SELF_SCAN_TIMEOUT_SECS): the agent waits this and a little more. */
export const SELF_SCAN_MAX_TIMEOUT_SECS = 7200;

export const WireSelfScanResult = v.variant('ok', [
  v.object({ ok: v.literal(true), results: v.array(WireImageResult) }),
  v.object({ ok: v.literal(false), timed_out: v.boolean(), message: v.string() }),
]);
export type WireSelfScanResult = v.InferOutput<typeof WireSelfScanResult>;
