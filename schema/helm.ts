// Helm releases and operations (docs/helm.md): reads under `helm:read`, writes under
// `helm:write` through the expert pod (docs/expert-mode.md), each write a Task.
import * as v from 'valibot';
import { HELM_STATUSES } from '../domain/helm/release.ts';
import { NamespaceName, Timestamp } from './common.ts';

/** A release's name as Helm accepts it (a DNS-1123 label of at most 53 characters: Helm appends suffixes to it). */
export const ReleaseName = v.pipe(v.string(), v.regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'name must be lowercase letters, digits and dashes, starting and ending with a letter or digit'), v.maxLength(53, 'name must be at most 53 characters'));

export const HelmRevisionOut = v.object({
  revision: v.number(),
  status: v.picklist(HELM_STATUSES),
  chart: v.string(),
  chart_version: v.string(),
  app_version: v.string(),
  updated: v.nullable(Timestamp),
  description: v.string(),
});

export const StuckOut = v.object({
  code: v.literal('helm_release_stuck'),
  message: v.string(),
  /** The safe way out, an admin action: a rollback to the last deployed revision, or an uninstall when none was. */
  recovery: v.variant('action', [v.object({ action: v.literal('rollback'), to_revision: v.number() }), v.object({ action: v.literal('uninstall') })]),
});

export const HelmReleaseOut = v.object({
  name: v.string(),
  namespace: v.string(),
  ...HelmRevisionOut.entries,
  /** Set when the release has been pending longer than Helm's timeout (docs/helm.md "Stuck releases"). */
  stuck: v.nullable(StuckOut),
});

export const HelmReleaseList = v.object({
  releases: v.array(HelmReleaseOut),
  /** The expert pod keeps at most 20,000 revisions: past that some releases are missing here. */
  truncated: v.boolean(),
});

export const HelmReleaseListInput = v.object({ namespace: v.optional(NamespaceName) });

export const HelmReleaseRef = v.object({ namespace: NamespaceName, name: ReleaseName });

export const HelmReleaseDetail = v.object({
  release: HelmReleaseOut,
  /** Every revision Helm keeps, newest first. */
  history: v.array(HelmRevisionOut),
  /** The user-supplied values of the current revision, secret-looking values shown as [REDACTED]. */
  values: v.record(v.string(), v.unknown()),
});

/** Values given to an install or upgrade: a JSON object, at most 64 KiB as JSON. */
export const HelmValues = v.pipe(
  v.record(v.string(), v.unknown()),
  v.check((values) => JSON.stringify(values).length <= 64 * 1024, 'values must be at most 64 KiB as JSON'),
);

