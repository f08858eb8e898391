// OIDC sign-in against a real dex (tests/support/dex.ts, built by scripts/build-dex.sh): the
// authorization code flow with PKCE driven through dex's own login form with fetch, the ID token
// verified against dex's JWKS, groups from dex's password database to roles, the sealed Lax flow
// cookie, state tampering and a replayed callback refused, the Enterprise gate.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LicensedFeature } from '../../schema/access.ts';
import { testApp, UNLIMITED_RATE_LIMITS } from '../support/app.ts';
import { loginAtDex, startDex, type Dex } from '../support/dex.ts';
import { ManualClock } from '../support/services.ts';

const PUBLIC_URL = 'http://127.0.0.1:18080';
const CLIENT = { id: 'capstan', secret: 'dex client secret for capstan', redirectUri: `${PUBLIC_URL}/api/agent/auth/oidc/callback` };
const ANN = { email: 'Ann@Example.com', password: 'ann password', userId: 'ann', groups: ['capstan-admins', 'ops'] };
const BOB = { email: 'bob@example.com', password: 'bob password', userId: 'bob', groups: ['devs'] };

let dex: Dex;
before(async () => {
  dex = await startDex([ANN, BOB], CLIENT);
});
after(async () => {
  await dex.stop();
});

function license() {
  let tier = 'enterprise';
  return { get tier() { return tier; }, has: (f: LicensedFeature) => tier === 'enterprise' || f === 'mcp', lapse: () => { tier = 'free'; } };
}

const cookieIn = (res: { headers: Headers }, name: string): string | undefined => {
  for (const line of res.headers.getSetCookie()) if (line.startsWith(`${name}=`)) return line;
  return undefined;
};
const valueOf = (line: string | undefined): string => /^[^=]+=([^;]*)/.exec(line ?? '')?.[1] ?? '';

async function setup() {
  const lic = license();
  // dex signs with the wall clock; the agent's clock starts there too (tests move it by hand).
  const h = await testApp({ licensing: lic, rateLimits: UNLIMITED_RATE_LIMITS, clock: new ManualClock(new Date()) });
  const admin = await h.signIn('admin');
  const config = (over: Record<string, unknown> = {}) => ({ issuer: dex.issuer, client_id: CLIENT.id, client_secret: CLIENT.secret, public_url: PUBLIC_URL, ...over });
  const configure = (over: Record<string, unknown> = {}) => h.call('PUT', '/api/agent/admin/sso/oidc', { cookie: admin, body: config(over) });
  /** GET /auth/oidc/login: where the agent sends the browser and the flow cookie it sets. */
  const start = async (returnTo?: string) => {
    const res = await h.call('GET', `/api/agent/auth/oidc/login${returnTo === undefined ? '' : `?return_to=${encodeURIComponent(returnTo)}`}`);
    assert.equal(res.status, 302, res.text);
    const flowLine = cookieIn(res, 'capstan_oidc');
    return { location: res.headers.get('location') ?? '', flowLine: flowLine ?? '', flow: valueOf(flowLine) };
  };
  /** The agent's callback as the browser reaches it from dex's redirect, with the flow cookie it holds. */
  const callback = async (callbackUrl: string, flow: string) => {
    const url = new URL(callbackUrl);
    const res = await h.call('GET', `${url.pathname}${url.search}`, { headers: flow ? { cookie: `capstan_oidc=${flow}` } : {} });
    return { ...res, session: valueOf(cookieIn(res, 'capstan_session')), sessionLine: cookieIn(res, 'capstan_session') ?? '' };
  };
  /** A whole sign-in: start, dex's form, the callback. */
  const signInAs = async (user: { email: string; password: string }, returnTo?: string) => {
    const started = await start(returnTo);
    const back = await loginAtDex(started.location, user.email, user.password);
    return callback(back, started.flow);
  };
  const me = (cookie: string) => h.call('GET', '/api/agent/me', { cookie });
  return { ...h, lic, admin, configure, start, callback, signInAs, me };
}

