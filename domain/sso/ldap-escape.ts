// Escaping what a user types before it goes into an LDAP DN or search filter, so a username
// can never add an RDN, change the base or widen a filter (LDAP injection).

const hex = (c: string) => '\\' + c.charCodeAt(0).toString(16).padStart(2, '0');

/**
 * An attribute value inside a DN (RFC 4514 §2.4): `"` `+` `,` `;` `<` `>` `\` (and `=`, which
 * the RFC allows) escaped anywhere, a leading space or `#` and a trailing space escaped, NUL as
 * \00. Other characters (UTF-8 included) stand as they are, as the RFC allows.
 */
export function escapeDnValue(value: string): string {
  // One pass, so an escape added for one rule is never looked at by another.
  return value.replace(/[\0"+,;<>\\=]|^[ #]| $/g, (c) => (c === '\0' ? '\\00' : '\\' + c));
}

/** An assertion value inside a search filter (RFC 4515 §3): `*` `(` `)` `\` NUL as \2a \28 \29 \5c \00. */
export function escapeFilterValue(value: string): string {
  return value.replace(/[*()\\\0]/g, hex);
}

/** The user's own DN from the configured template, the username escaped (the template holds `{username}` once: schema/sso.ts). */
export function bindDnFor(template: string, username: string): string {
  return template.replace('{username}', () => escapeDnValue(username));
}

/** `(&(objectClass=<class>)(<member attr>=<dn>))` with the DN escaped as a filter value. */
export function groupFilterFor(objectClass: string, memberAttribute: string, userDn: string): string {
  return `(&(objectClass=${escapeFilterValue(objectClass)})(${memberAttribute}=${escapeFilterValue(userDn)}))`;
}
