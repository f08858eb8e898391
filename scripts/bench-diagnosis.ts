// `npm run bench:diagnosis`: every scenario of tests/diagnosis/ at once on one local control
// plane (started as the suite starts its own, `dev/localcluster`) against an in-process
// agent; writes tests/bench/results/diagnosis.json and diagnosis.md. Reported, not asserted:
// tests/integration/diagnosis-scenarios.test.ts is the test.
//
//   --dir D        use (or start, and keep) the cluster in D instead of a throwaway one
//   --only a,b     only these scenarios (by metadata.name)
//   --hold         apply the scenarios and keep them alive (Leases, status patches) until
//                  Ctrl-C, without an agent, to look at them with kubectl; then clean up
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { down, up } from '../dev/localcluster/cluster.ts';
import { agentDiagnose, agentSurfaces, diagnosisApiKey, startBenchAgent } from '../tests/diagnosis/agent.ts';
import { holdScenarios, removeLeftovers, runScenarios } from '../tests/diagnosis/harness.ts';
import { createKube } from '../tests/diagnosis/kube.ts';
import { buildReport, markdownReport } from '../tests/diagnosis/report.ts';
import { loadScenarios, scenarioLogs } from '../tests/diagnosis/scenario.ts';

const PASSWORD = 'bench-diagnosis-admin-password';
const RESULTS = join('tests', 'bench', 'results');

const { values } = parseArgs({ options: { dir: { type: 'string' }, only: { type: 'string' }, hold: { type: 'boolean', default: false } } });
const only = values.only?.split(',').map((s) => s.trim());
const scenarios = loadScenarios(undefined, only ? (name) => only.includes(name) : undefined);
if (scenarios.length === 0) throw new Error(`no scenario matches --only ${values.only ?? ''}`);
const say = (line: string) => process.stderr.write(`bench:diagnosis: ${line}\n`);

const dir = values.dir ?? mkdtempSync(join(tmpdir(), 'capstan-bench-diagnosis-'));
const throwaway = values.dir === undefined;
try {
  say(`${scenarios.length} scenarios; control plane in ${dir}`);
  const cluster = await up({ dir, namespacedLogs: scenarioLogs(scenarios), progress: (m) => say(m) });
  const k = { kubeconfig: cluster.kubeconfig, binDir: cluster.binDir, log: say };
  const leftovers = await removeLeftovers(createKube(cluster.kubeconfig));
  if (leftovers.length > 0) say(`removed a previous run's leftovers: ${leftovers.join(', ')}`);

  if (values.hold) {
    say('holding the scenarios; Ctrl-C cleans up');
    const released = new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
    await holdScenarios(scenarios, k, released);
  } else {
    const agent = await startBenchAgent(cluster.kubeconfig, dir, PASSWORD);
    try {
      await agent.ready;
      const key = await diagnosisApiKey(agent.url, PASSWORD);
      const results = await runScenarios(scenarios, { ...k, diagnose: agentDiagnose(agent.url, key), surfaces: agentSurfaces(agent.url, key) });
      const report = buildReport(results, `${cpus().length} CPU, node ${process.version}`);
      mkdirSync(RESULTS, { recursive: true });
      writeFileSync(join(RESULTS, 'diagnosis.json'), JSON.stringify(report, null, 2) + '\n');
      const markdown = markdownReport(report);
      writeFileSync(join(RESULTS, 'diagnosis.md'), markdown);
      process.stdout.write(markdown);
    } finally {
      await agent.close();
    }
  }
} finally {
  if (throwaway) {
    await down(dir);
    rmSync(dir, { recursive: true, force: true });
  }
}
