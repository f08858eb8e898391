// SAML 2.0 sign-in against a real IdP: crewjam/saml's samlidp (tests/support/samlidp.ts) signing
// with RSA-SHA256. The test plays the browser with fetch: the agent's redirect to the IdP, the
// IdP's login form, then the IdP's SAMLResponse posted to the agent's ACS. Proven: sign-in with
// a Lax session that works, groups to roles, a replayed response refused, a response whose
// signed assertion was altered refused, an unsolicited one refused, the Enterprise gate.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LicensedFeature } from '../../schema/access.ts';
import { testApp, UNLIMITED_RATE_LIMITS } from '../support/app.ts';
import { startSamlIdp, type IdpPost, type SamlIdp } from '../support/samlidp.ts';

let idp: SamlIdp;
const GROUPS = 'urn:oid:1.3.6.1.4.1.5923.1.1.1.1'; // eduPersonAffiliation: samlidp's groups
const MAIL = 'urn:oid:0.9.2342.19200300.100.1.3';
const PUBLIC_URL = 'http://capstan.test:8080';

before(async () => {
  idp = await startSamlIdp();
  await idp.putUser({ name: 'alice', password: 'alice password', email: 'alice@example.com', groups: ['ops-admins', 'staff'] });
  await idp.putUser({ name: 'bob', password: 'bob password', email: 'bob@example.com', groups: ['staff'] });
});
after(async () => {
  await idp.stop();
});

async function setup(tier = 'enterprise', from: SamlIdp = idp, publicUrl = PUBLIC_URL) {
  const licensing = { tier, has: (f: LicensedFeature) => tier === 'enterprise' || f === 'mcp' };
  const h = await testApp({ licensing, rateLimits: UNLIMITED_RATE_LIMITS });
  const admin = await h.signIn('admin');
  const configure = async () => h.call('PUT', '/api/agent/admin/sso/saml', { cookie: admin, body: { public_url: publicUrl, idp_metadata_xml: await from.metadata(), email_attribute: MAIL, groups_attribute: GROUPS } });
  /** The agent's redirect to the IdP (GET /auth/saml/login). */
  const start = async (returnTo?: string) => {
    const res = await h.app.request(`/api/agent/auth/saml/login${returnTo ? `?return_to=${encodeURIComponent(returnTo)}` : ''}`, {}, { incoming: { socket: { remoteAddress: '192.0.2.10' } } });
    assert.equal(res.status, 302, await res.clone().text());
    return res.headers.get('location') ?? '';
  };
  /** Posts what the IdP's form would post to the agent's ACS. */
  const acs = async (post: Pick<IdpPost, 'SAMLResponse' | 'RelayState'>) => {
    const res = await h.app.request(
      '/api/agent/auth/saml/acs',
      { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(post).toString() },
      { incoming: { socket: { remoteAddress: '192.0.2.10' } } },
    );
    const setCookie = res.headers.get('set-cookie') ?? '';
    return { status: res.status, location: res.headers.get('location'), setCookie, cookie: /capstan_session=([^;]+)/.exec(setCookie)?.[1] ?? '', text: await res.text() };
  };
  const me = (cookie: string) => h.call('GET', '/api/agent/me', { cookie });
  return { ...h, admin, configure, start, acs, me };
}

type Harness = Awaited<ReturnType<typeof setup>>;

/** Configures SAML and registers the agent's SP metadata with the IdP. */
async function configured(h: Harness, from: SamlIdp = idp): Promise<void> {
  const saved = await h.configure();
  assert.equal(saved.status, 200, saved.text);
  const metadata = await h.app.request('/api/agent/auth/saml/metadata', {}, { incoming: { socket: { remoteAddress: '192.0.2.10' } } });
  assert.equal(metadata.status, 200);
  await from.putService('capstan', await metadata.text());
}

/** Re-encodes a SAMLResponse after `edit` changed its XML. */
const altered = (post: IdpPost, edit: (xml: string) => string): IdpPost => ({ ...post, SAMLResponse: Buffer.from(edit(Buffer.from(post.SAMLResponse, 'base64').toString('utf8'))).toString('base64') });

