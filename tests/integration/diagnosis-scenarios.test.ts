// Every diagnosis scenario of tests/diagnosis/ at once on the suite's control plane, against a
// real agent: each must name its expected root cause first, and nothing may raise a false
// alarm. The same harness as `npm run bench:diagnosis`; on failure the table says what went wrong.
// Beside other such files (tests/support/run-plan.ts): every scenario lives in its own dq-*
// namespace and on nodes the harness taints, and only their objects are judged.
// test-plan: shares-cluster
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningAgent } from '../../runtime/agent.ts';
import { agentDiagnose, agentSurfaces, diagnosisApiKey } from '../diagnosis/agent.ts';
import type { Surfaces } from '../diagnosis/agreement.ts';
import { runScenarios, type Diagnose } from '../diagnosis/harness.ts';
import { buildReport, markdownTable } from '../diagnosis/report.ts';
import { loadScenarios } from '../diagnosis/scenario.ts';
import { startTestAgent, testCluster } from '../support/cluster.ts';

const PASSWORD = 'diagnosis-scenarios-admin-password';
let agent: RunningAgent;
let diagnose: Diagnose;
let surfaces: (namespace: string) => Promise<Surfaces>;

describe('diagnosis scenarios on the real control plane', () => {
  before(async () => {
    agent = await startTestAgent('diagnosis-scenarios', { accounts: { adminPassword: PASSWORD } });
    const key = await diagnosisApiKey(agent.url, PASSWORD);
    diagnose = agentDiagnose(agent.url, key);
    surfaces = agentSurfaces(agent.url, key);
  });
  after(() => agent.close());

  // The longest scenario takes about 110 s (a CronJob's missed schedules) and a silent node's waits 240 s at most; setup and cleanup come on top.
  it('names every scenario root cause first and raises no false alarm', { timeout: 600_000 }, async () => {
    const { kubeconfig, binDir } = testCluster();
    const started = Date.now();
    const log = (line: string) => process.stderr.write(`[diagnosis ${((Date.now() - started) / 1000).toFixed(0).padStart(3)}s] ${line}\n`);
    const results = await runScenarios(loadScenarios(), { kubeconfig, binDir, diagnose, surfaces, log });
    const report = buildReport(results, 'the suite');
    const table = '\n' + markdownTable(report);
    assert.equal(report.totals.errors, 0, table);
    assert.equal(report.totals.top1, report.totals.scenarios, `top-1 ${report.totals.top1}/${report.totals.scenarios}${table}`);
    assert.equal(report.totals.false_alarms, 0, table);
    // One truth: /incidents says what /diagnosis says about every pod of every scenario.
    assert.equal(report.totals.incidents_checked, report.totals.scenarios, table);
    assert.equal(report.totals.incidents_disagreed, 0, table);
  });
});
