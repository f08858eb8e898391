// Scans (spec §3 "Scan" transition, §4 `POST /security/scan`, `GET /security/scan/{id}`, §6
// scan history): the scanning configuration, the mode resolution's answer, a stored run, its
// summary, and the score trend over stored runs. The rules: docs/security-posture.md,
// "Scans and modes".
import * as v from 'valibot';
import { Timestamp, NamespaceName } from './common.ts';
import { CheckCounts, Grade, SeverityCounts } from './security.ts';

/** `security.scanning.mode` (spec §3 enums), and the runtime setting `scanner_source` that overrides it. */
export const ScanMode = v.picklist(['auto', 'operator', 'self']);
export type ScanMode = v.InferOutput<typeof ScanMode>;

/**
 * Where a run's vulnerabilities come from: trivy-operator's reports (`operator`), a self-scan
 * Job (`self`), or no scanner at all (`none`: the built-in checks only). Every run snapshots
 * the built-in checks whatever its source.
 */
export const ScanSource = v.picklist(['operator', 'self', 'none']);
export type ScanSource = v.InferOutput<typeof ScanSource>;

/** `security.scanning.*` as the chart sets it (CAPSTAN_SCANNING_ENABLED, _MODE, _RETENTION_DAYS). */
export const ScanningConfig = v.object({
  /** false: `POST /security/scan` answers 403. */
  enabled: v.boolean(),
  mode: ScanMode,
  /** Scan history (scan_runs and their findings) older than this is pruned when a run is inserted. */
  retentionDays: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(3650)),
});
export type ScanningConfig = v.InferOutput<typeof ScanningConfig>;

export const DEFAULT_SCANNING: ScanningConfig = { enabled: true, mode: 'auto', retentionDays: 90 };

/** Whether a self-scan may run now, and if not the status and reason it is refused with. */
export const SelfScanVerdict = v.variant('allowed', [
  v.object({ allowed: v.literal(true) }),
  v.object({
    allowed: v.literal(false),
    /** 402: the license lacks the `self_scan` feature (Pro); 403: hard-disabled or expert mode missing. */
    status: v.picklist([402, 403]),
    reason: v.string(),
  }),
]);
export type SelfScanVerdict = v.InferOutput<typeof SelfScanVerdict>;

/** What scan-mode.ts resolves from the chart's mode, the runtime override and what the cluster and license offer. */
export const ScanModeResolution = v.object({
  /** The mode in force: `scanner_source` when set, else the chart's. */
  mode: ScanMode,
  source: ScanSource,
  selfScan: SelfScanVerdict,
});
export type ScanModeResolution = v.InferOutput<typeof ScanModeResolution>;

/**
 * One namespace's numbers in a stored run: the posture's inputs and counts, so a summary or a
 * trend point is added up again from the namespaces a caller may see, never read whole.
 */
export const NamespaceScanCounts = v.object({
  namespace: v.string(),
  checks: CheckCounts,
  by_severity: SeverityCounts,
  workloads: v.number(),
  misconfigs: v.number(),
  vulns: v.number(),
});
export type NamespaceScanCounts = v.InferOutput<typeof NamespaceScanCounts>;

export const ScanStatus = v.picklist(['running', 'succeeded', 'failed']);
export type ScanStatus = v.InferOutput<typeof ScanStatus>;

/** A run's id: 16 hex digits (also the tail of its job name). */
export const ScanId = v.pipe(v.string(), v.regex(/^[0-9a-f]{16}$/, 'id must be a scan id (16 hex digits)'));

/** `POST /security/scan`: no input (spec §4 shows none). */
export const StartScanInput = v.object({});

/** `POST /security/scan`: answered at once; the run is collected in the background. */
export const ScanStarted = v.object({
  id: v.string(),
  /** Always `running`: either the run this request started, or the one already running (one at a time). */
  status: v.literal('running'),
  job_name: v.string(),
  source: ScanSource,
  started_at: Timestamp,
  /** false when a run was already running and this is it. */
  started: v.boolean(),
});
export type ScanStarted = v.InferOutput<typeof ScanStarted>;

export const ScanIdInput = v.object({ id: ScanId });

/** Counted over the namespaces the caller may see. */
export const ScanSummary = v.object({
  score: v.number(),
  grade: Grade,
  /** Failed built-in check results per severity, as `GET /security/posture` counts them. */
  by_severity: SeverityCounts,
  checks: CheckCounts,
  /** Vulnerability findings stored by the run. */
  vulns: v.number(),
  /** Misconfiguration findings stored by the run. */
  misconfigs: v.number(),
  workloads_covered: v.number(),
});
export type ScanSummary = v.InferOutput<typeof ScanSummary>;

/** `GET /security/scan/{id}`. */
export const ScanAnswer = v.object({
  id: v.string(),
  status: ScanStatus,
  job_name: v.string(),
  source: ScanSource,
  requested_by: v.string(),
  started_at: Timestamp,
  finished_at: v.nullable(Timestamp),
  error: v.nullable(v.string()),
  /** null while running, and for a failed run. */
  summary: v.nullable(ScanSummary),
});
export type ScanAnswer = v.InferOutput<typeof ScanAnswer>;

export const TREND_MAX_DAYS = 90;
export const TREND_DEFAULT_DAYS = 30;
/** The newest runs a trend reads at most (scans are one at a time and rate-limited, so this is weeks of hourly scans). */
export const TREND_MAX_POINTS = 500;


/** `GET /security/posture/trend`. */
export const TrendInput = v.object({
  namespace: v.optional(NamespaceName),
  days: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,3}$/, `days must be 1–${TREND_MAX_DAYS}`),
      v.transform(Number),
      v.minValue(1, `days must be 1–${TREND_MAX_DAYS}`),
      v.maxValue(TREND_MAX_DAYS, `days must be 1–${TREND_MAX_DAYS}`),
    ),
    String(TREND_DEFAULT_DAYS),
  ),
});
export type TrendInput = v.InferOutput<typeof TrendInput>;

/** One succeeded scan on the posture score trend. */
export const ScoreTrendPoint = v.object({
  /** When the run finished. */
  ts: Timestamp,
  score: v.number(),
  grade: Grade,
  scan_id: v.string(),
});
export type ScoreTrendPoint = v.InferOutput<typeof ScoreTrendPoint>;

export const TrendAnswer = v.object({
  namespace: v.nullable(v.string()),
  days: v.number(),
  /** Oldest first: one per succeeded run in the window. */
  points: v.array(ScoreTrendPoint),
});
export type TrendAnswer = v.InferOutput<typeof TrendAnswer>;

/** `GET`/`PUT /admin/settings/scanning` (the input is schema/settings.ts `ScanningSettings`): the chart's values, the override, and what they resolve to now. */
export const ScanningSettingsView = v.object({
  scanner_source: v.nullable(ScanMode),
  chart: v.object({ enabled: v.boolean(), mode: ScanMode, retention_days: v.number() }),
  effective: v.object({
    mode: ScanMode,
    source: ScanSource,
    self_scan: v.object({ allowed: v.boolean(), status: v.nullable(v.number()), reason: v.nullable(v.string()) }),
  }),
});
export type ScanningSettingsView = v.InferOutput<typeof ScanningSettingsView>;
