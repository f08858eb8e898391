// The pure SAML rules (domain/sso/saml.ts): the algorithm pin, the return path, the bounded
// memory of assertion IDs, and how email and groups are read from attributes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { algorithmRefusal, ReplayMemory, RSA_SHA256, SHA256, sameOriginPath, samlEmail, samlGroups } from '../../domain/sso/saml.ts';

const RSA_SHA1 = 'http://www.w3.org/2000/09/xmldsig#rsa-sha1';
const SHA1 = 'http://www.w3.org/2000/09/xmldsig#sha1';

describe('algorithmRefusal', () => {
  const cases: [string, string[], string[], RegExp | null][] = [
    ['RSA-SHA256 with SHA-256 digests', [RSA_SHA256], [SHA256], null],
    ['two signatures, both SHA-256', [RSA_SHA256, RSA_SHA256], [SHA256, SHA256], null],
    ['RSA-SHA1', [RSA_SHA1], [SHA256], /rsa-sha1 is refused/],
    ['one SHA-1 signature beside a SHA-256 one', [RSA_SHA256, RSA_SHA1], [SHA256, SHA256], /rsa-sha1 is refused/],
    ['a SHA-1 digest', [RSA_SHA256], [SHA1], /sha1 is refused/],
    ['RSA-SHA512 (not pinned)', ['http://www.w3.org/2001/04/xmldsig-more#rsa-sha512'], [SHA256], /rsa-sha512 is refused/],
    ['no signature at all', [], [], /no signature/],
  ];
  for (const [name, sigs, digests, expected] of cases) {
    it(name, () => {
      const verdict = algorithmRefusal(sigs, digests);
      if (expected === null) assert.equal(verdict, null);
      else assert.match(verdict ?? '', expected);
    });
  }
});

describe('sameOriginPath', () => {
  const cases: [string | undefined, string][] = [
    [undefined, '/'],
    ['', '/'],
    ['/workloads?ns=default#x', '/workloads?ns=default#x'],
    ['//evil.example/x', '/'],
    ['/\\evil.example', '/'],
    ['https://evil.example/', '/'],
    ['javascript:alert(1)', '/'],
    ['/ok\n/evil', '/'],
    ['/a\tb', '/'],
    ['relative/path', '/'],
  ];
  for (const [input, expected] of cases) it(JSON.stringify(input), () => assert.equal(sameOriginPath(input), expected));
});

describe('ReplayMemory', () => {
  it('accepts an ID once while its assertion could still be accepted, and again only after it expired', () => {
    const m = new ReplayMemory(10);
    assert.equal(m.accept('a', 1000, 0), 'accepted');
    assert.equal(m.accept('a', 1000, 999), 'replayed');
    assert.equal(m.accept('a', 2000, 1000), 'accepted', 'expired: the assertion itself would be refused by its time window anyway');
  });
  it('is bounded: pruned of expired IDs when full, and refuses rather than forgets a live one', () => {
    const m = new ReplayMemory(2);
    assert.equal(m.accept('a', 100, 0), 'accepted');
    assert.equal(m.accept('b', 500, 0), 'accepted');
    assert.equal(m.accept('c', 500, 50), 'full');
    assert.equal(m.size, 2);
    assert.equal(m.accept('c', 500, 100), 'accepted', 'a expired at 100 and was pruned');
    assert.equal(m.size, 2);
    assert.equal(m.accept('b', 500, 100), 'replayed', 'b was not forgotten');
  });
});

describe('samlEmail and samlGroups', () => {
  it('reads the email attribute, else a NameID that is an email', () => {
    assert.equal(samlEmail(['a@example.com'], 'x'), 'a@example.com');
    assert.equal(samlEmail('a@example.com', 'x'), 'a@example.com');
    assert.equal(samlEmail(undefined, 'b@example.com'), 'b@example.com');
    assert.equal(samlEmail(undefined, 'opaque-id'), null);
    assert.equal(samlEmail(['not an email'], 'opaque-id'), null);
  });
  it('reads one group or many, strings only, deduplicated and sorted', () => {
    assert.deepEqual(samlGroups(undefined), []);
    assert.deepEqual(samlGroups('ops'), ['ops']);
    assert.deepEqual(samlGroups(['b', 'a', 'b', '', 3]), ['a', 'b']);
  });
});
