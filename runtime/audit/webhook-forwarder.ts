// Streams audit events to an external collector (audit.webhookUrl), spec §6. The local row is
// committed before an event gets here; this forwarder only ever works in the background: enqueue
// never awaits the network and never throws, a down collector leaves events queued (bounded, the
// oldest dropped and counted), and one POST at a time keeps them in order.
import type * as v from 'valibot';
import type { AuditStreamStats } from '../../schema/admin-settings.ts';

export interface WebhookTarget {
  url: string;
  token: string | null;
}

export interface ForwarderOptions {
  /** Called each time events are about to be sent; returns null when streaming is off (settings are runtime-editable). */
  target: () => WebhookTarget | null;
  /** Default 10_000 events; beyond it the OLDEST queued events are dropped and counted. */
  maxQueue?: number;
  /** Default 100 events per POST. */
  maxBatch?: number;
  /** Default 5000 ms per POST. */
  timeoutMs?: number;
  /** Default 1000 ms, doubled per consecutive failure up to retryMaxMs (default 60_000 ms). */
  retryBaseMs?: number;
  retryMaxMs?: number;
  log: { warn(msg: string, fields?: Record<string, unknown>): void };
  /** The outbound client's fetch (runtime/outbound/client.ts): refused addresses, no redirects, a size cap. */
  fetch: typeof fetch;
}

export type ForwarderStats = v.InferOutput<typeof AuditStreamStats>;

const USER_AGENT = 'capstan-audit/1';
const MAX_ERROR_LENGTH = 500;

function positiveInt(value: number | undefined, fallback: number): number {
  if (value === undefined || !Number.isFinite(value)) return fallback;
  return Math.max(1, Math.floor(value));
}

/** The error's message plus its cause's (fetch reports ECONNREFUSED and the like only in `cause`). */
function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const parts = [`${err.name}: ${err.message}`];
  const cause: unknown = err.cause;
  if (cause instanceof Error && cause.message !== err.message) parts.push(cause.message);
  else if (typeof cause === 'string') parts.push(cause);
  return parts.join(': ');
}

export class AuditWebhookForwarder {
  private readonly target: () => WebhookTarget | null;
  private readonly maxQueue: number;
  private readonly maxBatch: number;
  private readonly timeoutMs: number;
  private readonly retryBaseMs: number;
  private readonly retryMaxMs: number;
  private readonly log: ForwarderOptions['log'];
  private readonly fetchFn: typeof fetch;

  /** Serialized events waiting to be sent, oldest first (serialized at enqueue: a snapshot, and a bad event fails there, not in a batch). */
  private queue: string[] = [];
  /** The batch of the POST in flight: still counted as queued, put back in front if it fails. */
  private inFlight: string[] = [];
  private running: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private consecutiveFailures = 0;
  private overflowWarned = false;

  private delivered = 0;
  private dropped = 0;
  private failures = 0;
  private lastError: string | null = null;
  private lastDeliveredAt: string | null = null;

  constructor(options: ForwarderOptions) {
    this.target = options.target;
    this.maxQueue = positiveInt(options.maxQueue, 10_000);
    this.maxBatch = positiveInt(options.maxBatch, 100);
    this.timeoutMs = positiveInt(options.timeoutMs, 5000);
    this.retryBaseMs = positiveInt(options.retryBaseMs, 1000);
    this.retryMaxMs = Math.max(this.retryBaseMs, positiveInt(options.retryMaxMs, 60_000));
    this.log = options.log;
    this.fetchFn = options.fetch;
  }

  /** Never throws, never awaits the network: queues the event and schedules a flush. */
  enqueue(event: Record<string, unknown>): void {
    try {
      if (this.currentTarget() === null) return;
      let json: string | undefined;
      try {
        json = JSON.stringify(event);
      } catch (err) {
        this.warn('audit event could not be serialized for the webhook; not forwarded', { error: describeError(err) });
      }
      if (json === undefined) {
        this.dropped++;
        return;
      }
      this.queue.push(json);
      this.trimOverflow();
      this.schedule(0);
    } catch (err) {
      this.warn('audit webhook enqueue failed', { error: describeError(err) });
    }
  }

  /** Stats for the admin settings page and tests. */
  stats(): ForwarderStats {
    return {
      queued: this.queue.length + this.inFlight.length,
      delivered: this.delivered,
      dropped: this.dropped,
      failures: this.failures,
      last_error: this.lastError,
      last_delivered_at: this.lastDeliveredAt,
    };
  }

  /** Tries to deliver what is queued now (used by tests and at shutdown); resolves when the attempt finishes. */
  async flush(): Promise<void> {
    this.clearTimer();
    // Let a POST already in flight finish first (one at a time keeps the order), then try now,
    // ignoring any backoff: the caller asked for an attempt.
    if (this.running) await this.running;
    this.clearTimer();
    await this.drain();
  }

