// Which scanner a scan uses, and whether a self-scan may run (spec §1 `security.scanning.mode`,
// "Tiers"). One pure rule for POST /security/scan and the admin settings page, so both say the
// same thing. The table: docs/security-posture.md, "Scans and modes".
import type { ScanMode, ScanModeResolution, SelfScanVerdict } from '../../schema/security-scan.ts';

export interface ScanModeInputs {
  /** `security.scanning.mode` from the chart. */
  mode: ScanMode;
  /** The runtime setting `scanner_source`; null keeps the chart's mode. */
  scannerSource: ScanMode | null;
  /** Whether the API server serves trivy-operator's report CRDs (aquasecurity.github.io/v1alpha1). */
  operatorCrdsServed: boolean;
  /** Whether the license carries the `self_scan` feature (Pro). */
  licensed: boolean;
  /** Whether expert mode is on: the chart installed the expert pod (expertMode.enabled) and an admin turned the runtime switch on. */
  expertMode: boolean;
}

export const SELF_SCAN_HARD_DISABLED = 'security.scanning.mode=operator hard-disables self-scan (spec §1); the runtime setting scanner_source cannot turn it back on';
export const SELF_SCAN_NOT_LICENSED = 'self-scan is a Pro feature (licensed feature self_scan); this license tier does not include it';
export const SELF_SCAN_NO_EXPERT_MODE = 'self-scan also needs expert mode: the chart\'s expertMode.enabled=true and the runtime switch on (Admin → Expert mode, PUT /admin/expert-mode)';

/**
 * The checks run in this order, so a refusal names the first thing to change: the chart's
 * `operator` mode (nothing at runtime lifts it), then the license (402), then expert mode.
 */
function selfScanVerdict(i: ScanModeInputs): SelfScanVerdict {
  if (i.mode === 'operator') return { allowed: false, status: 403, reason: SELF_SCAN_HARD_DISABLED };
  if (!i.licensed) return { allowed: false, status: 402, reason: SELF_SCAN_NOT_LICENSED };
  if (!i.expertMode) return { allowed: false, status: 403, reason: SELF_SCAN_NO_EXPERT_MODE };
  return { allowed: true };
}

/**
 * - `operator`: the operator's reports when its CRDs are served, else no scanner (`none`);
 *   never a self-scan.
 * - `auto`: the operator's reports when served; otherwise a self-scan if one may run,
 *   otherwise `none` (the built-in checks alone, never a refusal: auto asks for nothing paid).
 * - `self`: a self-scan; POST /security/scan refuses with `selfScan`'s status when it may not run.
 *   `source` is then `none`, what the run would have had.
 * The effective mode is `scanner_source` when set, else the chart's; the chart's `operator`
 * still refuses a self-scan whatever `scanner_source` says.
 */
export function resolveScanMode(i: ScanModeInputs): ScanModeResolution {
  const mode = i.scannerSource ?? i.mode;
  const selfScan = selfScanVerdict(i);
  if (mode === 'operator') return { mode, source: i.operatorCrdsServed ? 'operator' : 'none', selfScan };
  if (mode === 'auto') return { mode, source: i.operatorCrdsServed ? 'operator' : selfScan.allowed ? 'self' : 'none', selfScan };
  return { mode, source: selfScan.allowed ? 'self' : 'none', selfScan };
}

/**
 * Whether trivy-operator's reports count (findings, posture, a scan's vulnerabilities): in
 * `auto` and `operator` mode, not while the mode in force is `self`, where the admin chose
 * Capstan's own scanner over whatever the operator last wrote.
 */
export function operatorReportsCount(i: Pick<ScanModeInputs, 'mode' | 'scannerSource'>): boolean {
  return (i.scannerSource ?? i.mode) !== 'self';
}

/** Whether POST /security/scan must refuse under this resolution: only an explicit `self` that may not run. */
export function scanRefusal(r: ScanModeResolution): { status: 402 | 403; reason: string } | null {
  if (r.mode !== 'self' || r.selfScan.allowed) return null;
  return { status: r.selfScan.status, reason: r.selfScan.reason };
}
