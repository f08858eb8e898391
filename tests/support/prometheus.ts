// Debian's prometheus scraping the suite's control plane (dev/localcluster/prometheus.ts says
// what it scrapes); tests/run.ts installs it (scripts/ensure-prometheus.sh) before the files
// that import this run.
import { startPrometheus as start, type RunningPrometheus } from '../../dev/localcluster/prometheus.ts';
import { testCluster } from './cluster.ts';

export type { RunningPrometheus };

export function startPrometheus(options: { scrapeIntervalSecs?: number; extraJobs?: object[] } = {}): Promise<RunningPrometheus> {
  return start(testCluster(), options);
}
