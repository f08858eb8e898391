// LDAP injection: what a user types is escaped for a DN (RFC 4514) and a filter (RFC 4515).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bindDnFor, escapeDnValue, escapeFilterValue, groupFilterFor } from '../../domain/sso/ldap-escape.ts';

describe('escapeDnValue (RFC 4514 §2.4)', () => {
  const cases: [string, string, string][] = [
    ['plain name', 'alice', 'alice'],
    ['dots, dashes, digits', 'a.b-c_9', 'a.b-c_9'],
    ['comma would add an RDN', 'alice,ou=admins', 'alice\\,ou\\=admins'],
    ['plus would make a multi-valued RDN', 'a+cn=x', 'a\\+cn\\=x'],
    ['quote, semicolon, angle brackets', '"a;<b>"', '\\"a\\;\\<b\\>\\"'],
    ['backslash escaped once', 'a\\2cb', 'a\\\\2cb'],
    ['leading #', '#hex', '\\#hex'],
    ['# elsewhere stays', 'a#b', 'a#b'],
    ['leading space', ' a', '\\ a'],
    ['trailing space', 'a ', 'a\\ '],
    ['single space escaped once', ' ', '\\ '],
    ['inner space stays', 'a b', 'a b'],
    ['NUL', 'a\0b', 'a\\00b'],
    ['UTF-8 stands', 'zoë', 'zoë'],
  ];
  for (const [name, input, expected] of cases) it(name, () => assert.equal(escapeDnValue(input), expected));
});

describe('escapeFilterValue (RFC 4515 §3)', () => {
  const cases: [string, string, string][] = [
    ['plain', 'alice', 'alice'],
    ['wildcard', '*', '\\2a'],
    ['closing a filter early', 'x)(uid=*', 'x\\29\\28uid=\\2a'],
    ['backslash', 'a\\b', 'a\\5cb'],
    ['NUL', 'a\0', 'a\\00'],
    ['DN text stands except the specials', 'uid=a\\,b,ou=people', 'uid=a\\5c,b,ou=people'],
  ];
  for (const [name, input, expected] of cases) it(name, () => assert.equal(escapeFilterValue(input), expected));
});

describe('bindDnFor and groupFilterFor', () => {
  const template = 'uid={username},ou=people,dc=example,dc=com';
  const cases: [string, string, string][] = [
    ['the template filled in', 'alice', 'uid=alice,ou=people,dc=example,dc=com'],
    ['an injected RDN stays inside the value', 'x,ou=admins', 'uid=x\\,ou\\=admins,ou=people,dc=example,dc=com'],
    ['$& and $1 are not replacement patterns', '$&$1', 'uid=$&$1,ou=people,dc=example,dc=com'],
  ];
  for (const [name, input, expected] of cases) it(name, () => assert.equal(bindDnFor(template, input), expected));

  it('a DN with escapes becomes a filter value whose parentheses and backslashes are escaped', () => {
    assert.equal(groupFilterFor('groupOfNames', 'member', 'uid=a\\)(x,ou=p'), '(&(objectClass=groupOfNames)(member=uid=a\\5c\\29\\28x,ou=p))');
  });
});
