// Stopping the real agent process while it is still starting (its informers not yet synced):
// the stop must end the process, not leave the history sampler or a startup timer running
// behind a closed database. The last CI run saw such a stop take 300 s (the agent's log showed
// the shutdown complete, then "history sample failed: driver has already been destroyed").
// test-plan: shares-cluster
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { spawnAgent } from '../support/agent-process.ts';
import { testCluster } from '../support/cluster.ts';

/** Far above a clean stop (well under a second here), far below the 300 s the defect took. */
const STOP_BOUND_MS = 30_000;

it('an agent stopped while starting exits, and runs nothing after its shutdown', { timeout: 120_000 }, async () => {
  for (let attempt = 0; attempt < 3; attempt++) {
    const dataDir = mkdtempSync(join(tmpdir(), 'capstan-agent-stop-'));
    const agent = await spawnAgent({ kubeconfig: testCluster().kubeconfig, dataDir, env: { ...process.env, CAPSTAN_ADMIN_PASSWORD: 'agent-stop-admin-password' } });
    // At once: the informers are still listing.
    const exited = agent.stop();
    const outcome = await Promise.race([exited.then(() => 'exited' as const), new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), STOP_BOUND_MS).unref())]);
    assert.equal(outcome, 'exited', `attempt ${attempt + 1}: the agent was still running ${STOP_BOUND_MS} ms after SIGTERM; its last lines:\n${agent.stderr().split('\n').slice(-10).join('\n')}`);
    const afterShutdown = agent.stderr().split('shutdown: connections closed')[1] ?? '';
    assert.doesNotMatch(afterShutdown, /history sample|startup garbage collected/, 'nothing of the startup ran after the shutdown');
  }
});
