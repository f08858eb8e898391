// Address lists (trusted proxies, the IP allow- and denylist): CIDRs or bare addresses, v4 or v6.
import { BlockList, isIP } from 'node:net';
import type { AddressLists } from '../../handlers/ip-guard/service.ts';

export type CidrListParse = { ok: true; list: BlockList } | { ok: false; entry: string; reason: string };

export function parseCidrList(entries: readonly string[]): CidrListParse {
  const list = new BlockList();
  for (const raw of entries.map((s) => s.trim()).filter((s) => s !== '')) {
    const [address = '', bits, extra] = raw.split('/');
    const family = isIP(address);
    if (family === 0 || extra !== undefined) return { ok: false, entry: raw, reason: 'is not an IP address or CIDR' };
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (bits === undefined) {
      list.addAddress(address, type);
      continue;
    }
    const prefix = Number(bits);
    if (!/^\d+$/.test(bits) || prefix > (family === 4 ? 32 : 128)) return { ok: false, entry: raw, reason: 'has an invalid prefix length' };
    list.addSubnet(address, prefix, type);
  }
  return { ok: true, list };
}

/** False for anything that is not an IP address (an unknown peer is never "in" a list). */
export function listContains(list: BlockList, address: string): boolean {
  const family = isIP(address);
  return family !== 0 && list.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** The handlers' view of address lists, over node:net (which handlers may not import). */
export const addressLists: AddressLists = {
  parse(entries) {
    const parsed = parseCidrList(entries);
    if (!parsed.ok) return parsed;
    return { ok: true, contains: (address) => listContains(parsed.list, address) };
  },
};
