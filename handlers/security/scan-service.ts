import type { NamespaceScanCounts, ScanningConfig, ScanSource, ScanStatus } from '../../schema/security-scan.ts';

/** A stored run, as the store keeps it (times in epoch ms). */
export interface ScanRun {
  id: string;
  status: ScanStatus;
  job_name: string;
  source: ScanSource;
  requested_by: string;
  started_at: number;
  finished_at: number | null;
  error: string | null;
}

/** A run with its per-namespace counts (empty until it succeeded). */
export interface StoredScan {
  run: ScanRun;
  counts: NamespaceScanCounts[];
}

/**
 * Scans and their history (runtime/security/scan-runner.ts). One run at a time; a run is
 * collected in the background right after it starts, and by `get` when it still runs.
 */
export interface ScanService {
  /** `security.scanning.*` from the chart. */
  readonly config: ScanningConfig;
  /** Whether the API server serves trivy-operator's report CRDs. */
  operatorReportsServed(): boolean;
  /** Starts a run with `source`, unless one is running: then that one, with `started: false`. */
  start(source: ScanSource, requestedBy: string): Promise<{ run: ScanRun; started: boolean }>;
  /** The run, collected first if it is still running; null when unknown (or pruned). */
  get(id: string): Promise<StoredScan | null>;
  /** Succeeded runs finished at or after `sinceMs`, oldest first, at most `limit` (the newest ones). */
  history(sinceMs: number, limit: number): Promise<StoredScan[]>;
}
