// The client address (spec §5 SSO item 7): the socket peer, unless that peer is a trusted
// proxy (security.trustedProxyCidrs), in which case X-Forwarded-For is walked from the
// right, past trusted proxies, to the first address that is not one.
import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP, type BlockList } from 'node:net';
import { listContains, parseCidrList } from '../ip-guard/cidr.ts';

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

/**
 * Behind `capstan ui` (the dashboard's proxy), the client address the dashboard saw, vouched for
 * by the per-install secret both pods share (CAPSTAN_UI_PROXY_SECRET, the chart's Secret
 * capstan-ui-proxy). The agent believes CLIENT_IP_HEADER only beside the right secret, so it
 * needs no trusted-proxy list for its own dashboard, and nobody else can name an address.
 */
export const CLIENT_IP_HEADER = 'x-capstan-client-ip';
export const PROXY_SECRET_HEADER = 'x-capstan-proxy-secret';

/** Shortest CAPSTAN_UI_PROXY_SECRET either side accepts (the chart seeds 48 random characters). */
export const MIN_PROXY_SECRET_LENGTH = 32;

/** Throws unless the secret is long enough to stand for the dashboard; empty or absent: none. */
export function parseProxySecret(value: string | undefined, name = 'CAPSTAN_UI_PROXY_SECRET'): string | null {
  const secret = value?.trim() ?? '';
  if (secret === '') return null;
  if (secret.length < MIN_PROXY_SECRET_LENGTH) throw new Error(`${name} must be at least ${String(MIN_PROXY_SECRET_LENGTH)} characters`);
  return secret;
}

/** Constant-time over SHA-256 digests, so neither the secret's length nor a matching prefix shows in the timing. */
export function proxySecretMatches(expected: string, presented: string | undefined): boolean {
  if (presented === undefined) return false;
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(expected), digest(presented));
}

/** The vouched-for client address, or null (no secret configured, a wrong or missing one, or no valid address). */
export function vouchedClientIp(secret: string | null, presentedSecret: string | undefined, claimed: string | undefined): string | null {
  if (secret === null || !proxySecretMatches(secret, presentedSecret)) return null;
  const address = normalizeAddress((claimed ?? '').trim());
  return isIP(address) === 0 ? null : address;
}

/**
 * The dashboard's own view of its client when it trusts no proxy list but knows how many
 * proxies in front of it append to X-Forwarded-For (the chart's CAPSTAN_UI_FORWARDED_HOPS: 1
 * behind an ingress controller that appends its peer, 2 behind GKE's load balancer, which
 * appends the client and then its own address). The entry that many places from the right is
 * the one the outermost of those proxies wrote; anything to its left is the client's own claim.
 * Fewer entries than hops (a request that did not come through them) or a malformed entry:
 * the socket address.
 */
export function resolveClientIpByHops(socketAddress: string, forwardedFor: string | undefined, hops: number): string {
  const peer = normalizeAddress(socketAddress);
  if (hops < 1 || forwardedFor === undefined) return peer;
  const entries = forwardedFor.split(',');
  const entry = entries[entries.length - hops];
  if (entries.length < hops || entry === undefined) return peer;
  const address = normalizeAddress(withoutPort(entry.trim()));
  return isIP(address) === 0 ? peer : address;
}

/** Azure's Application Gateway appends `address:port`: `203.0.113.9:51234` → `203.0.113.9`, `[2001:db8::7]:443` → `2001:db8::7`. */
function withoutPort(entry: string): string {
  const v4 = /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(entry);
  if (v4?.[1] !== undefined) return v4[1];
  const v6 = /^\[([0-9A-Fa-f:.]+)\](?::\d+)?$/.exec(entry);
  return v6?.[1] ?? entry;
}
