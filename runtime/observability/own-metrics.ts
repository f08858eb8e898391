// Capstan's own metrics in Prometheus' exposition format (docs/observability.md, "Capstan's own
// metrics"), served by GET /observability/metrics to a credential with metrics:read (the
// scraper's API key as a bearer token). prom-client keeps the registry; this file names what
// is measured and where it is read from. Labels are bounded: a route is its template, never
// the path asked.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { CacheSyncStatus } from '../../domain/cluster/model.ts';

export interface OwnMetricSources {
  syncStatus(): readonly CacheSyncStatus[];
  auditStream(): { queued: number; delivered: number; dropped: number; failures: number; last_delivered_at: string | null };
  now(): number;
}

export interface OwnMetrics {
  /** One answered request of a route in the table (method, path template, status). */
  httpRequest: (method: string, route: string, status: number, seconds: number) => void;
  /** An outbound call that failed (its OutboundError reason, or `network`). Passed around as a callback, so a property. */
  outboundFailure: (reason: string) => void;
  /** One whole-cluster diagnosis run. */
  diagnosisRun: (seconds: number) => void;
  /** The exposition text, and its content type. */
  render: () => Promise<{ body: string; contentType: string }>;
}

export function createOwnMetrics(sources: OwnMetricSources): OwnMetrics {
  const registry = new Registry();
  const requests = new Counter({ name: 'capstan_http_requests_total', help: 'Requests answered, by route template, method and status.', labelNames: ['method', 'route', 'status'] as const, registers: [registry] });
  const latency = new Histogram({ name: 'capstan_http_request_duration_seconds', help: 'Time to answer a request, by route template and method (a stream: until it opened).', labelNames: ['method', 'route'] as const, buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers: [registry] });
  const outbound = new Counter({ name: 'capstan_outbound_failures_total', help: 'Outbound calls to configured endpoints that failed, by reason (refused_address, redirect, timeout, response_too_large, network, ...).', labelNames: ['reason'] as const, registers: [registry] });
  const diagnosis = new Histogram({ name: 'capstan_diagnosis_duration_seconds', help: 'Time of one whole-cluster diagnosis run.', buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers: [registry] });
  new Gauge({
    name: 'capstan_informer_synced',
    help: 'Whether an informer has completed its first LIST (1) or not (0).',
    labelNames: ['resource'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const s of sources.syncStatus()) this.set({ resource: s.resource }, s.synced ? 1 : 0);
    },
  });
  new Gauge({
    name: 'capstan_informer_failing_seconds',
    help: 'How long an informer has been unable to LIST or WATCH (0 while healthy): how stale its cache may be.',
    labelNames: ['resource'] as const,
    registers: [registry],
    collect() {
      this.reset();
      const now = sources.now();
      for (const s of sources.syncStatus()) this.set({ resource: s.resource }, s.failing_since === null ? 0 : Math.max(0, (now - Date.parse(s.failing_since)) / 1000));
    },
  });
  new Gauge({
    name: 'capstan_informer_forbidden',
    help: 'Whether RBAC refuses an informer its resource somewhere (1) or not (0).',
    labelNames: ['resource'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const s of sources.syncStatus()) this.set({ resource: s.resource }, s.forbidden ? 1 : 0);
    },
  });
  new Gauge({
    name: 'capstan_audit_export_queued',
    help: 'Audit events waiting to be streamed to the audit webhook.',
    registers: [registry],
    collect() {
      this.set(sources.auditStream().queued);
    },
  });
  new Gauge({
    name: 'capstan_audit_export_lag_seconds',
    help: 'Seconds since the audit webhook last accepted an event while events wait (0 when none wait).',
    registers: [registry],
    collect() {
      const s = sources.auditStream();
      this.set(s.queued === 0 || s.last_delivered_at === null ? 0 : Math.max(0, (sources.now() - Date.parse(s.last_delivered_at)) / 1000));
    },
  });
  new Gauge({
    name: 'capstan_audit_export_dropped',
    help: 'Audit events the webhook stream dropped (its queue was full), since the agent started.',
    registers: [registry],
    collect() {
      this.set(sources.auditStream().dropped);
    },
  });
  return {
    httpRequest: (method, route, status, seconds) => {
      requests.inc({ method, route, status: String(status) });
      latency.observe({ method, route }, seconds);
    },
    outboundFailure: (reason) => outbound.inc({ reason }),
    diagnosisRun: (seconds) => diagnosis.observe(seconds),
    render: async () => ({ body: await registry.metrics(), contentType: registry.contentType }),
  };
}
