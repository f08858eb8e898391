import type * as v from 'valibot';
import type { IpBanView } from '../../schema/admin-settings.ts';

export type IpBan = v.InferOutput<typeof IpBanView>;

/** The IP access layer's durable bans. */
export interface IpBans {
  list(): Promise<IpBan[]>;
  lift(ip: string): Promise<boolean>;
}

/** Address lists (trusted proxies, the IP allow- and denylist): CIDRs or bare addresses, v4 or v6. */
export interface AddressLists {
  /** The first entry that is not an address or CIDR and why, else a membership test (false for anything that is not an IP address). */
  parse(entries: readonly string[]): { ok: true; contains(address: string): boolean } | { ok: false; entry: string; reason: string };
}
