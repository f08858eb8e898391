// The shell's environment is an allowlist: whatever secret the pod's environment holds (the
// provider key, a token added one day by someone else) never reaches the terminal.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { terminalEnvironment } from '../../domain/terminal/environment.ts';

const SESSION = { home: '/home/terminal/users/7', user: 'alice', kubeconfig: '/home/terminal/sessions/s1/kubeconfig', namespace: 'shop' };

it('keeps only the allowlist from the parent, and sets the session\'s own', () => {
  const parent = {
    PATH: '/usr/bin:/bin',
    LANG: 'C.UTF-8',
    TZ: 'UTC',
    CAPSTAN_OPENAI_API_KEY: 'sk-live',
    ANTHROPIC_API_KEY: 'x',
    CAPSTAN_ENCRYPTION_KEY: 'k',
    KUBERNETES_SERVICE_HOST: '10.0.0.1',
    CAPSTAN_UI_PROXY_SECRET: 's',
    SOMETHING_NEW: 'v',
    HOME: '/root',
  };
  const env = terminalEnvironment(parent, SESSION);
  assert.deepEqual(Object.keys(env).sort(), ['CAPSTAN_NAMESPACE', 'COLORTERM', 'HOME', 'KUBECONFIG', 'LANG', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'TZ', 'USER', 'XDG_CACHE_HOME', 'XDG_CONFIG_HOME']);
  assert.equal(env.HOME, SESSION.home);
  assert.equal(env.KUBECONFIG, SESSION.kubeconfig);
  for (const value of Object.values(env)) assert.ok(!['sk-live', 'x', 'k', 's', 'v'].includes(value));
});

it('a PATH is always set', () => {
  assert.equal(terminalEnvironment({}, SESSION).PATH, '/usr/local/bin:/usr/bin:/bin');
});