  /** Stops timers; does not send. */
  stop(): void {
    this.stopped = true;
    this.clearTimer();
  }

  /** Starts the send loop unless it is running; either way returns the loop's promise. */
  private drain(): Promise<void> {
    if (this.running) return this.running;
    const run = this.sendLoop().finally(() => {
      this.running = null;
    });
    this.running = run;
    return run;
  }

  /** Sends batches until the queue is empty, streaming is off, or a POST fails (then a retry is scheduled). Never rejects. */
  private async sendLoop(): Promise<void> {
    while (this.queue.length > 0) {
      const target = this.currentTarget();
      if (target === null) {
        // Streaming was switched off: what is queued will never be sent.
        this.dropped += this.queue.length;
        this.queue = [];
        return;
      }
      this.inFlight = this.queue.splice(0, this.maxBatch);
      const error = await this.post(target, this.inFlight);
      const batch = this.inFlight;
      this.inFlight = [];
      if (error === null) {
        this.delivered += batch.length;
        this.lastDeliveredAt = new Date().toISOString();
        this.consecutiveFailures = 0;
        this.overflowWarned = false;
        continue;
      }
      this.queue = batch.concat(this.queue);
      this.trimOverflow();
      this.failures++;
      this.consecutiveFailures++;
      this.lastError = this.redact(error, target.token);
      const retryInMs = this.backoffMs();
      this.warn('audit webhook delivery failed; events kept queued', {
        error: this.lastError,
        queued: this.queue.length,
        consecutive_failures: this.consecutiveFailures,
        retry_in_ms: retryInMs,
      });
      this.clearTimer(); // an enqueue during the POST armed an immediate one: the backoff replaces it
      this.schedule(retryInMs);
      return;
    }
  }

  /** One POST of one batch; null when the collector answered 2xx, else why it did not (may contain the token: redact). */
  private async post(target: WebhookTarget, batch: readonly string[]): Promise<string | null> {
    try {
      const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': USER_AGENT };
      if (target.token !== null) headers.authorization = `Bearer ${target.token}`;
      const res = await this.fetchFn(target.url, {
        method: 'POST',
        headers,
        body: `{"events":[${batch.join(',')}]}`,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      // Release the connection; the collector's answer body is not read (it could echo anything back).
      await res.body?.cancel().catch(() => undefined);
      if (res.status >= 200 && res.status < 300) return null;
      const statusText = res.statusText ? ` ${res.statusText}` : '';
      return res.status >= 300 && res.status < 400 ? `HTTP ${res.status}${statusText} (redirects are not followed)` : `HTTP ${res.status}${statusText}`;
    } catch (err) {
      return describeError(err);
    }
  }

  /** The configured target, or null when off or when reading it fails (then nothing is sent). */
  private currentTarget(): WebhookTarget | null {
    try {
      return this.target();
    } catch (err) {
      this.warn('audit webhook target could not be read', { error: describeError(err) });
      return null;
    }
  }

  private trimOverflow(): void {
    const excess = this.queue.length + this.inFlight.length - this.maxQueue;
    if (excess <= 0) return;
    // The batch in flight is already on the wire, so the oldest not-yet-sent events go.
    const removed = Math.min(excess, this.queue.length);
    this.queue.splice(0, removed);
    this.dropped += removed;
    if (!this.overflowWarned) {
      this.overflowWarned = true;
      this.warn('audit webhook queue full; dropping the oldest queued events', { max_queue: this.maxQueue });
    }
  }

  private backoffMs(): number {
    const exponent = Math.min(this.consecutiveFailures - 1, 30);
    return Math.min(this.retryMaxMs, this.retryBaseMs * 2 ** exponent);
  }

  /** Arms the (unref'd) timer unless stopped or already armed (a pending backoff wins). Firing while a loop runs is harmless. */
  private schedule(delayMs: number): void {
    if (this.stopped || this.timer !== null) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.drain();
    }, delayMs);
    this.timer.unref();
  }

  private clearTimer(): void {
    if (this.timer === null) return;
    clearTimeout(this.timer);
    this.timer = null;
  }

  private redact(message: string, token: string | null): string {
    let text = message;
    if (token) text = text.split(token).join('[redacted]');
    // A Bearer credential that is not the current token (an edited setting) still never shows.
    text = text.replace(/(bearer\s+)\S+/gi, '$1[redacted]');
    return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH)}…` : text;
  }

  private warn(message: string, fields?: Record<string, unknown>): void {
    try {
      this.log.warn(message, fields);
    } catch {
      // A broken logger must not break the audited request.
    }
  }
}
