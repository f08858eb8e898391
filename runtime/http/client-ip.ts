// The client address (spec §5 SSO item 7): the socket peer, unless that peer is a trusted
// proxy (security.trustedProxyCidrs), in which case X-Forwarded-For is walked from the
// right, past trusted proxies, to the first address that is not one.
import { isIP, type BlockList } from 'node:net';
import { listContains, parseCidrList } from '../access/cidr.ts';

/** Parses comma-separated CIDRs (or bare addresses); throws naming the bad entry. */
export function parseTrustedProxies(value: string): BlockList {
  const parsed = parseCidrList(value.split(','));
  if (!parsed.ok) throw new Error(`trusted proxy "${parsed.entry}" ${parsed.reason}`);
  return parsed.list;
}

/** `::ffff:10.0.0.1` (how Node reports IPv4 peers on dual-stack sockets) → `10.0.0.1`. */
export function normalizeAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped?.[1] ?? address;
}

/** Never throws. Returns the socket address or one of the X-Forwarded-For entries. */
export function resolveClientIp(socketAddress: string, forwardedFor: string | undefined, trusted: BlockList): string {
  let current = normalizeAddress(socketAddress);
  if (forwardedFor === undefined) return current;
  const hops = forwardedFor.split(',');
  for (let i = hops.length - 1; i >= 0 && listContains(trusted, current); i--) {
    const hop = normalizeAddress((hops[i] ?? '').trim());
    // A malformed hop ends the walk: the last address we could verify is the answer.
    if (isIP(hop) === 0) break;
    current = hop;
  }
  return current;
}
