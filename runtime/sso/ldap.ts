// LDAP template direct bind with ldapts (spec §5 "SSO" 1): the user's own DN from the template,
// bound with the user's own password over TLS (ldaps:// or StartTLS; plaintext never), then the
// user's entry and groups read bound as that user. No service account exists to store or leak.
import type { ConnectionOptions } from 'node:tls';
import { Client, InvalidCredentialsError, InvalidDNSyntaxError, NoSuchObjectError } from 'ldapts';
import { bindDnFor, groupFilterFor } from '../../domain/sso/ldap-escape.ts';
import type { LdapDirectory, LdapIdentity } from '../../handlers/sso/service.ts';
import { fail, ok, type AppError, type Result } from '../../handlers/result.ts';
import type { LdapConfig } from '../../schema/sso.ts';
import type { Logger } from '../log.ts';

/** Every directory operation is bounded: a slow or silent directory costs a sign-in at most this. */
export const LDAP_TIMEOUT_MS = 5000;
/** Groups read per sign-in (sizeLimit of the group search). */
const GROUP_LIMIT = 500;

const wrong: AppError = { code: 'unauthenticated', message: 'wrong username or password' };

function tlsOptions(config: LdapConfig, host: string): ConnectionOptions {
  return {
    ...(config.ca_pem ? { ca: [config.ca_pem] } : {}),
    // Development only (the admin view warns): any certificate is accepted.
    rejectUnauthorized: !config.insecure_skip_verify,
    // SNI takes names only; an address is checked against the certificate's IP SANs without it.
    ...(/^[\d.]+$|:/.test(host) ? {} : { servername: host }),
    minVersion: 'TLSv1.2',
  };
}

const text = (value: unknown): string | null => {
  const first: unknown = Array.isArray(value) ? (value as unknown[])[0] : value;
  if (typeof first === 'string') return first;
  if (Buffer.isBuffer(first)) return first.toString('utf8');
  return null;
};

export function createLdapDirectory(log: Logger): LdapDirectory {
  // Said once per directory URL, not at every sign-in: enough to be seen in the log.
  const warnedInsecure = new Set<string>();
  return {
    async authenticate(config, username, password): Promise<Result<LdapIdentity>> {
      // An empty password is an unauthenticated bind (RFC 4513 §5.1.2), which directories
      // answer with success: refused here, before any connection is made.
      if (password === '' || username.trim() === '') return fail(wrong);
      // The schema refuses plaintext URLs; checked again where the connection is made.
      const secure = config.url.startsWith('ldaps://');
      if (!secure && !config.starttls) return fail({ code: 'invalid_input', field: 'url', message: 'plaintext LDAP is refused: use ldaps:// or StartTLS' });
      if (config.insecure_skip_verify && !warnedInsecure.has(config.url)) {
        warnedInsecure.add(config.url);
        log.warn('LDAP certificate verification is off (insecure_skip_verify): for development only', { url: config.url });
      }
      const host = new URL(config.url).hostname.replace(/^\[|\]$/g, '');
      const tls = tlsOptions(config, host);
      const client = new Client({ url: config.url, timeout: LDAP_TIMEOUT_MS, connectTimeout: LDAP_TIMEOUT_MS, ...(secure ? { tlsOptions: tls } : {}) });
      const dn = bindDnFor(config.bind_dn_template, username);
      try {
        // StartTLS first: the password never crosses the wire in the clear.
        if (!secure) await client.startTLS(tls);
        await client.bind(dn, password);
        const entry = await client.search(dn, { scope: 'base', filter: '(objectClass=*)', attributes: [config.email_attribute, 'entryUUID'], sizeLimit: 1, timeLimit: 5 });
        const found = entry.searchEntries[0];
        // entryUUID (RFC 4530) survives renames; a directory without it falls back to the DN.
        const subject = text(found?.entryUUID) ?? dn.toLowerCase();
        const email = found ? text(found[config.email_attribute]) : null;
        let groups: string[] = [];
        if (config.group_base_dn !== null) {
          const result = await client.search(config.group_base_dn, {
            scope: 'sub',
            filter: groupFilterFor(config.group_object_class, config.group_member_attribute, dn),
            attributes: [config.group_name_attribute],
            sizeLimit: GROUP_LIMIT,
            timeLimit: 5,
          });
          groups = result.searchEntries.map((e) => text(e[config.group_name_attribute])).filter((g): g is string => g !== null);
        }
        return ok({ dn, subject, email, groups: [...new Set(groups)].sort() });
      } catch (err) {
        if (err instanceof InvalidCredentialsError || err instanceof NoSuchObjectError || err instanceof InvalidDNSyntaxError) return fail(wrong);
        const message = err instanceof Error ? err.message : String(err);
        log.warn('LDAP sign-in failed at the directory', { url: config.url, error: message });
        return fail({ code: 'not_ready', message: `the directory could not be used: ${message}` });
      } finally {
        await client.unbind().catch(() => undefined);
      }
    },
  };
}
