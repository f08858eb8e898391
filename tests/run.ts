// The whole suite's entry point (`npm test`). Node 20's test runner has no global setup, so
// this brings up ONE local control plane with the demo scenario (the same code as
// `capstan localcluster up`), runs every test file against it, and always tears it down.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { down, up } from '../dev/localcluster/cluster.ts';

const requested = process.argv.slice(2);
const files =
  requested.length > 0
    ? requested
    : readdirSync('tests', { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.test.ts'))
        .map((f) => join('tests', f))
        .sort();
const dir = mkdtempSync(join(tmpdir(), 'capstan-test-cluster-'));
const progress = (line: string) => process.stderr.write(`[test-cluster] ${line}\n`);

let exitCode = 1;
try {
  const started = Date.now();
  const cluster = await up({ dir, scenario: 'demo', progress });
  progress(`control plane ready in ${((Date.now() - started) / 1000).toFixed(1)}s`);
  exitCode = await new Promise<number>((resolve) => {
    const child = spawn(
      process.execPath,
      // A file's whole run is bounded too: the diagnosis scenarios (every one at once, the longest
      // waiting 420 s) take the longest, about eight minutes; 15 minutes still catches a hang.
      [
        '--import', 'tsx', '--import', './tests/support/fast-check-seed.ts', '--test', '--test-concurrency=1', '--test-timeout=900000',
        // TAP as before, then a list of the failures: CI shows only the output's tail.
        '--test-reporter=tap', '--test-reporter-destination=stdout',
        '--test-reporter=./tests/support/failure-summary-reporter.js', '--test-reporter-destination=stdout',
        ...files,
      ],
      {
        stdio: 'inherit',
        env: { ...process.env, CAPSTAN_TEST_KUBECONFIG: cluster.kubeconfig, CAPSTAN_TEST_BIN_DIR: cluster.binDir, CAPSTAN_TEST_CLUSTER_DIR: dir },
      },
    );
    child.on('close', (code) => resolve(code ?? 1));
  });
} finally {
  await down(dir);
  rmSync(dir, { recursive: true, force: true });
}
process.exit(exitCode);
