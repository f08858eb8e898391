import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createApp } from '../../runtime/http/app.ts';
import { LOCKOUT_MS, SESSION_ABSOLUTE_MS } from '../../runtime/auth/service.ts';
import { silentLogger } from '../../runtime/log.ts';
import { routes } from '../../runtime/routes.ts';
import { ADMIN_PASSWORD, ManualClock, testServices, VIEWER_PASSWORD } from '../support/services.ts';

async function harness(idleTimeoutSecs = 28800) {
  const clock = new ManualClock();
  const services = await testServices({ clock, idleTimeoutSecs });
  const app = createApp({ routes, services, middleware: services.middleware, validateOutput: true, log: silentLogger });
  /** A request from `ip`, as the Node server would present its socket. */
  const call = (method: string, path: string, opts: { body?: unknown; cookie?: string; ip?: string } = {}) =>
    app.request(
      path,
      {
        method,
        headers: { 'content-type': 'application/json', ...(opts.cookie ? { cookie: `capstan_session=${opts.cookie}` } : {}) },
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      },
      { incoming: { socket: { remoteAddress: opts.ip ?? '192.0.2.10' } } },
    );
  const login = (username: string, password: string, ip?: string) => call('POST', '/api/agent/auth/login', { body: { username, password }, ip });
  const sessionOf = (res: Response) => /capstan_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1] ?? '';
  return { clock, services, call, login, sessionOf };
}

describe('password sign-in and sessions', () => {
  it('signs the admin in with an HttpOnly, SameSite=Strict session cookie that /me accepts', async () => {
    const h = await harness();
    const res = await h.login('admin', ADMIN_PASSWORD);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { user: { username: 'admin', role: 'admin', auth_method: 'password' } });
    const cookie = res.headers.get('set-cookie') ?? '';
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Strict/);
    assert.doesNotMatch(cookie, /Secure/, 'plain HTTP with cookieSecure=auto must not mark the cookie Secure');
    const me = await h.call('GET', '/api/agent/me', { cookie: h.sessionOf(res) });
    assert.deepEqual(await me.json(), { username: 'admin', role: 'admin', auth_method: 'password' });
  });

  it('answers credential routes without a session with 401, and a wrong password with 401', async () => {
    const h = await harness();
    assert.equal((await h.call('GET', '/api/agent/namespaces')).status, 401);
    const wrong = await h.login('admin', 'not the password');
    assert.equal(wrong.status, 401);
    assert.equal(((await wrong.json()) as { error: string }).error, 'unauthenticated');
    assert.equal((await h.login('nobody', 'whatever-123')).status, 401);
  });

  it('rejects forged and malformed session tokens', async () => {
    const h = await harness();
    const good = h.sessionOf(await h.login('admin', ADMIN_PASSWORD));
    const [id] = good.split('.');
    const forged = `${id ?? ''}.${'A'.repeat(43)}`;
    for (const token of [forged, 'garbage', `${good}.extra`, good.slice(0, -1)]) {
      assert.equal((await h.call('GET', '/api/agent/me', { cookie: token })).status, 401, token);
    }
  });

  it('locks one account from one address for 15 minutes after 6 failures, even for the right password', async () => {
    const h = await harness();
    for (let i = 1; i <= 5; i++) assert.equal((await h.login('admin', `wrong-${i}`)).status, 401, `attempt ${i}`);
    const sixth = await h.login('admin', 'wrong-6');
    assert.equal(sixth.status, 429);
    assert.equal(sixth.headers.get('retry-after'), String(LOCKOUT_MS / 1000));
    assert.equal((await h.login('admin', ADMIN_PASSWORD)).status, 429);

    // The address is not banned: another account from it, and this account from elsewhere, still work.
    assert.equal((await h.login('viewer', VIEWER_PASSWORD)).status, 200);
    assert.equal((await h.login('admin', ADMIN_PASSWORD, '198.51.100.7')).status, 200);

    h.clock.advance(LOCKOUT_MS + 1000);
    assert.equal((await h.login('admin', ADMIN_PASSWORD)).status, 200);
  });

  it('expires a session after the idle timeout and at the 24 h ceiling, and revokes it on logout', async () => {
    const h = await harness(600);
    const idle = h.sessionOf(await h.login('admin', ADMIN_PASSWORD));
    h.clock.advance(601_000);
    assert.equal((await h.call('GET', '/api/agent/me', { cookie: idle })).status, 401);

    const busy = h.sessionOf(await h.login('admin', ADMIN_PASSWORD));
    // Active every 5 minutes, so never idle, up to 5 minutes before the 24 h ceiling...
    for (let elapsed = 300_000; elapsed < SESSION_ABSOLUTE_MS; elapsed += 300_000) {
      h.clock.advance(300_000);
      assert.equal((await h.call('GET', '/api/agent/me', { cookie: busy })).status, 200, `at ${elapsed / 60_000} min`);
    }
    // ...and the ceiling still ends it.
    h.clock.advance(360_000);
    assert.equal((await h.call('GET', '/api/agent/me', { cookie: busy })).status, 401);

    const session = h.sessionOf(await h.login('admin', ADMIN_PASSWORD));
    const out = await h.call('POST', '/api/agent/auth/logout', { cookie: session });
    assert.equal(out.status, 200);
    assert.match(out.headers.get('set-cookie') ?? '', /capstan_session=;/);
    assert.equal((await h.call('GET', '/api/agent/me', { cookie: session })).status, 401);
  });

  it('signs a viewer in with the viewer role, able to read', async () => {
    const h = await harness();
    const viewer = h.sessionOf(await h.login('viewer', VIEWER_PASSWORD));
    assert.equal((await h.call('GET', '/api/agent/namespaces', { cookie: viewer })).status, 200);
    assert.equal(((await (await h.call('GET', '/api/agent/me', { cookie: viewer })).json()) as { role: string }).role, 'viewer');
  });

  it('validates the sign-in body and names the field', async () => {
    const h = await harness();
    const res = await h.call('POST', '/api/agent/auth/login', { body: { username: 'admin' } });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as { field: string }).field, 'password');
  });
});
