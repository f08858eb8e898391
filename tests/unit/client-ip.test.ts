import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { MIN_PROXY_SECRET_LENGTH, parseProxySecret, parseTrustedProxies, proxySecretMatches, resolveClientIp, resolveClientIpByHops, vouchedClientIp } from '../../runtime/http/client-ip.ts';

const proxies = parseTrustedProxies('10.0.0.0/8, 192.168.1.1, fd00::/8');
const none = parseTrustedProxies('');

describe('client IP resolution', () => {
  it('uses the socket address and ignores X-Forwarded-For when nothing is trusted', () => {
    assert.equal(resolveClientIp('203.0.113.9', '198.51.100.1', none), '203.0.113.9');
  });

  it('ignores X-Forwarded-For from an untrusted peer', () => {
    assert.equal(resolveClientIp('203.0.113.9', '198.51.100.1', proxies), '203.0.113.9');
  });

  it('walks past trusted proxies from the right to the first untrusted address', () => {
    assert.equal(resolveClientIp('10.1.2.3', '198.51.100.1', proxies), '198.51.100.1');
    assert.equal(resolveClientIp('10.1.2.3', '6.6.6.6, 198.51.100.1, 192.168.1.1', proxies), '198.51.100.1', 'a client cannot spoof past the first untrusted hop');
    assert.equal(resolveClientIp('::ffff:10.1.2.3', '198.51.100.1', proxies), '198.51.100.1');
    assert.equal(resolveClientIp('fd00::1', '2001:db8::7', proxies), '2001:db8::7');
  });

  it('stops at a malformed hop and keeps the last address it could verify', () => {
    assert.equal(resolveClientIp('10.1.2.3', 'not-an-ip', proxies), '10.1.2.3');
    assert.equal(resolveClientIp('10.1.2.3', '198.51.100.1, garbage, 10.9.9.9', proxies), '10.9.9.9');
  });

  it('rejects bad trusted-proxy settings naming the entry', () => {
    assert.throws(() => parseTrustedProxies('10.0.0.0/8, nonsense'), /"nonsense"/);
    assert.throws(() => parseTrustedProxies('10.0.0.0/33'), /prefix length/);
  });

  it('never throws and only ever answers the socket address or a forwarded hop (100,000 inputs)', () => {
    const address = fc.oneof(fc.ipV4(), fc.ipV6(), fc.string(), fc.constantFrom('10.0.0.1', '192.168.1.1', 'fd00::5'));
    fc.assert(
      fc.property(address, fc.option(fc.array(address, { maxLength: 6 }).map((a) => a.join(', ')), { nil: undefined }), (socket, header) => {
        const ip = resolveClientIp(socket, header, proxies);
        const hops = (header ?? '').split(',').map((h) => h.trim().replace(/^::ffff:/i, ''));
        assert.ok(ip === socket.replace(/^::ffff:(?=\d+\.)/i, '') || hops.includes(ip), `invented ${ip}`);
        if (!socket.startsWith('10.') && socket !== '192.168.1.1' && !socket.toLowerCase().startsWith('fd')) assert.equal(ip, socket.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, ''));
      }),
      { numRuns: 100_000 },
    );
  });
});

describe('the dashboard vouching for the client address (CAPSTAN_UI_PROXY_SECRET)', () => {
  const SECRET = 's'.repeat(MIN_PROXY_SECRET_LENGTH);
  const cases: [string, string | null, string | undefined, string | undefined, string | null][] = [
    ['the right secret and an address', SECRET, SECRET, '198.51.100.7', '198.51.100.7'],
    ['an IPv4-mapped address, normalised', SECRET, SECRET, '::ffff:198.51.100.7', '198.51.100.7'],
    ['an IPv6 address', SECRET, SECRET, '2001:db8::7', '2001:db8::7'],
    ['no secret configured on the agent', null, SECRET, '198.51.100.7', null],
    ['no secret sent', SECRET, undefined, '198.51.100.7', null],
    ['an empty secret sent', SECRET, '', '198.51.100.7', null],
    ['a wrong secret of the same length', SECRET, 't'.repeat(MIN_PROXY_SECRET_LENGTH), '198.51.100.7', null],
    ['the secret with a byte more', SECRET, `${SECRET}s`, '198.51.100.7', null],
    ['a prefix of the secret', SECRET, SECRET.slice(1), '198.51.100.7', null],
    ['the right secret, no address', SECRET, SECRET, undefined, null],
    ['the right secret, a list of addresses', SECRET, SECRET, '198.51.100.7, 10.0.0.1', null],
    ['the right secret, not an address', SECRET, SECRET, 'evil.example', null],
  ];
  for (const [what, configured, sent, claimed, expected] of cases) {
    it(what, () => assert.equal(vouchedClientIp(configured, sent, claimed), expected));
  }

  it('compares the secret in constant time over digests and refuses short secrets at start', () => {
    assert.equal(proxySecretMatches(SECRET, SECRET), true);
    assert.equal(proxySecretMatches(SECRET, undefined), false);
    assert.equal(parseProxySecret(''), null);
    assert.equal(parseProxySecret(undefined), null);
    assert.equal(parseProxySecret(` ${SECRET} `), SECRET);
    assert.throws(() => parseProxySecret('short'), /CAPSTAN_UI_PROXY_SECRET must be at least 32 characters/);
  });
});

describe('client address by proxy hop count (the dashboard behind an ingress, no trusted list)', () => {
  const cases: [string, string, string | undefined, number, string][] = [
    ['no hops: the socket', '10.1.1.1', '198.51.100.1', 0, '10.1.1.1'],
    ['one hop appending its peer', '10.1.1.1', '198.51.100.1', 1, '198.51.100.1'],
    ['one hop: what the client claimed to its left is ignored', '10.1.1.1', '6.6.6.6, 198.51.100.1', 1, '198.51.100.1'],
    ['GKE: client then load balancer', '35.191.0.9', '6.6.6.6, 198.51.100.1, 34.120.0.1', 2, '198.51.100.1'],
    ['fewer entries than hops: did not come through them', '10.1.1.1', '198.51.100.1', 2, '10.1.1.1'],
    ['no header at all', '10.1.1.1', undefined, 1, '10.1.1.1'],
    ['a malformed entry', '10.1.1.1', 'garbage', 1, '10.1.1.1'],
    ['IPv4-mapped socket', '::ffff:10.1.1.1', undefined, 1, '10.1.1.1'],
    ['Application Gateway: address and port', '10.1.1.1', '198.51.100.1:51234', 1, '198.51.100.1'],
    ['a bracketed IPv6 address with a port', '10.1.1.1', '[2001:db8::7]:443', 1, '2001:db8::7'],
    ['a port on something that is no address', '10.1.1.1', 'evil:80', 1, '10.1.1.1'],
  ];
  for (const [what, socket, header, hops, expected] of cases) {
    it(what, () => assert.equal(resolveClientIpByHops(socket, header, hops), expected));
  }
});
