// The whole-cluster diagnosis the handlers read scoped (domain/diagnosis/scoped.ts).
import type { ClusterView } from '../../domain/cluster/model.ts';
import type { Clock } from '../../domain/clock.ts';
import { diagnose, type AnalyzerEntry } from '../../domain/diagnosis/engine.ts';
import type { Memo } from '../../handlers/context.ts';
import { DIAGNOSIS_TTL_MS, type DiagnosisService } from '../../handlers/diagnosis/service.ts';
import { noCrashLogs, type CrashLogReader } from './crash-logs.ts';

export interface DiagnosisServiceOptions {
  /** Default: every analyzer of domain/diagnosis/analyzers; tests hand in their own. */
  analyzers?: readonly AnalyzerEntry[] | undefined;
  /** Where crashed containers' last log lines are read (none by default). */
  crashLogs?: CrashLogReader;
  /** Told how long each run took, in seconds (Capstan's own metrics). */
  observe?: (seconds: number) => void;
}

/**
 * The whole-cluster diagnosis from the raw (unscoped) cluster view, made at most once per
 * DIAGNOSIS_TTL_MS whoever asks: every surface (diagnosis, incidents, overview, the cluster
 * model, MCP) reads the same one and cuts it to its caller. Each run also starts the log reads
 * of crashes not read yet; what they find is in the runs after.
 */
export function createDiagnosisService(cluster: ClusterView, clock: Clock, memo: Memo, options: DiagnosisServiceOptions = {}): DiagnosisService {
  const crashLogs = options.crashLogs ?? noCrashLogs;
  const run = () => {
    const now = clock.now();
    const started = performance.now();
    const answer = diagnose(cluster, now, { ...(options.analyzers ? { analyzers: options.analyzers } : {}), crashLogHosts: crashLogs.hostsFor(cluster.pods(), now) });
    options.observe?.((performance.now() - started) / 1000);
    return answer;
  };
  return { current: () => memo.get('diagnosis', DIAGNOSIS_TTL_MS, run).value };
}
