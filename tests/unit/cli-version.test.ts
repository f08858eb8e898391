// `capstan --version` is what the container image test runs inside each image's root
// filesystem, so it runs here as the real executable too, not just as a function call.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { CAPSTAN_VERSION } from '../../runtime/version.ts';

const capstan = (args: string[]) => spawnSync(process.execPath, ['bin/capstan.js', ...args], { encoding: 'utf8' });

it('prints `capstan <version>` from package.json and exits 0', () => {
  const run = capstan(['--version']);
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout, `capstan ${CAPSTAN_VERSION}\n`);
  assert.equal(run.stderr, '');
  const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
  assert.equal(CAPSTAN_VERSION, pkg.version);
  assert.match(CAPSTAN_VERSION, /^\d+\.\d+\.\d+/);
});

it('lists --version in the usage text', () => {
  const run = capstan(['--help']);
  assert.equal(run.status, 0);
  assert.match(run.stderr, /capstan --version/);
});
