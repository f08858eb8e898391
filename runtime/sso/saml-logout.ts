// SAML single logout (issue 17 item 6, docs/sso.md "Single logout") on @node-saml/node-saml:
// the SP's SingleLogoutService takes the HTTP-POST binding (an enveloped XML signature over the
// whole message, verified by node-saml through xml-crypto) and the HTTP-Redirect binding (a
// signature over the query string's exact bytes, SigAlg and Signature). On top of node-saml,
// because it is lenient where this must not be: a message without a signature is refused
// before node-saml sees it (its redirect-binding validator accepts unsigned messages, and its
// POST validator reports an unsigned LogoutResponse only as "no response found"), RSA-SHA256
// and SHA-256 are pinned, a LogoutResponse must answer a
// LogoutRequest of ours (node-saml checks InResponseTo only on sign-in responses), come from
// the configured IdP, to this SP, with status Success, and each LogoutRequest ID is accepted
// once. What leaves (LogoutRequest, LogoutResponse) goes by the HTTP-Redirect binding, signed
// with the SP key by node-saml when a keypair is configured.
import { randomBytes } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import type { Clock } from '../../domain/clock.ts';
import { algorithmRefusal, ReplayMemory, SAML_CLOCK_SKEW_MS, SAML_REQUEST_TTL_MS } from '../../domain/sso/saml.ts';
import { fail, ok, type AppError } from '../../handlers/result.ts';
import type { SamlEndpoints, SamlLogoutService, SamlRedirectSignature as RedirectSignature } from '../../handlers/sso/saml-service.ts';
import type { SamlConfig } from '../../schema/sso.ts';
import type { Db } from '../store/database.ts';
import type { Logger } from '../log.ts';
import { childElements, parseXmlStrict, type XmlElement as Element } from './saml-xml.ts';

interface LogoutProfile {
  ID?: unknown;
  nameID?: unknown;
  nameIDFormat?: unknown;
  sessionIndex?: unknown;
}

/** The logout half of node-saml's SAML class (typed here, as runtime/sso/saml.ts types the rest). */
export interface LogoutSaml {
  getLogoutUrlAsync(user: { nameID: string; nameIDFormat: string; sessionIndex?: string }, relayState: string, options: object): Promise<string>;
  getLogoutResponseUrlAsync(request: { ID: string }, relayState: string, options: object, success: boolean): Promise<string>;
  validatePostRequestAsync(container: Record<string, string>): Promise<{ profile: LogoutProfile | null; loggedOut: boolean }>;
  validatePostResponseAsync(container: Record<string, string>): Promise<{ loggedOut: boolean }>;
  validateRedirectAsync(container: Record<string, string>, originalQuery: string): Promise<{ profile: LogoutProfile | null; loggedOut: boolean }>;
}

const PROTOCOL = 'urn:oasis:names:tc:SAML:2.0:protocol';
const ASSERTION = 'urn:oasis:names:tc:SAML:2.0:assertion';
const DSIG = 'http://www.w3.org/2000/09/xmldsig#';
const SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';
const UNSPECIFIED = 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified';
/** Outstanding LogoutRequests kept at most; past it, sign-out still ends the Capstan session but skips the IdP. */
const MAX_PENDING = 10_000;
/** LogoutRequest IDs remembered at most (each until its IssueInstant is too old to be accepted). */
const MAX_REPLAY = 100_000;

/** The largest inflated redirect-binding message accepted (the POST binding's body limit is 192 KiB). */
const MAX_INFLATED = 192 * 1024;

const refused = (message: string): AppError => ({ code: 'unauthenticated', message: `SAML logout message refused: ${message}` });

/** The message's root element and its direct children, from XML node-saml has verified as signed over the root. */
function parse(xml: string): { root: Element; child(ns: string, name: string): Element | undefined; signed: boolean; signature: string[]; digest: string[] } | null {
  try {
    const doc = parseXmlStrict(xml);
    const root = doc.documentElement;
    if (!root) return null;
    const children = childElements(root);
    const attr = (name: string) => Array.from(doc.getElementsByTagNameNS(DSIG, name)).map((e) => e.getAttribute('Algorithm') ?? '');
    return {
      root,
      child: (ns, name) => children.find((c) => c.namespaceURI === ns && c.localName === name),
      // The enveloped signature is a direct child of the message (one on an inner element signs only that).
      signed: children.some((c) => c.namespaceURI === DSIG && c.localName === 'Signature'),
      signature: attr('SignatureMethod'),
      digest: attr('DigestMethod'),
    };
  } catch {
    return null;
  }
}