const HttpUrl = (field: string) => v.pipe(v.string(), v.url(`${field} must be an http(s) URL`), v.regex(/^https?:\/\//, `${field} must be an http(s) URL`), v.maxLength(2048));
/** An OCI registry location: `oci://host[:port]/path` (the chart's name is appended). */
const OciUrl = (field: string) => v.pipe(v.string(), v.regex(/^oci:\/\/[A-Za-z0-9.-]+(:[0-9]{1,5})?(\/[a-z0-9]+([._-][a-z0-9]+)*)*\/?$/, `${field} must be oci://host[:port]/path`), v.maxLength(2048));

/**
 * Where a chart comes from, exactly one of: a chart repository (`repo_url`, whose index.yaml
 * lists the chart; the newest version when none is given), an OCI registry (`oci_url`, a version
 * required), or a saved Helm config (`config_id`: its URL and credentials, docs/helm.md).
 */
export const ChartSource = v.pipe(
  v.object({
    repo_url: v.optional(HttpUrl('chart.repo_url')),
    oci_url: v.optional(OciUrl('chart.oci_url')),
    config_id: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
    name: v.pipe(v.string(), v.regex(/^[a-z0-9]([-a-z0-9_.]*[a-z0-9])?$/, 'chart.name must be a chart name (lowercase letters, digits, - _ .)'), v.maxLength(250)),
    version: v.optional(v.pipe(v.string(), v.regex(/^v?[0-9A-Za-z.+-]+$/, 'chart.version must be a version'), v.maxLength(100))),
    /** An OCI registry over plain HTTP (Helm's --plain-http): its credentials cross the network in the clear. */
    plain_http: v.optional(v.boolean(), false),
  }),
  v.check((c) => [c.repo_url, c.oci_url, c.config_id].filter((x) => x !== undefined).length === 1, 'chart needs exactly one of repo_url, oci_url or config_id'),
);
export type ChartSource = v.InferOutput<typeof ChartSource>;

/** How a saved config's password is shown: never itself (spec "shown masked as •••• in API responses"). */
export const PASSWORD_MASK = '••••';

/** A saved Helm config (repository or registry, with credentials), admin sessions only: docs/helm.md "Saved configs". */
export const HelmConfigInput = v.object({
  name: v.pipe(v.string(), v.trim(), v.minLength(1, 'name is required'), v.maxLength(63, 'name must be at most 63 characters')),
  url: v.union([HttpUrl('url'), OciUrl('url')], 'url must be an http(s) chart repository or oci://host[:port]/path'),
  username: v.optional(v.pipe(v.string(), v.maxLength(256, 'username must be at most 256 characters'))),
  /** Write-only: sealed at rest, never answered. On update, absent keeps the saved one and "" removes it. */
  password: v.optional(v.pipe(v.string(), v.maxLength(1024, 'password must be at most 1024 characters'))),
  /** An OCI registry over plain HTTP (Helm's --plain-http). */
  plain_http: v.optional(v.boolean(), false),
});
export type HelmConfigInput = v.InferOutput<typeof HelmConfigInput>;
export const HelmConfigId = v.object({ id: v.pipe(v.string(), v.regex(/^[1-9][0-9]{0,9}$/, 'id must be a number'), v.transform(Number)) });
export const HelmConfigUpdate = v.object({ ...HelmConfigId.entries, ...HelmConfigInput.entries });

export const HelmConfigOut = v.object({
  id: v.number(),
  name: v.string(),
  kind: v.picklist(['repository', 'oci']),
  url: v.string(),
  username: v.nullable(v.string()),
  plain_http: v.boolean(),
  /** `••••` when a password is saved, null when none. */
  password: v.nullable(v.literal(PASSWORD_MASK)),
  created_by: v.string(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export const HelmConfigList = v.object({ configs: v.array(HelmConfigOut) });
export const HelmConfigDeleted = v.object({ deleted: v.literal(true), id: v.number() });

export const HelmInstallInput = v.object({
  namespace: NamespaceName,
  name: ReleaseName,
  chart: ChartSource,
  values: v.optional(HelmValues, {}),
  /** Wait until every resource is ready (Helm's --wait), at most timeout_secs. */
  wait: v.optional(v.boolean(), false),
  timeout_secs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(10), v.maxValue(900)), 300),
});
export type HelmInstallInput = v.InferOutput<typeof HelmInstallInput>;

export const HelmUpgradeInput = v.object({ ...HelmReleaseRef.entries, chart: ChartSource, values: v.optional(HelmValues, {}), wait: v.optional(v.boolean(), false), timeout_secs: HelmInstallInput.entries.timeout_secs });
export type HelmUpgradeInput = v.InferOutput<typeof HelmUpgradeInput>;

/** The dry run before an install or upgrade: what would change. */
export const HelmDiffInput = v.object({ ...HelmReleaseRef.entries, chart: ChartSource, values: v.optional(HelmValues, {}) });
export type HelmDiffInput = v.InferOutput<typeof HelmDiffInput>;

export const HelmRollbackInput = v.object({ ...HelmReleaseRef.entries, revision: v.pipe(v.number(), v.integer(), v.minValue(1)) });
export type HelmRollbackInput = v.InferOutput<typeof HelmRollbackInput>;

export const HelmDiff = v.object({
  /** Whether the release exists now (false: the diff is an install's, every line added). */
  installed: v.boolean(),
  chart: v.string(),
  chart_version: v.string(),
  /** A unified diff of the rendered manifests, Secrets' data hidden on both sides; empty when nothing would change. */
  diff: v.string(),
  added: v.number(),
  removed: v.number(),
});

export const HelmTaskStarted = v.object({ task_id: v.string(), state: v.literal('running') });

export const ExpertModeSwitch = v.object({ enabled: v.boolean() });
export const ExpertModeState = v.object({
  enabled: v.boolean(),
  /** Whether the chart provisioned the expert pod (expertMode.enabled); the switch turns on only then. */
  provisioned: v.boolean(),
});