describe('SAML sign-in against crewjam/saml samlidp', () => {
  it('configuring needs Enterprise; sign-in provisions the user with a Lax session that works; groups to roles; GET /auth/methods lists saml', async () => {
    const free = await setup('free');
    const refused = await free.configure();
    assert.equal(refused.status, 402, refused.text);

    const h = await setup();
    assert.equal((await h.call('GET', '/api/agent/auth/saml/login')).status, 404, 'SAML sign-in is gone until configured');
    await configured(h);
    const stored = await h.services.db.selectFrom('sso_providers').selectAll().where('provider', '=', 'saml').executeTakeFirstOrThrow();
    assert.equal(stored.config_sealed.includes('capstan.test'), false, 'the configuration is encrypted at rest');
    assert.deepEqual((await h.call('GET', '/api/agent/auth/methods')).body.sso, [{ provider: 'saml', path: '/auth/saml/login', totp: false }]);

    // ops-admins is admin: set before alice's first sign-in needs the group known, so sign bob in first.
    const bobPost = await idp.signIn(await h.start('/workloads?ns=default'), 'bob', 'bob password');
    assert.equal(bobPost.action, `${PUBLIC_URL}/api/agent/auth/saml/acs`);
    const bob = await h.acs(bobPost);
    assert.equal(bob.status, 302, bob.text);
    assert.equal(bob.location, '/workloads?ns=default', 'the return path the sign-in started with');
    assert.match(bob.setCookie, /SameSite=Lax/i);
    const bobMe = await h.me(bob.cookie);
    assert.equal(bobMe.status, 200, bobMe.text);
    assert.equal(bobMe.body.username, 'bob@example.com');
    assert.equal(bobMe.body.role, 'viewer');
    assert.equal(bobMe.body.auth_method, 'saml');

    const alice1 = await h.acs(await idp.signIn(await h.start(), 'alice', 'alice password'));
    assert.equal(alice1.status, 302, alice1.text);
    assert.equal(alice1.location, '/');
    assert.equal((await h.me(alice1.cookie)).body.role, 'viewer', 'new groups start as viewer');
    const groups = await h.call('GET', '/api/agent/admin/groups', { cookie: h.admin });
    assert.deepEqual((groups.body.groups as { provider: string; name: string }[]).filter((g) => g.provider === 'saml').map((g) => g.name), ['ops-admins', 'staff']);
    assert.equal((await h.call('PUT', '/api/agent/admin/groups/saml/ops-admins', { cookie: h.admin, body: { role: 'admin' } })).status, 200);
    const alice2 = await h.acs(await idp.signIn(await h.start(), 'alice', 'alice password'));
    assert.equal(alice2.status, 302, alice2.text);
    assert.equal((await h.me(alice2.cookie)).body.role, 'admin');
  });

  it('a replayed response, a tampered assertion, an unsolicited response and a foreign return path are refused', async () => {
    const h = await setup();
    await configured(h);
    const post = await idp.signIn(await h.start(), 'bob', 'bob password');
    const xml = Buffer.from(post.SAMLResponse, 'base64').toString('utf8');
    assert.match(xml, /rsa-sha256/, 'the IdP signs with RSA-SHA256');
    assert.doesNotMatch(xml, /rsa-sha1"/);

    // Tampered: the NameID inside the signed assertion becomes alice's.
    const tampered = await h.acs(altered(post, (x) => x.replaceAll('bob@example.com', 'alice@example.com')));
    assert.equal(tampered.status, 401, tampered.text);
    assert.match(tampered.text, /Invalid signature/);
    assert.equal(tampered.cookie, '');
    // Tampered group attribute.
    const promoted = await h.acs(altered(post, (x) => x.replace('>staff<', '>ops-admins<')));
    assert.equal(promoted.status, 401, promoted.text);
    assert.match(promoted.text, /Invalid signature/);

    const first = await h.acs(post);
    assert.equal(first.status, 302, first.text);
    const replayed = await h.acs(post);
    assert.equal(replayed.status, 401, replayed.text);
    assert.match(replayed.text, /InResponseTo is not valid/, 'the request it answered was already answered');
    assert.equal(replayed.cookie, '');

    // Unsolicited: an IdP-initiated response (samlidp's shortcut), genuinely signed, answering no request.
    const unsolicited = await idp.unsolicited(`${PUBLIC_URL}/api/agent/auth/saml/metadata`, 'bob', 'bob password');
    assert.doesNotMatch(Buffer.from(unsolicited.SAMLResponse, 'base64').toString('utf8'), /InResponseTo=/);
    const idpInitiated = await h.acs(unsolicited);
    assert.equal(idpInitiated.status, 401, idpInitiated.text);
    // With a RelayState of ours it is still unsolicited.
    const ours = new URL(await h.start()).searchParams.get('RelayState') ?? '';
    const withRelay = await h.acs({ SAMLResponse: unsolicited.SAMLResponse, RelayState: ours });
    assert.equal(withRelay.status, 401, withRelay.text);
    assert.match(withRelay.text, /InResponseTo is missing/);
    // A response of ours with a RelayState we never signed.
    const other = await idp.signIn(await h.start(), 'bob', 'bob password');
    const forged = await h.acs({ SAMLResponse: other.SAMLResponse, RelayState: 'forged.relaystate' });
    assert.equal(forged.status, 401, forged.text);
    assert.match(forged.text, /RelayState/);
    // Another request's RelayState (signed by us) does not fit this response.
    const swapped = await h.acs({ SAMLResponse: other.SAMLResponse, RelayState: ours });
    assert.equal(swapped.status, 401, swapped.text);

    // return_to is a same-origin path only.
    const foreign = await idp.signIn(await h.start('//evil.example/x'), 'bob', 'bob password');
    const landed = await h.acs(foreign);
    assert.equal(landed.status, 302, landed.text);
    assert.equal(landed.location, '/');
  });

  it('with an https public_url the response is accepted only in the browser that started the sign-in (flow cookie, SameSite=None; Secure)', async () => {
    const h = await setup('enterprise', idp, 'https://capstan.test');
    await configured(h);
    const ip = { incoming: { socket: { remoteAddress: '192.0.2.10' } } };
    const started = await h.app.request('https://capstan.test/api/agent/auth/saml/login', {}, ip);
    assert.equal(started.status, 302);
    const setCookie = started.headers.get('set-cookie') ?? '';
    assert.match(setCookie, /^capstan_saml=[^;]+;/);
    for (const attribute of ['HttpOnly', 'SameSite=None', 'Secure']) assert.ok(setCookie.split('; ').includes(attribute), `${attribute} in ${setCookie}`);
    const flow = /capstan_saml=([^;]+)/.exec(setCookie)?.[1] ?? '';
    const post = await idp.signIn(started.headers.get('location') ?? '', 'bob', 'bob password');
    const acs = (cookie: string | null) =>
      h.app.request(
        'https://capstan.test/api/agent/auth/saml/acs',
        { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) }, body: new URLSearchParams({ SAMLResponse: post.SAMLResponse, RelayState: post.RelayState }).toString() },
        ip,
      );
    // Another browser (no flow cookie, or another sign-in's) posting this response: refused.
    const elsewhere = await acs(null);
    assert.equal(elsewhere.status, 401, await elsewhere.text());
    const other = /capstan_saml=([^;]+)/.exec((await h.app.request('https://capstan.test/api/agent/auth/saml/login', {}, ip)).headers.get('set-cookie') ?? '')?.[1] ?? '';
    const wrong = await acs(`capstan_saml=${other}`);
    assert.equal(wrong.status, 401, await wrong.text());
    // The starting browser: signed in, the flow cookie cleared, the session cookie set.
    const ok = await acs(`capstan_saml=${flow}`);
    assert.equal(ok.status, 302, await ok.text());
    const cookies = ok.headers.getSetCookie();
    assert.ok(cookies.some((c) => /^capstan_saml=;.*Max-Age=0/.test(c)), cookies.join(' | '));
    assert.ok(cookies.some((c) => /^capstan_session=.+SameSite=Lax/i.test(c)), cookies.join(' | '));
  });

  it('an IdP 3 minutes behind is accepted (its assertions expired 90 s ago, within the 5-minute skew)', async () => {
    const slow = await startSamlIdp({ clockOffset: '-3m' });
    try {
      await slow.putUser({ name: 'bob', password: 'bob password', email: 'bob@example.com' });
      const h = await setup('enterprise', slow);
      await configured(h, slow);
      const post = await slow.signIn(await h.start(), 'bob', 'bob password');
      const xml = Buffer.from(post.SAMLResponse, 'base64').toString('utf8');
      const notOnOrAfter = Date.parse(/SubjectConfirmationData[^>]*NotOnOrAfter="([^"]+)"/.exec(xml)?.[1] ?? '');
      assert.ok(notOnOrAfter < Date.now(), 'the assertion is past its NotOnOrAfter by the agent\'s clock');
      const accepted = await h.acs(post);
      assert.equal(accepted.status, 302, accepted.text);
      assert.equal((await h.me(accepted.cookie)).status, 200);
    } finally {
      await slow.stop();
    }
  });

  it('an IdP signing with RSA-SHA1, and one whose assertions have expired (its clock an hour behind, past the 5-minute skew), are refused', async () => {
    for (const [options, reason] of [
      [{ signatureMethod: 'rsa-sha1' }, /rsa-sha1 is refused/],
      // node-saml drops a SubjectConfirmation past its NotOnOrAfter (+ skew), leaving none valid.
      [{ clockOffset: '-1h' }, /No valid subject confirmation/],
    ] as const) {
      const bad = await startSamlIdp(options);
      try {
        await bad.putUser({ name: 'bob', password: 'bob password', email: 'bob@example.com' });
        const h = await setup('enterprise', bad);
        await configured(h, bad);
        const post = await bad.signIn(await h.start(), 'bob', 'bob password');
        const refused = await h.acs(post);
        assert.equal(refused.status, 401, refused.text);
        assert.match(refused.text, reason);
        assert.equal(refused.cookie, '');
      } finally {
        await bad.stop();
      }
    }
  });
});
