// OpenID Connect relying party (issue 17 item 5, docs/sso.md "OIDC"): arctic for the
// authorization code flow with PKCE (S256), the issuer's discovery document for its endpoints,
// jose for ID tokens against its JWKS (runtime/sso/oidc-token.ts). One sign-in's state, nonce
// and PKCE verifier travel in a sealed (AES-256-GCM with the at-rest key, so neither forged nor
// read), 10-minute cookie; each state is accepted once.
import { timingSafeEqual } from 'node:crypto';
import { CodeChallengeMethod, generateCodeVerifier, generateState, OAuth2Client, OAuth2RequestError } from 'arctic';
import { createRemoteJWKSet, type JWTVerifyGetKey } from 'jose';
import * as v from 'valibot';
import type { Clock } from '../../domain/clock.ts';
import type { OidcService, StoredOidc } from '../../handlers/sso/oidc-service.ts';
import type { Secrets } from '../../handlers/settings/service.ts';
import { fail, ok, type AppError, type Result } from '../../handlers/result.ts';
import { OidcConfig } from '../../schema/sso.ts';
import type { Logger } from '../log.ts';
import type { Db } from '../store/database.ts';
import { verifyIdToken } from './oidc-token.ts';

/** How long a started sign-in may take at the provider. */
const FLOW_TTL_MS = 10 * 60_000;
/** Every call to the provider is bounded. */
const PROVIDER_TIMEOUT_MS = 5_000;
/** Discovery documents are re-read after this long (providers move endpoints rarely). */
const DISCOVERY_TTL_MS = 10 * 60_000;
/** Used states kept (until their flow would have expired anyway); beyond this the oldest go. */
const MAX_USED_STATES = 10_000;

const Discovery = v.object({
  issuer: v.string(),
  authorization_endpoint: v.pipe(v.string(), v.url()),
  token_endpoint: v.pipe(v.string(), v.url()),
  jwks_uri: v.pipe(v.string(), v.url()),
});
type Discovery = v.InferOutput<typeof Discovery>;

const Flow = v.object({ p: v.literal('oidc-flow'), state: v.string(), nonce: v.string(), verifier: v.string(), returnTo: v.string(), expiresAt: v.number() });

const refused = (message: string): AppError => ({ code: 'unauthenticated', message });

