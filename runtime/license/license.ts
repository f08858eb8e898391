// The license in force: which key (an admin's, else the install key), what it means now, and
// `has(feature)` for the 402 middleware and the handlers. docs/licensing.md.
import { createHash } from 'node:crypto';
import type { Licensing } from '../../handlers/license/service.ts';
import type { LicenseService } from '../../handlers/license/service.ts';
import type { RuntimeSettings, Secrets } from '../../handlers/settings/service.ts';
import type { Clock } from '../../domain/clock.ts';
import { judgeKey, readKey, tierInForce, type KeyVerdict, type ReadKey, type SignatureCheck } from '../../domain/license/key.ts';
import { tierHas } from '../../domain/license/tiers.ts';
import type { LicensedFeature } from '../../schema/access.ts';
import type { LicenseSource, LicenseTier } from '../../schema/license.ts';
import type { Logger } from '../log.ts';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

interface InForce {
  key: string;
  source: LicenseSource;
  /** The signature check's answer, computed once per key: only expiry depends on the time. */
  read: ReadKey;
}

export interface LicenseManagerOptions {
  check: SignatureCheck;
  clock: Clock;
  /** `license.key` (CAPSTAN_LICENSE_KEY); null when the chart supplies none. */
  installKey: string | null;
  settings: RuntimeSettings;
  secrets: Secrets;
  log: Logger;
}

/**
 * Holds the key in force in memory, so `has()` (every licensed request) costs a clock read and
 * a table lookup, and an admin's install or removal applies to the next request, no restart.
 */
export class LicenseManager implements Licensing, LicenseService {
  private inForce: InForce | null = null;
  /** The last state logged, so a key that lapses while the agent runs is logged once, when it does. */
  private logged: string | null = null;
  private readonly installListeners: (() => void)[] = [];

  constructor(private readonly o: LicenseManagerOptions) {}

  /** The admin's stored key wins; else the install key, unless an admin removed that very key. */
  async load(): Promise<void> {
    const stored = await this.o.settings.get('license');
    if (stored.key_sealed !== null) this.inForce = this.entry(this.o.secrets.open(stored.key_sealed), 'admin');
    else if (this.o.installKey !== null && stored.removed_install_key_sha256 !== sha256(this.o.installKey)) this.inForce = this.entry(this.o.installKey, 'install');
    else this.inForce = null;
    this.current();
  }

  get tier(): LicenseTier {
    return tierInForce(this.current().verdict);
  }

  has(feature: LicensedFeature): boolean {
    return tierHas(this.tier, feature);
  }

  current(): { verdict: KeyVerdict; source: LicenseSource | null } {
    const entry = this.inForce;
    const verdict = judgeKey(entry?.read ?? null, this.o.clock.now());
    this.note(verdict, entry?.source ?? null);
    return { verdict, source: entry?.source ?? null };
  }

  read(key: string): ReadKey {
    return readKey(key, this.o.check);
  }

  /** The key the heartbeat reports, whatever its state (the license service may want to hear of a lapsed one). */
  key(): string | null {
    return this.inForce?.key ?? null;
  }

  async install(key: string): Promise<void> {
    const stored = await this.o.settings.get('license');
    await this.o.settings.set('license', { ...stored, key_sealed: this.o.secrets.seal(key) });
    this.inForce = this.entry(key, 'admin');
    this.current();
    for (const listener of this.installListeners) listener();
  }

  /** Runs `listener` (synchronously; it must not block) after each key an admin installs: the heartbeat reports it soon. */
  onInstall(listener: () => void): void {
    this.installListeners.push(listener);
  }

  async remove(): Promise<void> {
    const stored = await this.o.settings.get('license');
    const removedInstall = this.o.installKey === null ? stored.removed_install_key_sha256 : sha256(this.o.installKey);
    await this.o.settings.set('license', { key_sealed: null, removed_install_key_sha256: removedInstall });
    this.inForce = null;
    this.current();
  }

  private entry(key: string, source: LicenseSource): InForce {
    return { key: key.trim(), source, read: this.read(key) };
  }

  /** One log line per change of state: a bad install key says why at start; a lapse says so once. */
  private note(verdict: KeyVerdict, source: LicenseSource | null): void {
    const id = verdict.state === 'valid' || verdict.state === 'expired' ? verdict.payload.id : '';
    const state = `${verdict.state}:${source ?? ''}:${id}`;
    if (state === this.logged) return;
    this.logged = state;
    if (verdict.state === 'invalid' || verdict.state === 'expired') this.o.log.warn('license key not in force; running the Free tier', { state: verdict.state, reason: verdict.reason, source });
    else if (verdict.state === 'valid') this.o.log.info('license in force', { tier: verdict.payload.tier, licensee: verdict.payload.licensee, id: verdict.payload.id, expires_at: verdict.payload.expires_at, source });
    else this.o.log.info('no license key; running the Free tier');
  }
}
