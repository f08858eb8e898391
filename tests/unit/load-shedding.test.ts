import assert from 'node:assert/strict';
import { it } from 'node:test';
import * as v from 'valibot';
import { ok } from '../../handlers/result.ts';
import { createApp } from '../../runtime/http/app.ts';
import { loadShedding } from '../../runtime/http/middleware/load-shedding.ts';
import { defineRoute } from '../../handlers/route.ts';
import { silentLogger } from '../../runtime/log.ts';
import { testServices } from '../support/services.ts';

it('sheds requests past the in-flight cap with 503 overloaded and Retry-After, never probes', async () => {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const common = { input: v.object({}), output: v.object({}), audit: 'none', feature: null, summary: 's' } as const;
  const routes = [
    defineRoute({ ...common, method: 'GET', path: '/slow', access: { auth: 'public' }, rateLimit: 'read', handler: async () => { await gate; return ok({}); } }),
    defineRoute({ ...common, method: 'GET', path: '/healthz', access: { auth: 'public' }, probe: true, handler: () => ok({}) }),
  ];
  const app = createApp({ routes, services: await testServices(), middleware: [loadShedding({ maxInFlight: 2, retryAfterSecs: 3 })], log: silentLogger });

  const held = [Promise.resolve(app.request('/slow')), Promise.resolve(app.request('/slow'))];
  const shed = await app.request('/slow');
  assert.equal(shed.status, 503);
  assert.equal(shed.headers.get('retry-after'), '3');
  assert.equal(((await shed.json()) as { error: string }).error, 'overloaded');
  assert.equal((await app.request('/healthz')).status, 200);

  release();
  assert.deepEqual((await Promise.all(held)).map((r) => r.status), [200, 200]);
  assert.equal((await app.request('/slow')).status, 200, 'capacity comes back once requests finish');
});