describe('OIDC sign-in against dex', () => {
  it('configuring needs Enterprise; sealed and masked; the code flow through dex signs a user in with a Lax session at the return path', async () => {
    const h = await setup();
    assert.equal((await h.call('GET', '/api/agent/auth/oidc/login')).status, 404, 'gone until configured');
    h.lic.lapse();
    const unlicensed = await h.configure();
    assert.equal(unlicensed.status, 402);
    assert.equal(unlicensed.body.feature, 'sso');
    // A fresh app: the license object is per app.
    const g = await setup();
    const wrongIssuer = await g.configure({ issuer: `${dex.issuer}/` });
    assert.equal(wrongIssuer.status, 400, 'the discovery document names another issuer');
    assert.equal(wrongIssuer.body.field, 'issuer');
    const saved = await g.configure();
    assert.equal(saved.status, 200, saved.text);
    assert.equal((saved.body.config as Record<string, unknown>).client_secret, '••••');
    assert.equal(saved.body.redirect_uri, CLIENT.redirectUri);
    const row = await g.services.db.selectFrom('sso_providers').selectAll().where('provider', '=', 'oidc').executeTakeFirstOrThrow();
    assert.equal(row.config_sealed.includes(CLIENT.secret), false, 'the client secret is encrypted at rest');
    const view = await g.call('GET', '/api/agent/admin/sso', { cookie: g.admin });
    assert.equal(((view.body.oidc as Record<string, unknown>).config as Record<string, unknown>).client_secret, '••••');
    assert.ok((await g.call('GET', '/api/agent/auth/methods')).body.sso instanceof Array);
    assert.deepEqual((await g.call('GET', '/api/agent/auth/methods')).body.sso, [{ provider: 'oidc', path: '/auth/oidc/login', totp: false }]);
    // Sending the mask back keeps the stored secret (the sign-in below proves dex still accepts it).
    assert.equal((await g.configure({ client_secret: '••••', groups_claim: 'groups' })).status, 200);

    const started = await g.start('/security?tab=cves');
    assert.ok(started.location.startsWith(`${dex.issuer}/auth?`), started.location);
    const auth = new URL(started.location);
    assert.equal(auth.searchParams.get('code_challenge_method'), 'S256');
    assert.ok(auth.searchParams.get('nonce'));
    assert.match(started.flowLine, /HttpOnly/i);
    assert.match(started.flowLine, /SameSite=Lax/i);
    assert.equal(started.flow.includes(auth.searchParams.get('state') ?? '-'), false, 'the flow cookie is sealed, not readable');

    const back = await loginAtDex(started.location, BOB.email, BOB.password);
    const done = await g.callback(back, started.flow);
    assert.equal(done.status, 302, done.text);
    assert.equal(done.headers.get('location'), '/security?tab=cves');
    assert.match(done.sessionLine, /SameSite=Lax/i);
    assert.match(cookieIn(done, 'capstan_oidc') ?? '', /Max-Age=0/i, 'the flow cookie is cleared');
    assert.deepEqual((await g.me(done.session)).body, { username: 'bob@example.com', role: 'viewer', auth_method: 'oidc' });
    const identity = await g.services.db.selectFrom('sso_identities').selectAll().where('provider', '=', 'oidc').executeTakeFirstOrThrow();
    assert.ok(identity.subject.length > 0);
    assert.deepEqual(JSON.parse(identity.groups), ['devs']);
    const audited = await g.services.db.selectFrom('audit_log').select('actor').where('actor', '=', 'bob@example.com@192.0.2.10').execute();
    assert.ok(audited.length > 0, 'audited as email@ip');

    // A return path to another site lands on the dashboard's root instead.
    const offsite = await g.signInAs(BOB, 'https://evil.example/');
    assert.equal(offsite.headers.get('location'), '/');
    assert.equal((await g.services.db.selectFrom('sso_identities').selectAll().execute()).length, 1, 'the same identity signs in again');

    // Turning OIDC off: sign-in is gone; the account stays.
    assert.equal((await g.call('DELETE', '/api/agent/admin/sso/oidc', { cookie: g.admin })).status, 200);
    assert.equal((await g.call('GET', '/api/agent/auth/oidc/login')).status, 404);
  });

  it("dex's groups map to roles: a group made admin applies to the open session and to the next sign-in", async () => {
    const h = await setup();
    assert.equal((await h.configure()).status, 200);
    const first = await h.signInAs(ANN);
    assert.equal(first.status, 302, first.text);
    assert.deepEqual((await h.me(first.session)).body, { username: 'ann@example.com', role: 'viewer', auth_method: 'oidc' });
    const groups = (await h.call('GET', '/api/agent/admin/groups', { cookie: h.admin })).body.groups as Record<string, unknown>[];
    assert.deepEqual(groups.filter((g) => g.provider === 'oidc').map((g) => [g.name, g.role]), [['capstan-admins', 'viewer'], ['ops', 'viewer']]);
    const set = await h.call('PUT', '/api/agent/admin/groups/oidc/capstan-admins', { cookie: h.admin, body: { role: 'admin' } });
    assert.equal(set.status, 200, set.text);
    assert.equal((await h.me(first.session)).body.role, 'admin', 'the open session acts at the new role');
    const again = await h.signInAs(ANN);
    assert.equal((await h.me(again.session)).body.role, 'admin');
    // Bob is in no admin group.
    const bob = await h.signInAs(BOB);
    assert.equal((await h.me(bob.session)).body.role, 'viewer');
  });

  it('a tampered state, a missing or foreign flow cookie, an expired flow and a replayed callback are refused', async () => {
    const h = await setup();
    assert.equal((await h.configure()).status, 200);
    const started = await h.start();
    const back = await loginAtDex(started.location, BOB.email, BOB.password);
    const url = new URL(back);

    const tampered = new URL(back);
    tampered.searchParams.set('state', `${url.searchParams.get('state') ?? ''}x`);
    const wrongState = await h.callback(tampered.toString(), started.flow);
    assert.equal(wrongState.status, 401);
    assert.match(String(wrongState.body.message), /state/);
    assert.equal(wrongState.session, '');

    const noCookie = await h.callback(back, '');
    assert.equal(noCookie.status, 401);
    const forged = await h.callback(back, `${started.flow.slice(0, -4)}AAAA`);
    assert.equal(forged.status, 401, 'a flow cookie altered by the browser does not open');
    const other = await h.start();
    const foreign = await h.callback(back, other.flow);
    assert.equal(foreign.status, 401, "another sign-in's cookie carries another state");

    const done = await h.callback(back, started.flow);
    assert.equal(done.status, 302, done.text);
    assert.equal((await h.me(done.session)).status, 200);

    const replay = await h.callback(back, started.flow);
    assert.equal(replay.status, 401);
    assert.match(String(replay.body.message), /already completed/);
    assert.equal(replay.session, '');

    // A flow older than 10 minutes is refused before the code is spent.
    const late = await h.start();
    const lateBack = await loginAtDex(late.location, BOB.email, BOB.password);
    h.clock.advance(11 * 60_000);
    const expired = await h.callback(lateBack, late.flow);
    assert.equal(expired.status, 401);
    assert.match(String(expired.body.message), /10 minutes/);
  });
});
