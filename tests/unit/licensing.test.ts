import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as v from 'valibot';
import { ok } from '../../handlers/result.ts';
import { createApp } from '../../runtime/http/app.ts';
import { defineRoute } from '../../handlers/route.ts';
import { silentLogger } from '../../runtime/log.ts';
import { routes } from '../../runtime/routes.ts';
import { testServices } from '../support/services.ts';

const licensedRoute = defineRoute({
  method: 'GET',
  path: '/observability/status-demo',
  summary: 'a route behind the observability feature',
  input: v.object({}),
  output: v.object({ ok: v.boolean() }),
  access: { auth: 'credential', role: 'viewer', scope: 'metrics:read' },
  audit: 'http',
  rateLimit: 'read',
  feature: 'observability',
  handler: () => ok({ ok: true }),
});

async function appWith(features: string[]) {
  const services = await testServices({ licensing: { tier: features.length ? 'team' : 'free', has: (f) => features.includes(f) } });
  const app = createApp({ routes: [...routes, licensedRoute], services, middleware: services.middleware, log: silentLogger });
  const login = await app.request('/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'viewer', password: 'viewer password 1' }) });
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  return { app, cookie, services };
}

describe('licensed features', () => {
  it('answers 402 naming the feature and an upgrade hint when the tier lacks it, and audits the refusal', async () => {
    const { app, cookie, services } = await appWith([]);
    const res = await app.request('/observability/status-demo', { headers: { cookie } });
    assert.equal(res.status, 402);
    const body = (await res.json()) as Record<string, unknown>;
    assert.equal(body.error, 'feature_not_licensed');
    assert.equal(body.feature, 'observability');
    assert.match(String(body.upgrade), /license/i);
    const row = await services.db.selectFrom('audit_log').select(['action', 'outcome']).where('status', '=', 402).executeTakeFirst();
    assert.deepEqual(row, { action: 'GET /observability/status-demo', outcome: 'denied' });
  });

  it('asks for a credential before it talks about licenses, and serves the route once licensed', async () => {
    const unlicensed = await appWith([]);
    assert.equal((await unlicensed.app.request('/observability/status-demo')).status, 401);
    const licensed = await appWith(['observability']);
    assert.equal((await licensed.app.request('/observability/status-demo', { headers: { cookie: licensed.cookie } })).status, 200);
  });
});
