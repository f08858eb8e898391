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
const adminKey = join(dir, 'admin-key');
writeFileSync(adminKey, 'a'.repeat(40));
const sameAsViewer = join(dir, 'same-as-viewer');
writeFileSync(sameAsViewer, 'k'.repeat(40));
const withAdmin = { ...base, CAPSTAN_TERMINAL_ADMIN_URL: 'ws://127.0.0.1:7683', CAPSTAN_TERMINAL_ADMIN_KEY_FILE: adminKey, CAPSTAN_TERMINAL_ADMIN_SERVICE_ACCOUNT: 'capstan/capstan-terminal-admin' };

describe('parseTerminal', () => {
  it('no URL: no terminal', () => assert.equal(parseTerminal({}), null));
  it('reads the sidecar, its key, the account and the grace', () => {
    assert.deepEqual(parseTerminal({ ...base, CAPSTAN_TERMINAL_REATTACH_GRACE_SECS: '30' }), { sidecarUrl: 'ws://127.0.0.1:7682', key: 'k'.repeat(40), serviceAccount: { namespace: 'capstan', name: 'capstan-terminal' }, reattachGraceSecs: 30, admin: null });
  });
  it('reads the admin sidecar, its own key and its writer account', () => {
    assert.deepEqual(parseTerminal(withAdmin)?.admin, { sidecarUrl: 'ws://127.0.0.1:7683', key: 'a'.repeat(40), serviceAccount: { namespace: 'capstan', name: 'capstan-terminal-admin' } });
  });
  const REFUSED: [string, Record<string, string>, RegExp][] = [
    ['a sidecar off loopback', { ...base, CAPSTAN_TERMINAL_URL: 'ws://10.0.0.5:7682' }, /CAPSTAN_TERMINAL_URL/],
    ['a secure-looking scheme the sidecar does not speak', { ...base, CAPSTAN_TERMINAL_URL: 'wss://127.0.0.1:7682' }, /CAPSTAN_TERMINAL_URL/],
    ['no key file', { ...base, CAPSTAN_TERMINAL_KEY_FILE: '' }, /CAPSTAN_TERMINAL_KEY_FILE/],
    ['a short key', { ...base, CAPSTAN_TERMINAL_KEY_FILE: shortKey }, /at least 32/],
    ['an account without namespace', { ...base, CAPSTAN_TERMINAL_SERVICE_ACCOUNT: 'capstan-terminal' }, /namespace\/name/],
    ['a zero grace', { ...base, CAPSTAN_TERMINAL_REATTACH_GRACE_SECS: '0' }, /CAPSTAN_TERMINAL_REATTACH_GRACE_SECS/],
    ['an admin sidecar without the viewer one', { CAPSTAN_TERMINAL_ADMIN_URL: 'ws://127.0.0.1:7683' }, /CAPSTAN_TERMINAL_ADMIN_URL needs CAPSTAN_TERMINAL_URL/],
    ['an admin sidecar off loopback', { ...withAdmin, CAPSTAN_TERMINAL_ADMIN_URL: 'ws://10.0.0.5:7683' }, /CAPSTAN_TERMINAL_ADMIN_URL/],
    ['the admin sidecar at the viewer sidecar\'s address', { ...withAdmin, CAPSTAN_TERMINAL_ADMIN_URL: 'ws://127.0.0.1:7682' }, /CAPSTAN_TERMINAL_ADMIN_URL .*CAPSTAN_TERMINAL_URL/],
    ['an admin sidecar without its key', { ...withAdmin, CAPSTAN_TERMINAL_ADMIN_KEY_FILE: '' }, /CAPSTAN_TERMINAL_ADMIN_KEY_FILE/],
    ['a short admin key', { ...withAdmin, CAPSTAN_TERMINAL_ADMIN_KEY_FILE: shortKey }, /CAPSTAN_TERMINAL_ADMIN_KEY_FILE must hold at least 32/],
    ['the viewer\'s key file for the admin sidecar', { ...withAdmin, CAPSTAN_TERMINAL_ADMIN_KEY_FILE: goodKey }, /CAPSTAN_TERMINAL_ADMIN_KEY_FILE .*CAPSTAN_TERMINAL_KEY_FILE/],
    ['the viewer\'s key file for the admin sidecar, keys made', { ...withAdmin, CAPSTAN_TERMINAL_ADMIN_KEY_FILE: join(dir, 'made3', 'key'), CAPSTAN_TERMINAL_KEY_FILE: join(dir, 'made3', '.', 'key'), CAPSTAN_TERMINAL_KEY_MAKE: 'true' }, /CAPSTAN_TERMINAL_ADMIN_KEY_FILE .*CAPSTAN_TERMINAL_KEY_FILE/],
    ['the viewer\'s key (another file) for the admin sidecar', { ...withAdmin, CAPSTAN_TERMINAL_ADMIN_KEY_FILE: sameAsViewer }, /CAPSTAN_TERMINAL_ADMIN_KEY_FILE .*CAPSTAN_TERMINAL_KEY_FILE/],
    ['an admin account without namespace', { ...withAdmin, CAPSTAN_TERMINAL_ADMIN_SERVICE_ACCOUNT: 'capstan-terminal-admin' }, /CAPSTAN_TERMINAL_ADMIN_SERVICE_ACCOUNT must be namespace\/name/],
    ['the read-only account for the admin sidecar', { ...withAdmin, CAPSTAN_TERMINAL_ADMIN_SERVICE_ACCOUNT: 'capstan/capstan-terminal' }, /CAPSTAN_TERMINAL_ADMIN_SERVICE_ACCOUNT .*CAPSTAN_TERMINAL_SERVICE_ACCOUNT/],
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
  it('CAPSTAN_TERMINAL_KEY_MAKE writes the admin sidecar\'s key too, a different one, in its own file', () => {
    const made = join(dir, 'made2', 'key');
    const madeAdmin = join(dir, 'made-admin', 'key');
    const first = parseTerminal({ ...withAdmin, CAPSTAN_TERMINAL_KEY_FILE: made, CAPSTAN_TERMINAL_ADMIN_KEY_FILE: madeAdmin, CAPSTAN_TERMINAL_KEY_MAKE: 'true' });
    const second = parseTerminal({ ...withAdmin, CAPSTAN_TERMINAL_KEY_FILE: made, CAPSTAN_TERMINAL_ADMIN_KEY_FILE: madeAdmin, CAPSTAN_TERMINAL_KEY_MAKE: 'true' });
    assert.ok(first?.admin && second?.admin);
    assert.equal(first.admin.key.length, 64);
    assert.notEqual(first.admin.key, first.key, 'the viewer sidecar\'s key opens no admin session');
    assert.notEqual(first.admin.key, second.admin.key);
    assert.equal(statSync(madeAdmin).mode & 0o777, 0o440);
  });
  for (const [what, env, message] of REFUSED) it(`refuses ${what}`, () => assert.throws(() => parseTerminal(env), message));
});
