// license.* reaching the agent: CAPSTAN_LICENSE_KEY, _API_URL and _PUBLIC_KEY, and a public key
// that cannot verify license keys stopping the start.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentOptionsFromEnv } from '../../runtime/cli/env-options.ts';
import { heartbeatUrl } from '../../runtime/license/heartbeat.ts';
import { testIssuer } from '../support/license-keys.ts';
import { testServices } from '../support/services.ts';

describe('license configuration', () => {
  it('reads nothing when unset', () => {
    assert.deepEqual(agentOptionsFromEnv({}).license, { key: null, apiUrl: null });
  });

  it('reads the key, the service URL and a public key for tests and self-hosted issuers', () => {
    const { publicKeyPem } = testIssuer();
    const license = agentOptionsFromEnv({ CAPSTAN_LICENSE_KEY: ' capstan1.a.b\n', CAPSTAN_LICENSE_API_URL: 'https://license.example.com/v1', CAPSTAN_LICENSE_PUBLIC_KEY: publicKeyPem }).license;
    assert.deepEqual(license, { key: 'capstan1.a.b', apiUrl: 'https://license.example.com/v1', publicKeyPem });
  });

  it('refuses a service URL that is not http(s), naming the variable', () => {
    assert.throws(() => agentOptionsFromEnv({ CAPSTAN_LICENSE_API_URL: 'ftp://license.example.com' }), /CAPSTAN_LICENSE_API_URL must be an http\(s\) URL/);
  });

  it('posts to <apiUrl>/heartbeat with or without a trailing slash', () => {
    assert.equal(heartbeatUrl('https://license.example.com/v1'), 'https://license.example.com/v1/heartbeat');
    assert.equal(heartbeatUrl('https://license.example.com/v1/'), 'https://license.example.com/v1/heartbeat');
  });

  it('stops the start on a public key that is not Ed25519 PEM', async () => {
    await assert.rejects(testServices({ license: { publicKeyPem: 'not a key' } }));
  });
});
