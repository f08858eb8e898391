// The agent's terminal settings (CAPSTAN_TERMINAL_*): refused with the variable named when
// unusable, so the agent never starts with a terminal half-configured.
import assert from 'node:assert/strict';
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseTerminal } from '../../runtime/cli/env-options.ts';

const dir = mkdtempSync(join(tmpdir(), 'terminal-config-'));
const goodKey = join(dir, 'key');
writeFileSync(goodKey, 'k'.repeat(40));
const shortKey = join(dir, 'short');
writeFileSync(shortKey, 'short');
const base = { CAPSTAN_TERMINAL_URL: 'ws://127.0.0.1:7682', CAPSTAN_TERMINAL_KEY_FILE: goodKey, CAPSTAN_TERMINAL_SERVICE_ACCOUNT: 'capstan/capstan-terminal' };

describe('parseTerminal', () => {
  it('no URL: no terminal', () => assert.equal(parseTerminal({}), null));
  it('reads the sidecar, its key, the account and the grace', () => {
    assert.deepEqual(parseTerminal({ ...base, CAPSTAN_TERMINAL_REATTACH_GRACE_SECS: '30' }), { sidecarUrl: 'ws://127.0.0.1:7682', key: 'k'.repeat(40), serviceAccount: { namespace: 'capstan', name: 'capstan-terminal' }, reattachGraceSecs: 30 });
  });
  const REFUSED: [string, Record<string, string>, RegExp][] = [
    ['a sidecar off loopback', { ...base, CAPSTAN_TERMINAL_URL: 'ws://10.0.0.5:7682' }, /CAPSTAN_TERMINAL_URL/],
    ['a secure-looking scheme the sidecar does not speak', { ...base, CAPSTAN_TERMINAL_URL: 'wss://127.0.0.1:7682' }, /CAPSTAN_TERMINAL_URL/],
    ['no key file', { ...base, CAPSTAN_TERMINAL_KEY_FILE: '' }, /CAPSTAN_TERMINAL_KEY_FILE/],
    ['a short key', { ...base, CAPSTAN_TERMINAL_KEY_FILE: shortKey }, /at least 32/],
    ['an account without namespace', { ...base, CAPSTAN_TERMINAL_SERVICE_ACCOUNT: 'capstan-terminal' }, /namespace\/name/],
    ['a zero grace', { ...base, CAPSTAN_TERMINAL_REATTACH_GRACE_SECS: '0' }, /CAPSTAN_TERMINAL_REATTACH_GRACE_SECS/],
  ];
  it('CAPSTAN_TERMINAL_KEY_MAKE writes a fresh key each start, readable by the group only', () => {
    const made = join(dir, 'made', 'key');
    const first = parseTerminal({ ...base, CAPSTAN_TERMINAL_KEY_FILE: made, CAPSTAN_TERMINAL_KEY_MAKE: 'true' });
    const second = parseTerminal({ ...base, CAPSTAN_TERMINAL_KEY_FILE: made, CAPSTAN_TERMINAL_KEY_MAKE: 'true' });
    assert.ok(first && second);
    assert.equal(first.key.length, 64);
    assert.notEqual(first.key, second.key, 'a restart makes a new key, over the read-only old file');
    assert.equal(statSync(made).mode & 0o777, 0o440);
  });
  for (const [what, env, message] of REFUSED) it(`refuses ${what}`, () => assert.throws(() => parseTerminal(env), message));
});