function sameString(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

async function bounded<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${PROVIDER_TIMEOUT_MS / 1000} s`)), PROVIDER_TIMEOUT_MS);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function createOidcService(db: Db, clock: Clock, secrets: Secrets, log: Logger): OidcService {
  const discoveries = new Map<string, { doc: Discovery; at: number }>();
  const keySets = new Map<string, JWTVerifyGetKey>();
  const usedStates = new Map<string, number>();

  async function discover(issuer: string): Promise<Result<Discovery>> {
    const cached = discoveries.get(issuer);
    if (cached && clock.now().getTime() - cached.at < DISCOVERY_TTL_MS) return ok(cached.doc);
    const url = `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS), redirect: 'error' });
      if (!res.ok) return fail({ code: 'not_ready', message: `the issuer's discovery document answered ${res.status} (${url})` });
      const parsed = v.safeParse(Discovery, await res.json());
      if (!parsed.success) return fail({ code: 'not_ready', message: `the issuer's discovery document lacks its endpoints (${url})` });
      // OpenID Connect Discovery §4.3: the document must name exactly this issuer.
      if (parsed.output.issuer !== issuer) return fail({ code: 'not_ready', message: `the discovery document names issuer ${parsed.output.issuer}, not ${issuer}` });
      discoveries.set(issuer, { doc: parsed.output, at: clock.now().getTime() });
      return ok(parsed.output);
    } catch (error) {
      return fail({ code: 'not_ready', message: `the issuer's discovery document could not be read (${url}): ${error instanceof Error ? error.message : String(error)}` });
    }
  }

  function keysFor(jwksUri: string): JWTVerifyGetKey {
    let keys = keySets.get(jwksUri);
    if (!keys) {
      // jose refetches on an unknown kid (key rotation), at most every 30 s.
      keys = createRemoteJWKSet(new URL(jwksUri), { timeoutDuration: PROVIDER_TIMEOUT_MS, cooldownDuration: 30_000, cacheMaxAge: DISCOVERY_TTL_MS });
      keySets.set(jwksUri, keys);
    }
    return keys;
  }

  const clientOf = (config: OidcConfig) => new OAuth2Client(config.client_id, config.client_secret, redirectUri(config));
  // Browsers reach the agent through the dashboard, which proxies /api/agent/* to it (docs/dashboard.md).
  const redirectUri = (config: OidcConfig) => `${config.public_url.replace(/\/$/, '')}/api/agent/auth/oidc/callback`;

  /** Marks a state used; false when it already was (a replayed callback). */
  function useState(state: string, expiresAt: number): boolean {
    const now = clock.now().getTime();
    for (const [s, until] of usedStates) if (until <= now) usedStates.delete(s);
    if (usedStates.has(state)) return false;
    while (usedStates.size >= MAX_USED_STATES) {
      const oldest = usedStates.keys().next();
      if (oldest.done) break;
      usedStates.delete(oldest.value);
    }
    usedStates.set(state, expiresAt);
    return true;
  }

  return {
    async stored(): Promise<StoredOidc | null> {
      const row = await db.selectFrom('sso_providers').selectAll().where('provider', '=', 'oidc').executeTakeFirst();
      if (!row) return null;
      return { enabled: row.enabled === 1, config: v.parse(OidcConfig, JSON.parse(secrets.open(row.config_sealed))), updatedAt: new Date(row.updated_at) };
    },

    async configure(config) {
      discoveries.delete(config.issuer);
      const found = await discover(config.issuer);
      if (!found.ok) return fail({ code: 'invalid_input', field: 'issuer', message: found.error.message });
      const row = { provider: 'oidc' as const, enabled: 1, config_sealed: secrets.seal(JSON.stringify(config)), updated_at: clock.now().getTime() };
      await db
        .insertInto('sso_providers')
        .values(row)
        .onConflict((oc) => oc.column('provider').doUpdateSet({ enabled: 1, config_sealed: row.config_sealed, updated_at: row.updated_at }))
        .execute();
      return ok({ enabled: true, config, updatedAt: new Date(row.updated_at) });
    },

    async disable() {
      const result = await db.updateTable('sso_providers').set({ enabled: 0, updated_at: clock.now().getTime() }).where('provider', '=', 'oidc').where('enabled', '=', 1).executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    redirectUri,

    async start(config, returnTo) {
      const found = await discover(config.issuer);
      if (!found.ok) return found;
      const state = generateState();
      const nonce = generateState();
      const verifier = generateCodeVerifier();
      const url = clientOf(config).createAuthorizationURLWithPKCE(found.value.authorization_endpoint, state, CodeChallengeMethod.S256, verifier, config.scopes);
      url.searchParams.set('nonce', nonce);
      const flow: v.InferOutput<typeof Flow> = { p: 'oidc-flow', state, nonce, verifier, returnTo, expiresAt: clock.now().getTime() + FLOW_TTL_MS };
      return ok({ location: url.toString(), flowCookie: secrets.seal(JSON.stringify(flow)) });
    },

    async finish(config, code, state, flowCookie) {
      if (flowCookie === undefined || flowCookie === '') return fail(refused('no sign-in was started in this browser (the flow cookie is missing or expired)'));
      let flow: v.InferOutput<typeof Flow>;
      try {
        flow = v.parse(Flow, JSON.parse(secrets.open(flowCookie)));
      } catch {
        return fail(refused('the sign-in cookie is not one this agent issued'));
      }
      if (flow.expiresAt <= clock.now().getTime()) return fail(refused('the sign-in took longer than 10 minutes; start again'));
      // The state binds the provider's answer to this browser's sign-in (CSRF, RFC 6749 §10.12).
      if (!sameString(flow.state, state)) return fail(refused('state does not match this browser\'s sign-in'));
      if (!useState(flow.state, flow.expiresAt)) return fail(refused('this sign-in was already completed (a replayed callback)'));
      const found = await discover(config.issuer);
      if (!found.ok) return found;
      let idToken: string;
      try {
        const tokens = await bounded(clientOf(config).validateAuthorizationCode(found.value.token_endpoint, code, flow.verifier), 'the token request');
        idToken = tokens.idToken();
      } catch (error) {
        if (error instanceof OAuth2RequestError) return fail(refused(`the provider refused the code: ${error.code}${error.description ? ` (${error.description})` : ''}`));
        log.warn('OIDC token exchange failed', { issuer: config.issuer, error: error instanceof Error ? error.message : String(error) });
        return fail({ code: 'not_ready', message: `the provider's token endpoint could not be used: ${error instanceof Error ? error.message : String(error)}` });
      }
      const verified = await verifyIdToken(idToken, keysFor(found.value.jwks_uri), {
        issuer: config.issuer,
        clientId: config.client_id,
        nonce: flow.nonce,
        groupsClaim: config.groups_claim,
        nowSecs: Math.floor(clock.now().getTime() / 1000),
      });
      if (!verified.ok) return verified;
      return ok({ identity: { provider: 'oidc', ...verified.value }, returnTo: flow.returnTo });
    },
  };
}
