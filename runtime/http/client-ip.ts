// The client address (spec §5 SSO item 7): the socket peer, unless that peer is a trusted
// proxy (security.trustedProxyCidrs), in which case X-Forwarded-For is walked from the
// right, past trusted proxies, to the first address that is not one.
import { BlockList, isIP } from 'node:net';

/** Parses comma-separated CIDRs (or bare addresses); throws naming the bad entry. */
export function parseTrustedProxies(value: string): BlockList {
  const list = new BlockList();
  for (const raw of value.split(',').map((s) => s.trim()).filter((s) => s !== '')) {
    const [address = '', bits] = raw.split('/');
    const family = isIP(address);
    if (family === 0) throw new Error(`trusted proxy "${raw}" is not an IP address or CIDR`);
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (bits === undefined) {
      list.addAddress(address, type);
      continue;
    }
    const prefix = Number(bits);
    if (!/^\d+$/.test(bits) || prefix > (family === 4 ? 32 : 128)) throw new Error(`trusted proxy "${raw}" has an invalid prefix length`);
    list.addSubnet(address, prefix, type);
  }
  return list;
}

/** `::ffff:10.0.0.1` (how Node reports IPv4 peers on dual-stack sockets) → `10.0.0.1`. */
export function normalizeAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped?.[1] ?? address;
}

function isTrusted(list: BlockList, address: string): boolean {
  const family = isIP(address);
  return family !== 0 && list.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Never throws. Returns the socket address or one of the X-Forwarded-For entries. */
export function resolveClientIp(socketAddress: string, forwardedFor: string | undefined, trusted: BlockList): string {
  let current = normalizeAddress(socketAddress);
  if (forwardedFor === undefined) return current;
  const hops = forwardedFor.split(',');
  for (let i = hops.length - 1; i >= 0 && isTrusted(trusted, current); i--) {
    const hop = normalizeAddress((hops[i] ?? '').trim());
    // A malformed hop ends the walk: the last address we could verify is the answer.
    if (isIP(hop) === 0) break;
    current = hop;
  }
  return current;
}
