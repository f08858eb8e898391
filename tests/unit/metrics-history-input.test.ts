import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { testApp } from '../support/app.ts';

describe('GET /metrics/history input', () => {
  it('answers 400 naming the field for an unsupported window, scope or missing name', async () => {
    const h = await testApp();
    const cookie = await h.signIn();
    const cases: [string, string][] = [
      ['?window=2h', 'window'],
      ['?scope=galaxy', 'scope'],
      ['?scope=namespace', 'namespace'],
      ['?scope=pod&namespace=shop', 'name'],
      ['?scope=namespace&namespace=Bad_Name', 'namespace'],
    ];
    for (const [query, field] of cases) {
      const res = await h.call('GET', `/metrics/history${query}`, { cookie });
      assert.deepEqual([res.status, res.body.error, res.body.field], [400, 'invalid_input', field], query);
    }
    assert.equal((await h.call('GET', '/metrics/history?scope=namespace&namespace=kube-system', { cookie })).status, 403);
  });

  it('says why there is nothing to show rather than returning zeros', async () => {
    const h = await testApp();
    const res = await h.call('GET', '/metrics/history?window=7d', { cookie: await h.signIn() });
    assert.equal(res.status, 200);
    assert.equal(res.body.available, false);
    assert.equal(typeof res.body.reason, 'string');
    assert.deepEqual([res.body.sample_interval_secs, res.body.retention_days, res.body.bucket_secs], [60, 7, 5400]);
  });
});
