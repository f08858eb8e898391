// The whole-cluster diagnosis the handlers read scoped (domain/diagnosis/scoped.ts).
import type { ClusterView } from '../../domain/cluster/model.ts';
import type { Clock } from '../../domain/clock.ts';
import { diagnose, type AnalyzerEntry } from '../../domain/diagnosis/engine.ts';
import type { Memo } from '../../handlers/context.ts';
import { DIAGNOSIS_TTL_MS, type DiagnosisService } from '../../handlers/diagnosis/service.ts';

/**
 * The whole-cluster diagnosis from the raw (unscoped) cluster view, made at most once per
 * DIAGNOSIS_TTL_MS whoever asks: every surface (diagnosis, incidents, overview, the cluster
 * model, MCP) reads the same one and cuts it to its caller.
 */
export function createDiagnosisService(cluster: ClusterView, clock: Clock, memo: Memo, analyzers?: readonly AnalyzerEntry[]): DiagnosisService {
  return { current: () => memo.get('diagnosis', DIAGNOSIS_TTL_MS, () => diagnose(cluster, clock.now(), analyzers ? { analyzers } : {})).value };
}
