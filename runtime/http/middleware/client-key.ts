// Whose budget a request from an address spends (rate limits, the anonymous allowance). An IPv6
// client is given a whole /64 (one subscriber's LAN, whose interface identifiers it may rotate
// at will), so rotating addresses inside it does not reach a fresh bucket; IPv4 stays per address.
import { isIPv4, isIPv6 } from 'node:net';

/** The rate-limit key of a client address: `a.b.c.d`, or `x:x:x:x::/64` (lower case, no leading zeros); anything else unchanged. */
export function clientRateKey(address: string): string {
  const bare = address.replace(/%.*$/, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped?.[1] !== undefined && isIPv4(mapped[1])) return mapped[1];
  if (isIPv4(bare) || !isIPv6(bare)) return address;
  const groups = expandIpv6(bare);
  return groups === null ? address : `${groups.slice(0, 4).map((g) => g.toString(16)).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (an embedded dotted IPv4 tail counts as two). */
function expandIpv6(address: string): number[] | null {
  const [head = '', tail, ...rest] = address.split('::');
  if (rest.length > 0) return null;
  const parse = (part: string): number[] | null => {
    if (part === '') return [];
    const out: number[] = [];
    for (const piece of part.split(':')) {
      if (piece.includes('.')) {
        const octets = piece.split('.').map(Number);
        const [a = 0, b = 0, c = 0, d = 0] = octets;
        out.push((a << 8) | b, (c << 8) | d);
      } else out.push(Number.parseInt(piece, 16));
    }
    return out.some((n) => !Number.isInteger(n) || n < 0 || n > 0xffff) ? null : out;
  };
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  if (left === null || right === null) return null;
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? missing !== 0 : missing < 1) return null;
  return [...left, ...new Array<number>(tail === undefined ? 0 : missing).fill(0), ...right];
}
