// Requests that carry no credential at all are refused routinely (a signed-out tab, a
// crawler, a scanner). One hash-chained, 365-day row each let anyone grow the audit log at
// will (issue 11: 200 requests, 2.8 MB, 0.63 s). They are counted here instead and written
// as summary rows: at most one per address per interval, and at most MAX_ROWS addresses per
// interval, the rest folded into one row. Forged credentials are not counted here: they
// still get a chained row each and feed the auth_flood ban.
import type { AuditService } from '../../handlers/audit/service.ts';
import type { Clock } from '../../domain/clock.ts';

export const SUMMARY_INTERVAL_MS = 60_000;
/** Addresses written one row each per interval; the quietest beyond this share one row. */
const MAX_ROWS = 50;
/** Addresses counted at once; beyond it, new ones go straight into the shared row's count. */
const MAX_TRACKED = 10_000;

export const SUMMARY_ACTION = 'auth.unauthenticated_summary';

export type AnonymousRefusal = 'unauthenticated' | 'rate_limited';

interface Tally {
  requests: number;
  rateLimited: number;
}

export class UnauthenticatedSummary {
  private tallies = new Map<string, Tally>();
  /** Requests from addresses past MAX_TRACKED: counted, not told apart. */
  private untracked: Tally = { requests: 0, rateLimited: 0 };
  private windowStart: number;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly audit: Pick<AuditService, 'record'>,
    private readonly clock: Clock,
  ) {
    this.windowStart = clock.now().getTime();
  }

  /** One refused request from `ip`; writes the pending summary when its interval is over. */
  count(ip: string, refusal: AnonymousRefusal): Promise<void> {
    let tally = this.tallies.get(ip);
    if (tally === undefined && this.tallies.size < MAX_TRACKED) {
      tally = { requests: 0, rateLimited: 0 };
      this.tallies.set(ip, tally);
    }
    const target = tally ?? this.untracked;
    target.requests++;
    if (refusal === 'rate_limited') target.rateLimited++;
    return this.flushIfDue();
  }

  /** What a timer calls: writes only once the interval since the last summary is over. */
  flushIfDue(): Promise<void> {
    if (this.clock.now().getTime() - this.windowStart < SUMMARY_INTERVAL_MS) return Promise.resolve();
    return this.flush();
  }

  /** Writes what is pending now (the interval's end, and shutdown), one write at a time. */
  flush(): Promise<void> {
    const run = this.flushing.then(() => this.write());
    this.flushing = run.catch(() => undefined);
    return run;
  }

  private async write(): Promise<void> {
    const from = new Date(this.windowStart).toISOString();
    const now = this.clock.now();
    this.windowStart = now.getTime();
    const to = now.toISOString();
    const busiest = [...this.tallies].sort((a, b) => b[1].requests - a[1].requests);
    const rest = { ...this.untracked };
    const untracked = rest.requests > 0;
    this.tallies = new Map();
    this.untracked = { requests: 0, rateLimited: 0 };
    const quiet = busiest.slice(MAX_ROWS);
    for (const [, tally] of quiet) {
      rest.requests += tally.requests;
      rest.rateLimited += tally.rateLimited;
    }
    for (const [ip, tally] of busiest.slice(0, MAX_ROWS)) await this.record(`anonymous@${ip}`, `from ${ip}`, tally, from, to);
    if (rest.requests > 0) {
      const source = `from ${quiet.length}${untracked ? ' or more' : ''} other addresses`;
      await this.record('anonymous@various', source, rest, from, to);
    }
  }

  private record(actor: string, source: string, tally: Tally, from: string, to: string): Promise<void> {
    const limited = tally.rateLimited > 0 ? ` (${tally.rateLimited} over the anonymous rate limit)` : '';
    return this.audit.record({
      actor,
      category: 'auth',
      action: SUMMARY_ACTION,
      outcome: 'denied',
      severity: 'info',
      detail: {
        summary: `${tally.requests} unauthenticated requests ${source}${limited} between ${from} and ${to}`,
        requests: String(tally.requests),
        rate_limited: String(tally.rateLimited),
        from,
        to,
      },
    });
  }
}
