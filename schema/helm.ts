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

export const HelmReleaseList = v.object({ releases: v.array(HelmReleaseOut) });

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

/** Where a chart comes from: a chart repository (its index.yaml lists the chart) and a version (the newest when absent). */
export const ChartSource = v.object({
  repo_url: v.pipe(v.string(), v.url('chart.repo_url must be an http(s) URL'), v.regex(/^https?:\/\//, 'chart.repo_url must be an http(s) URL'), v.maxLength(2048)),
  name: v.pipe(v.string(), v.regex(/^[A-Za-z0-9][-A-Za-z0-9_.]*$/, 'chart.name must be a chart name'), v.maxLength(250)),
  version: v.optional(v.pipe(v.string(), v.regex(/^v?[0-9A-Za-z.+-]+$/, 'chart.version must be a version'), v.maxLength(100))),
});
export type ChartSource = v.InferOutput<typeof ChartSource>;

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
