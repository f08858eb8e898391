// SAML 2.0 service provider (issue 17 item 6, docs/sso.md "SAML") with @node-saml/node-saml,
// which verifies XML signatures through xml-crypto on @xmldom/xmldom and only ever reads the
// signed bytes (signature wrapping is the classic failure of hand-rolled checks). On top of it:
// RSA-SHA256 pinned (SHA-1 refused before verification), InResponseTo always required and
// matched to the request the sealed flow names, and each assertion ID accepted once. A started
// sign-in keeps no state here: its request ID, nonce, return path and expiry travel sealed
// (AES-256-GCM with the at-rest key, as OIDC's flow cookie) in the flow cookie, or, over a
// plain-HTTP public URL where no cookie can ride the IdP's cross-site POST, in the RelayState.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createRequire } from 'node:module';
import * as v from 'valibot';
import type { Clock } from '../../domain/clock.ts';
import { algorithmRefusal, encryptedRefusalMessage, encryptionRefusal, MAX_FLOW_RETURN_BYTES, ReplayMemory, SAML_CLOCK_SKEW_MS, SAML_REQUEST_TTL_MS, samlEmail, samlFlowCookieRequired, samlGroups } from '../../domain/sso/saml.ts';
import type { SamlEndpoints, SamlService, StoredSaml } from '../../handlers/sso/saml-service.ts';
import type { Secrets } from '../../handlers/settings/service.ts';
import { fail, ok, type AppError, type Result } from '../../handlers/result.ts';
import { MASKED_SECRET, SamlConfig } from '../../schema/sso.ts';
import type { Db } from '../store/database.ts';
import type { Logger } from '../log.ts';
import { checkSpKeypair, generateSpKeypair } from './saml-keypair.ts';
import { createSamlLogout, type LogoutSaml } from './saml-logout.ts';
import { parseXmlLenient, parseXmlStrict, type XmlDocument, type XmlElement } from './saml-xml.ts';

// node-saml is loaded without its type declarations (see saml-xml.ts for why); the few
// members used are typed below.
interface Profile {
  nameID: string;
  inResponseTo?: unknown;
  attributes?: unknown;
  getAssertionXml?(): string;
  [attribute: string]: unknown;
}
interface CacheProvider {
  saveAsync(key: string, value: string): Promise<null>;
  getAsync(key: string): Promise<string | null>;
  removeAsync(key: string | null): Promise<string | null>;
}
interface SamlInstance extends LogoutSaml {
  getAuthorizeUrlAsync(relayState: string, host: string | undefined, options: object): Promise<string>;
  validatePostResponseAsync(container: Record<string, string>): Promise<{ profile: Profile | null; loggedOut: boolean }>;
  generateServiceProviderMetadata(decryptionCert: string | null, publicCerts: string | null): string;
}
interface NodeSaml {
  SAML: new (options: Record<string, unknown>) => SamlInstance;
  ValidateInResponseTo: { always: string };
}
const load = createRequire(import.meta.url);
const { SAML, ValidateInResponseTo } = load('@node-saml/node-saml') as NodeSaml;

const DSIG = 'http://www.w3.org/2000/09/xmldsig#';
const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';
const ASSERTION = 'urn:oasis:names:tc:SAML:2.0:assertion';
const XENC = 'http://www.w3.org/2001/04/xmlenc#';
const REDIRECT_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
/** Assertion IDs remembered at most (until each assertion expires). */
const MAX_REPLAY = 100_000;
/**
 * Answered request IDs remembered (until their flow expires), so each AuthnRequest is answered
 * once; only a verified response adds one, and past the bound the oldest goes (the assertion-ID
 * memory above still refuses that response's replay).
 */
const MAX_ANSWERED = 10_000;

const refused = (message: string): AppError => ({ code: 'unauthenticated', message: `SAML response refused: ${message}` });

/** One started sign-in, sealed into the flow cookie (or the RelayState over plain HTTP). */
const Flow = v.object({ p: v.literal('saml-flow'), requestId: v.string(), nonce: v.string(), returnTo: v.string(), expiresAt: v.number() });
type Flow = v.InferOutput<typeof Flow>;

