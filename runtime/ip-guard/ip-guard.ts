// The IP access layer (spec §5 "Other"): allowlist, denylist and durable automatic bans.
// The only automatic ban is auth_flood: forged or malformed credentials from one address.
import { BlockList } from 'node:net';
import { listContains, parseCidrList } from './cidr.ts';
import type { AuditService } from '../../handlers/audit/service.ts';
import type { Clock } from '../../domain/clock.ts';
import type { IpBan, IpBans } from '../../handlers/ip-guard/service.ts';
import type { AccessControlSettings } from '../../schema/settings.ts';
import type { Db } from '../store/database.ts';
import type { SettingsStore } from '../store/settings.ts';

/** Bans are re-read this often, so one lifted by the recovery CLI (another process) takes effect. */
const BAN_RELOAD_MS = 3000;
/** Addresses tracked for auth_flood at once; beyond it the stalest is forgotten (memory stays bounded under a spray). */
const MAX_TRACKED = 10_000;

export type Admission = { ok: true } | { ok: false; reason: 'banned' | 'denylisted' | 'not_allowlisted' };

interface ParsedLists {
  source: AccessControlSettings;
  allow: BlockList | null;
  deny: BlockList;
  /** Whether the denylist has an entry: checking an address against an empty BlockList still costs a SocketAddress. */
  denies: boolean;
}

export class IpGuard implements IpBans {
  private bans = new Map<string, number | null>();
  private bansLoadedAt = -Infinity;
  private lists: ParsedLists | null = null;
  private readonly strikes = new Map<string, number[]>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly settings: SettingsStore,
    private readonly audit: AuditService,
  ) {}

  async admit(ip: string): Promise<Admission> {
    const t = this.clock.now().getTime();
    await this.refreshBans(t);
    const until = this.bans.get(ip);
    if (until !== undefined && (until === null || until > t)) return { ok: false, reason: 'banned' };
    const lists = await this.currentLists();
    if (lists.denies && listContains(lists.deny, ip)) return { ok: false, reason: 'denylisted' };
    if (lists.allow && !listContains(lists.allow, ip)) return { ok: false, reason: 'not_allowlisted' };
    return { ok: true };
  }

  /** One forged or malformed credential from `ip`; at the policy's threshold within its window, a durable ban. */
  async recordForgedCredential(ip: string, what: string): Promise<void> {
    const { auto_ban: policy } = await this.settings.get('security');
    const t = this.clock.now().getTime();
    const recent = (this.strikes.get(ip) ?? []).filter((at) => t - at < policy.window_secs * 1000);
    recent.push(t);
    this.strikes.delete(ip);
    this.strikes.set(ip, recent);
    if (this.strikes.size > MAX_TRACKED) {
      const stalest = this.strikes.keys().next().value;
      if (stalest !== undefined) this.strikes.delete(stalest);
    }
    if (recent.length < policy.threshold) return;
    this.strikes.delete(ip);
    const expires = policy.ban_secs === 0 ? null : t + policy.ban_secs * 1000;
    await this.db
      .insertInto('ip_bans')
      .values({ ip, reason: 'auth_flood', created_at: t, expires_at: expires })
      .onConflict((oc) => oc.column('ip').doUpdateSet({ reason: 'auth_flood', created_at: t, expires_at: expires }))
      .execute();
    this.bans.set(ip, expires);
    await this.audit.record({
      actor: `system@${ip}`,
      category: 'auth',
      action: 'ip.auto_ban',
      outcome: 'success',
      severity: 'critical',
      detail: { ip, reason: 'auth_flood', last_credential: what, strikes: String(recent.length), expires_at: expires === null ? 'never' : new Date(expires).toISOString() },
    });
  }

  async list(): Promise<IpBan[]> {
    const t = this.clock.now().getTime();
    const rows = await this.db.selectFrom('ip_bans').selectAll().where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', t)])).orderBy('created_at', 'desc').execute();
    return rows.map((r) => ({ ip: r.ip, reason: r.reason, created_at: new Date(r.created_at).toISOString(), expires_at: r.expires_at === null ? null : new Date(r.expires_at).toISOString() }));
  }

  async lift(ip: string): Promise<boolean> {
    const result = await this.db.deleteFrom('ip_bans').where('ip', '=', ip).executeTakeFirst();
    this.bans.delete(ip);
    this.strikes.delete(ip);
    return Number(result.numDeletedRows) > 0;
  }

  private async refreshBans(t: number): Promise<void> {
    if (t - this.bansLoadedAt < BAN_RELOAD_MS && t >= this.bansLoadedAt) return;
    this.bansLoadedAt = t;
    const rows = await this.db.selectFrom('ip_bans').select(['ip', 'expires_at']).where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', t)])).execute();
    this.bans = new Map(rows.map((r) => [r.ip, r.expires_at]));
  }

  private async currentLists(): Promise<ParsedLists> {
    const source = await this.settings.get('access_control');
    if (this.lists?.source !== source) {
      // Stored lists were validated when saved; an entry that no longer parses is skipped, not fatal.
      const parse = (entries: string[]) => {
        const parsed = parseCidrList(entries.filter((e) => parseCidrList([e]).ok));
        return parsed.ok ? parsed.list : new BlockList();
      };
      this.lists = { source, allow: source.allowlist.length > 0 ? parse(source.allowlist) : null, deny: parse(source.denylist), denies: source.denylist.length > 0 };
    }
    return this.lists;
  }
}
