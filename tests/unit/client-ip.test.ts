import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseTrustedProxies, resolveClientIp } from '../../runtime/http/client-ip.ts';

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