/** What node-saml's redirect validator reads: the message and its signature parameters (present: checked above). */
function redirectContainer(field: 'SAMLRequest' | 'SAMLResponse', value: string, r: RedirectSignature): Record<string, string> {
  return { [field]: value, SigAlg: r.sigAlg ?? '', Signature: r.signature ?? '', ...(r.relayState !== undefined ? { RelayState: r.relayState } : {}) };
}

export interface SamlLogoutDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  endpoints(config: SamlConfig): SamlEndpoints;
  /** node-saml for this configuration (the SP key signs what it sends); `requestId` fixes the ID of the message it generates. */
  saml(config: SamlConfig, requestId?: string, overrides?: Readonly<Record<string, unknown>>): LogoutSaml;
}

export function createSamlLogout(deps: SamlLogoutDeps): SamlLogoutService {
  const { db, log } = deps;
  const now = () => deps.clock.now().getTime();
  const pending = new Map<string, { returnTo: string; expiresAt: number }>();
  const replay = new ReplayMemory(MAX_REPLAY);

  /**
   * Decodes (the redirect binding's is deflated), refuses unsigned and weakly signed messages,
   * and checks the envelope common to both kinds.
   */
  function envelope(config: SamlConfig, base64: string, kind: 'LogoutRequest' | 'LogoutResponse', redirect: RedirectSignature | undefined) {
    let xml: string;
    try {
      // Inflated at most to the POST binding's own limit: a small deflated body cannot balloon.
      xml = redirect ? inflateRawSync(Buffer.from(base64, 'base64'), { maxOutputLength: MAX_INFLATED }).toString('utf8') : Buffer.from(base64, 'base64').toString('utf8');
    } catch {
      return fail(refused('not a deflated message (redirect binding)'));
    }
    const msg = parse(xml);
    if (!msg) return fail(refused('not XML'));
    if (msg.root.namespaceURI !== PROTOCOL || msg.root.localName !== kind) return fail(refused(`not a ${kind}`));
    if (redirect) {
      if (!redirect.signature || !redirect.sigAlg) return fail(refused(`the ${kind} is not signed (no Signature and SigAlg; unsigned logout messages are refused)`));
      const weak = algorithmRefusal([redirect.sigAlg], []);
      if (weak) return fail(refused(weak));
    } else {
      if (!msg.signed) return fail(refused(`the ${kind} is not signed (unsigned logout messages are refused)`));
      const weak = algorithmRefusal(msg.signature, msg.digest);
      if (weak) return fail(refused(weak));
    }
    const issuer = msg.child(ASSERTION, 'Issuer')?.textContent?.trim() ?? '';
    if (config.idp_entity_id && issuer !== config.idp_entity_id) return fail(refused(`issued by ${issuer || 'nobody'}, not the configured IdP`));
    const destination = msg.root.getAttribute('Destination');
    if (destination !== null && destination !== deps.endpoints(config).sloUrl) return fail(refused(`addressed to ${destination}, not this SP`));
    return ok({ msg });
  }

  return {
    async recordSession(sessionId, name) {
      await db.insertInto('saml_sessions').values({ session_id: sessionId, name_id: name.nameId, name_id_format: name.nameIdFormat, session_index: name.sessionIndex, created_at: now() }).execute();
    },

    async startLogout(config, sessionId, returnTo) {
      // Without the IdP's SingleLogoutService or an SP key (the IdP is owed a signed request) there is no IdP to tell.
      if (!config.idp_slo_url || !config.sp_private_key_pem) return null;
      const row = await db.selectFrom('saml_sessions').selectAll().where('session_id', '=', sessionId).executeTakeFirst();
      if (!row) return null;
      const t = now();
      for (const [id, p] of pending) if (p.expiresAt <= t) pending.delete(id);
      if (pending.size >= MAX_PENDING) return null;
      const requestId = `_${randomBytes(20).toString('hex')}`;
      try {
        const location = await deps.saml(config, requestId).getLogoutUrlAsync({ nameID: row.name_id, nameIDFormat: row.name_id_format ?? UNSPECIFIED, ...(row.session_index ? { sessionIndex: row.session_index } : {}) }, '', {});
        pending.set(requestId, { returnTo, expiresAt: t + SAML_REQUEST_TTL_MS });
        return location;
      } catch (err) {
        // Signing out of Capstan must not depend on the IdP: log it and end locally.
        log.warn('SAML LogoutRequest not built', { error: err instanceof Error ? err.message : String(err) });
        return null;
      }
    },

    async acceptLogoutRequest(config, samlRequest, relayState, redirect) {
      const checked = envelope(config, samlRequest, 'LogoutRequest', redirect);
      if (!checked.ok) return checked;
      let profile: LogoutProfile | null;
      try {
        const saml = deps.saml(config);
        ({ profile } = redirect ? await saml.validateRedirectAsync(redirectContainer('SAMLRequest', samlRequest, redirect), redirect.rawQuery) : await saml.validatePostRequestAsync({ SAMLRequest: samlRequest }));
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        log.warn('SAML LogoutRequest refused', { error: message });
        return fail(refused(message));
      }
      const id = typeof profile?.ID === 'string' ? profile.ID : '';
      const nameId = typeof profile?.nameID === 'string' ? profile.nameID : '';
      if (!id || !nameId) return fail(refused('no ID or NameID'));
      // A LogoutRequest is fresh for as long as an AuthnRequest is answerable; replays inside that window are refused.
      // Against the system clock, as node-saml judged the message's own timestamps.
      const issued = Date.parse(checked.value.msg.root.getAttribute('IssueInstant') ?? '');
      const t = Date.now();
      if (!Number.isFinite(issued) || issued > t + SAML_CLOCK_SKEW_MS || issued < t - SAML_REQUEST_TTL_MS - SAML_CLOCK_SKEW_MS) return fail(refused('IssueInstant missing, in the future or too old'));
      const verdict = replay.accept(id, issued + SAML_REQUEST_TTL_MS + SAML_CLOCK_SKEW_MS, t);
      if (verdict === 'replayed') return fail(refused(`LogoutRequest ${id} was already used`));
      if (verdict === 'full') return fail({ code: 'not_ready', message: 'too many recent SAML logouts to remember; try again in a few minutes' });
      const sessionIndex = typeof profile?.sessionIndex === 'string' ? profile.sessionIndex : null;
      let query = db.selectFrom('saml_sessions').select('session_id').where('name_id', '=', nameId);
      // Without a SessionIndex the request ends every session of that NameID (SAML core 3.7.3.2).
      if (sessionIndex !== null) query = query.where('session_index', '=', sessionIndex);
      const sessions = (await query.execute()).map((r) => r.session_id);
      // The IdP's SingleLogoutService is where the answer goes; without one configured there is nowhere to answer.
      const location = config.idp_slo_url ? await deps.saml(config).getLogoutResponseUrlAsync({ ID: id }, relayState ?? '', {}, true) : null;
      return ok({ sessionIds: sessions, location, nameId });
    },

    async acceptLogoutResponse(config, samlResponse, redirect) {
      const checked = envelope(config, samlResponse, 'LogoutResponse', redirect);
      if (!checked.ok) return checked;
      try {
        // InResponseTo is checked below against our LogoutRequests: node-saml's own check reads
        // only a sign-in Response's and would call every LogoutResponse's missing.
        const saml = deps.saml(config, undefined, { validateInResponseTo: 'never' });
        if (redirect) await saml.validateRedirectAsync(redirectContainer('SAMLResponse', samlResponse, redirect), redirect.rawQuery);
        else await saml.validatePostResponseAsync({ SAMLResponse: samlResponse });
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        log.warn('SAML LogoutResponse refused', { error: message });
        return fail(refused(message));
      }
      const { msg } = checked.value;
      const inResponseTo = msg.root.getAttribute('InResponseTo') ?? '';
      const request = pending.get(inResponseTo);
      if (!request || request.expiresAt <= now()) return fail(refused('it answers no LogoutRequest of ours (InResponseTo missing, unknown or already answered)'));
      pending.delete(inResponseTo);
      const status = msg.child(PROTOCOL, 'Status');
      const code = status ? childElements(status).find((c) => c.localName === 'StatusCode')?.getAttribute('Value') : undefined;
      if (code !== SUCCESS) return fail(refused(`the IdP did not end its session (status ${code ?? 'missing'})`));
      return ok({ returnTo: request.returnTo });
    },
  };
}