function sameString(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The IdP's SSO URL (redirect binding), entity ID and signing certificate from its metadata. */
export function parseIdpMetadata(xml: string): Result<{ ssoUrl: string; entityId: string | null; certPem: string; sloUrl: string | null }> {
  const bad = (message: string): Result<never> => fail({ code: 'invalid_input', field: 'idp_metadata_xml', message });
  let doc: XmlDocument;
  try {
    doc = parseXmlStrict(xml);
  } catch (err) {
    return bad(`not XML: ${err instanceof Error ? err.message : String(err)}`);
  }
  const idp = doc.getElementsByTagNameNS(MD, 'IDPSSODescriptor')[0];
  if (!idp) return bad('no IDPSSODescriptor');
  const sso = Array.from(idp.getElementsByTagNameNS(MD, 'SingleSignOnService')).find((e) => e.getAttribute('Binding') === REDIRECT_BINDING);
  const ssoUrl = sso?.getAttribute('Location');
  if (!ssoUrl || !/^https?:\/\//.test(ssoUrl)) return bad('no SingleSignOnService with the HTTP-Redirect binding');
  const keys = Array.from(idp.getElementsByTagNameNS(MD, 'KeyDescriptor')).filter((k) => (k.getAttribute('use') ?? 'signing') === 'signing');
  const cert = keys.map((k) => k.getElementsByTagNameNS(DSIG, 'X509Certificate')[0]?.textContent?.replace(/\s+/g, '')).find((c) => c);
  if (!cert) return bad('no signing certificate (KeyDescriptor use="signing" with an X509Certificate)');
  const certPem = `-----BEGIN CERTIFICATE-----\n${cert.match(/.{1,64}/g)?.join('\n') ?? ''}\n-----END CERTIFICATE-----\n`;
  const entityId = doc.documentElement?.getAttribute('entityID') || null;
  // Single logout: the IdP's SingleLogoutService with the redirect binding (what Capstan sends by); none, no single logout.
  const slo = Array.from(idp.getElementsByTagNameNS(MD, 'SingleLogoutService')).find((e) => e.getAttribute('Binding') === REDIRECT_BINDING);
  const sloLocation = slo?.getAttribute('Location');
  const sloUrl = sloLocation && /^https?:\/\//.test(sloLocation) ? sloLocation : null;
  return ok({ ssoUrl, entityId, certPem, sloUrl });
}

interface Algorithms {
  signature: string[];
  digest: string[];
  /** xenc EncryptionMethod algorithms (key transport and content). */
  encryption: string[];
  /** The Response's assertion is an EncryptedAssertion (and no plain one sits beside it). */
  encrypted: boolean;
}

/**
 * Every SignatureMethod and signature DigestMethod algorithm in the document, signed or not;
 * the digests of ds:Reference only, as RSA-OAEP's own DigestMethod (inside an EncryptedKey)
 * hashes no signed content.
 */
function algorithmsIn(xml: string): Algorithms | null {
  try {
    const doc = parseXmlStrict(xml);
    const attr = (from: ArrayLike<XmlElement>) => Array.from(from).map((e) => e.getAttribute('Algorithm') ?? '');
    const references = Array.from(doc.getElementsByTagNameNS(DSIG, 'Reference'));
    return {
      signature: attr(doc.getElementsByTagNameNS(DSIG, 'SignatureMethod')),
      digest: references.flatMap((r) => attr(r.getElementsByTagNameNS(DSIG, 'DigestMethod'))),
      encryption: attr(doc.getElementsByTagNameNS(XENC, 'EncryptionMethod')),
      // Anywhere in the document: a plain Assertion beside the encrypted one is not "encrypted".
      encrypted: doc.getElementsByTagNameNS(ASSERTION, 'EncryptedAssertion').length > 0 && doc.getElementsByTagNameNS(ASSERTION, 'Assertion').length === 0,
    };
  } catch {
    return null;
  }
}

/** The assertion's ID and when it stops being acceptable (NotOnOrAfter + skew; SubjectConfirmationData's or Conditions'). */
function assertionIdentity(profile: Profile): { id: string; expiresAt: number } | null {
  const xml = profile.getAssertionXml?.();
  if (!xml) return null;
  const doc = parseXmlLenient(xml);
  const assertion = doc.getElementsByTagNameNS(ASSERTION, 'Assertion')[0];
  const id = assertion?.getAttribute('ID');
  if (!assertion || !id) return null;
  const limits = [...Array.from(assertion.getElementsByTagNameNS(ASSERTION, 'Conditions')), ...Array.from(assertion.getElementsByTagNameNS(ASSERTION, 'SubjectConfirmationData'))]
    .map((e) => Date.parse(e.getAttribute('NotOnOrAfter') ?? ''))
    .filter((t) => Number.isFinite(t));
  // Without a NotOnOrAfter node-saml has nothing to expire it by: remember it for a day.
  const until = limits.length ? Math.max(...limits) : Date.now() + 24 * 3600_000;
  return { id, expiresAt: until + SAML_CLOCK_SKEW_MS };
}

/**
 * node-saml publishes the SingleLogoutService with the HTTP-POST binding only; the same address
 * also takes the HTTP-Redirect binding (GET), the one most IdPs send logout messages by, so it
 * is published beside it (metadata order: SingleLogoutService precedes NameIDFormat and ACS).
 */
export function withRedirectLogout(metadata: string, sloUrl: string): string {
  const post = /<SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="[^"]*"\/>/.exec(metadata);
  if (!post) return metadata;
  const at = post.index + post[0].length;
  return `${metadata.slice(0, at)}\n    <SingleLogoutService Binding="${REDIRECT_BINDING}" Location="${sloUrl}"/>${metadata.slice(at)}`;
}

export function createSamlService(db: Db, clock: Clock, secrets: Secrets, log: Logger): SamlService {
  const now = () => clock.now().getTime();
  const replay = new ReplayMemory(MAX_REPLAY);
  /** Request IDs already answered, each until its flow would have expired; insertion order is age. */
  const answered = new Map<string, number>();

  function markAnswered(requestId: string, expiresAt: number): void {
    const t = now();
    for (const [id, until] of answered) if (until <= t) answered.delete(id);
    while (answered.size >= MAX_ANSWERED) {
      const oldest = answered.keys().next();
      if (oldest.done) break;
      answered.delete(oldest.value);
    }
    answered.set(requestId, expiresAt);
  }

  /**
   * node-saml's InResponseTo store for one response: only the request the sealed flow names,
   * while unanswered. node-saml reads the value as the request's creation time and compares it
   * with its own Date.now(); the flow's lifetime was judged by the injected clock, so a live one
   * reads as created just now. Starting a sign-in saves nothing.
   */
  const flowCache = (flow: Flow | null): CacheProvider => ({
    saveAsync: () => Promise.resolve(null),
    getAsync: (key) => Promise.resolve(flow !== null && key === flow.requestId && !answered.has(key) ? new Date().toISOString() : null),
    removeAsync: (key) => Promise.resolve(key),
  });

  /** The sealed flow, or null when it is not one this agent issued for SAML. */
  function openFlow(sealed: string | undefined): Flow | null {
    if (sealed === undefined || sealed === '') return null;
    try {
      return v.parse(Flow, JSON.parse(secrets.open(sealed)));
    } catch {
      return null;
    }
  }

  function endpoints(config: SamlConfig): SamlEndpoints {
    const base = config.public_url.replace(/\/$/, '') + '/api/agent/auth/saml';
    return { spEntityId: `${base}/metadata`, acsUrl: `${base}/acs`, metadataUrl: `${base}/metadata`, sloUrl: `${base}/slo` };
  }

  /** `overrides`: node-saml options single logout changes (saml-logout.ts). */
  function samlFor(config: SamlConfig, requestId?: string, overrides: Readonly<Record<string, unknown>> = {}): SamlInstance {
    const ep = endpoints(config);
    return new SAML({
      callbackUrl: ep.acsUrl,
      entryPoint: config.idp_sso_url,
      issuer: ep.spEntityId,
      audience: ep.spEntityId,
      idpCert: config.idp_cert_pem,
      ...(config.idp_entity_id ? { idpIssuer: config.idp_entity_id } : {}),
      wantAssertionsSigned: true,
      wantAuthnResponseSigned: false,
      signatureAlgorithm: 'sha256',
      digestAlgorithm: 'sha256',
      acceptedClockSkewMs: SAML_CLOCK_SKEW_MS,
      validateInResponseTo: ValidateInResponseTo.always,
      requestIdExpirationPeriodMs: SAML_REQUEST_TTL_MS,
      cacheProvider: flowCache(null),
      identifierFormat: null,
      disableRequestedAuthnContext: true,
      ...(requestId ? { generateUniqueId: () => requestId } : {}),
      // Single logout (saml-logout.ts): ours published in the metadata (HTTP-POST), the IdP's from its metadata.
      logoutCallbackUrl: ep.sloUrl,
      ...(config.idp_slo_url ? { logoutUrl: config.idp_slo_url } : {}),
      // The SP keypair: AuthnRequests signed (RSA-SHA256, the signatureAlgorithm above) and encrypted assertions decrypted.
      ...(config.sp_private_key_pem ? { privateKey: config.sp_private_key_pem, decryptionPvk: config.sp_private_key_pem } : {}),
      ...overrides,
    });
  }

  /** The keypair a PUT asks for: generated, supplied (checked), removed (null), or the stored one kept (absent or ••••). */
  async function spKeypair(input: Parameters<SamlService['configure']>[0], previous: SamlConfig | null): Promise<Result<{ privateKeyPem: string; certPem: string } | null>> {
    // The schema checks only the shape of public_url: one URL cannot parse (`http://[::1`) still saves, its certificate named by the raw string.
    const host = URL.canParse(input.public_url) ? new URL(input.public_url).host : input.public_url;
    if (input.generate_sp_key) return ok(await generateSpKeypair(`Capstan SAML SP ${host}`, clock.now()));
    if (input.sp_private_key_pem === null) return ok(null);
    if (input.sp_private_key_pem !== undefined && input.sp_private_key_pem !== MASKED_SECRET) return checkSpKeypair(input.sp_private_key_pem, input.sp_cert_pem ?? '');
    if (!previous?.sp_private_key_pem || !previous.sp_cert_pem) {
      // Nothing to keep: fine when nothing was asked of it.
      if (input.sp_private_key_pem === undefined && input.sp_cert_pem === undefined) return ok(null);
      return fail({ code: 'invalid_input', field: 'sp_private_key_pem', message: 'no SP key is stored to keep: send a PEM key or generate_sp_key' });
    }
    // A new certificate for the kept key (renewal) must still be this key's.
    return checkSpKeypair(previous.sp_private_key_pem, input.sp_cert_pem ?? previous.sp_cert_pem);
  }

  async function stored(): Promise<StoredSaml | null> {
    const row = await db.selectFrom('sso_providers').selectAll().where('provider', '=', 'saml').executeTakeFirst();
    if (!row) return null;
    return { enabled: row.enabled === 1, config: v.parse(SamlConfig, JSON.parse(secrets.open(row.config_sealed))), updatedAt: new Date(row.updated_at) };
  }

  return {
    ...createSamlLogout({ db, clock, log, endpoints, saml: samlFor }),
    stored,
    endpoints,

    async configure(input) {
      let idp: { ssoUrl: string; entityId: string | null; certPem: string; sloUrl: string | null };
      if (input.idp_metadata_xml !== undefined) {
        const parsed = parseIdpMetadata(input.idp_metadata_xml);
        if (!parsed.ok) return parsed;
        idp = parsed.value;
      } else {
        idp = { ssoUrl: input.idp_sso_url ?? '', entityId: input.idp_entity_id ?? null, certPem: input.idp_cert_pem ?? '', sloUrl: input.idp_slo_url ?? null };
      }
      const previous = (await stored())?.config ?? null;
      const keypair = await spKeypair(input, previous);
      if (!keypair.ok) return keypair;
      const config = v.safeParse(SamlConfig, {
        public_url: input.public_url.replace(/\/$/, ''),
        idp_sso_url: idp.ssoUrl,
        idp_slo_url: idp.sloUrl,
        idp_entity_id: input.idp_entity_id ?? idp.entityId,
        idp_cert_pem: idp.certPem,
        email_attribute: input.email_attribute,
        groups_attribute: input.groups_attribute,
        sp_private_key_pem: keypair.value?.privateKeyPem ?? null,
        sp_cert_pem: keypair.value?.certPem ?? null,
        require_encrypted_assertions: input.require_encrypted_assertions ?? previous?.require_encrypted_assertions ?? true,
        trust_email: input.trust_email ?? previous?.trust_email ?? false,
      });
      if (!config.success) return fail({ code: 'invalid_input', field: 'idp_metadata_xml', message: config.issues[0].message });
      const row = { provider: 'saml' as const, enabled: 1, config_sealed: secrets.seal(JSON.stringify(config.output)), updated_at: now() };
      await db
        .insertInto('sso_providers')
        .values(row)
        .onConflict((oc) => oc.column('provider').doUpdateSet({ enabled: 1, config_sealed: row.config_sealed, updated_at: row.updated_at }))
        .execute();
      return ok({ enabled: true, config: config.output, updatedAt: new Date(row.updated_at) });
    },

    async disable() {
      const result = await db.updateTable('sso_providers').set({ enabled: 0, updated_at: now() }).where('provider', '=', 'saml').where('enabled', '=', 1).executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    metadata(config) {
      // With a keypair its certificate is published for signing (AuthnRequestsSigned="true") and encryption.
      return withRedirectLogout(samlFor(config).generateServiceProviderMetadata(config.sp_cert_pem, config.sp_cert_pem), endpoints(config).sloUrl);
    },

    async start(config, returnTo) {
      const requestId = `_${randomBytes(20).toString('hex')}`;
      const nonce = randomBytes(16).toString('base64url');
      // Bounded so the sealed flow fits a cookie (4 KiB) and the ACS's RelayState field.
      const carried = Buffer.byteLength(returnTo, 'utf8') <= MAX_FLOW_RETURN_BYTES ? returnTo : '/';
      const flow: Flow = { p: 'saml-flow', requestId, nonce, returnTo: carried, expiresAt: now() + SAML_REQUEST_TTL_MS };
      const sealed = secrets.seal(JSON.stringify(flow));
      // https: the flow rides in the browser's cookie and the RelayState is the short nonce
      // (within SAML bindings' 80 bytes). Plain HTTP: no cookie survives the IdP's cross-site
      // POST, so the sealed flow itself is the RelayState (bound to no browser: development).
      const cookie = samlFlowCookieRequired(config.public_url);
      const location = await samlFor(config, requestId).getAuthorizeUrlAsync(cookie ? nonce : sealed, undefined, {});
      return ok({ location, flowCookie: cookie ? sealed : null });
    },

    async consume(config, samlResponse, relayState, flowCookie) {
      let xml: string;
      try {
        xml = Buffer.from(samlResponse, 'base64').toString('utf8');
      } catch {
        return fail(refused('SAMLResponse is not base64'));
      }
      const algorithms = algorithmsIn(xml);
      if (!algorithms) return fail(refused('not XML'));
      // An IdP may sign only the assertion it encrypts, leaving nothing signed outside it (checked after decryption below).
      const outerUnsigned = algorithms.encrypted && algorithms.signature.length === 0;
      const refusal = (outerUnsigned ? null : algorithmRefusal(algorithms.signature, algorithms.digest)) ?? encryptionRefusal(algorithms.encryption);
      if (refusal) return fail(refused(refusal));
      if (config.sp_private_key_pem && config.require_encrypted_assertions && !algorithms.encrypted) return fail(refused('the assertion is not encrypted (an SP keypair is configured and require_encrypted_assertions is on)'));
      // Said plainly (the structure is no secret): the IdP still encrypts to a key that was removed.
      if (!config.sp_private_key_pem && algorithms.encrypted) return fail(refused('the assertion is encrypted but no SP keypair is configured (give the IdP the current metadata)'));
      // The sign-in this response may answer: the browser's flow cookie, whose nonce the
      // RelayState must carry (an https public URL, decided by configuration, never by how this
      // request arrived), or over plain HTTP the sealed RelayState itself.
      let flow: Flow | null;
      if (samlFlowCookieRequired(config.public_url)) {
        if (flowCookie === undefined || flowCookie === '') return fail(refused('this sign-in was not started in this browser (the flow cookie is missing or expired)'));
        flow = openFlow(flowCookie);
        if (!flow) return fail(refused('the flow cookie is not one this agent issued'));
        if (!sameString(flow.nonce, relayState ?? '')) return fail(refused('RelayState does not belong to the sign-in this browser started'));
      } else {
        flow = openFlow(relayState);
        if (!flow) return fail(refused('RelayState is missing or not ours'));
      }
      if (flow.expiresAt <= now()) return fail(refused('the sign-in took longer than 10 minutes; start again'));
      let profile: Profile | null;
      try {
        ({ profile } = await samlFor(config, undefined, { cacheProvider: flowCache(flow) }).validatePostResponseAsync({ SAMLResponse: samlResponse }));
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        log.warn('SAML response refused', { error: message });
        return fail(refused(algorithms.encrypted ? encryptedRefusalMessage(message) : message));
      }
      if (!profile) return fail(refused('no assertion'));
      // node-saml checked InResponseTo against the flow's request (and only it); held again here.
      const requestId = typeof profile.inResponseTo === 'string' ? profile.inResponseTo : '';
      if (!sameString(requestId, flow.requestId)) return fail(refused('the response does not answer the request this sign-in made'));
      // An encrypted assertion's signature was out of sight above: hold its algorithms to the same pin now.
      const inner = algorithms.encrypted ? algorithmsIn(profile.getAssertionXml?.() ?? '') : null;
      const innerRefusal = inner && algorithmRefusal(inner.signature, inner.digest);
      if (innerRefusal) return fail(refused(innerRefusal));
      const assertion = assertionIdentity(profile);
      if (!assertion) return fail(refused('the assertion has no ID'));
      // Against the system clock: node-saml judged the assertion's NotOnOrAfter by Date.now(),
      // so its memory must expire by the same clock.
      const verdict = replay.accept(assertion.id, assertion.expiresAt, Date.now());
      if (verdict === 'replayed') return fail(refused(`assertion ${assertion.id} was already used`));
      if (verdict === 'full') return fail({ code: 'not_ready', message: 'too many recent SAML sign-ins to remember; try again in a few minutes' });
      // Each request is answered once: a second response to it (or this one again) finds it answered.
      if (answered.has(requestId)) return fail(refused('InResponseTo is not valid (the request was already answered)'));
      markAnswered(requestId, flow.expiresAt);
      const attributes = (profile.attributes ?? {}) as Record<string, unknown>;
      return ok({
        identity: { provider: 'saml', subject: profile.nameID, email: samlEmail(attributes[config.email_attribute] ?? profile[config.email_attribute], profile.nameID), emailVerified: config.trust_email, groups: samlGroups(attributes[config.groups_attribute] ?? profile[config.groups_attribute]) },
        returnTo: flow.returnTo,
        session: { nameId: profile.nameID, nameIdFormat: typeof profile.nameIDFormat === 'string' ? profile.nameIDFormat : null, sessionIndex: typeof profile.sessionIndex === 'string' ? profile.sessionIndex : null },
      });
    },
  };
}
