// The overview's API-server panel (docs/observability.md, "API-server metrics"): request rate,
// error rate, p99 latency and the busiest verbs from the configured Prometheus, refreshed every
// 30 s. A figure the agent could not fetch is shown as not measured, never as zero. Without a
// source it says how to add one (admins get the link).
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { me } from '../api/queries/session';
import { apiserverMetrics, type ApiserverMetrics } from '../api/queries/observability';
import { SortableTable, type Column } from './sortable-table';
import { QueryView } from './states';

type Verb = NonNullable<ApiserverMetrics['by_verb']>[number];
const VERB_COLUMNS: Column<Verb>[] = [
  { key: 'verb', label: 'Verb', value: (v) => v.verb, rowHeader: true },
  { key: 'rate', label: 'Requests per second', value: (v) => v.rate, numeric: true },
];

const figure = (value: number | undefined, unit: string) => (value === undefined ? 'not measured' : `${value.toLocaleString()} ${unit}`);

export function ApiserverPanel() {
  const metrics = useQuery(apiserverMetrics());
  const who = useQuery(me());
  return (
    <section aria-labelledby="apiserver">
      <h2 id="apiserver">API server</h2>
      <QueryView query={metrics} what="the API server's metrics">
        {(m) =>
          m.source === 'none' ? (
            <p className="muted" data-testid="apiserver-setup">
              Needs a Prometheus that scrapes the API server.{' '}
              {who.data?.role === 'admin' ? <Link href="/admin/observability">Add one under Admin → Observability.</Link> : 'An admin can add one under Admin → Observability.'}
            </p>
          ) : (
            <>
              <dl className="figures" data-testid="apiserver-figures">
                <dt>Requests</dt>
                <dd>{figure(m.requests_per_sec, 'per second')}</dd>
                <dt>Errors (5xx)</dt>
                <dd>{figure(m.error_rate_pct, '%')}</dd>
                <dt>p99 latency</dt>
                <dd>{figure(m.p99_latency_ms, 'ms')}</dd>
              </dl>
              <p className="muted">Over the last 5 minutes; latency and errors leave out WATCH and CONNECT.</p>
              {m.by_verb && m.by_verb.length > 0 ? <SortableTable rows={m.by_verb} columns={VERB_COLUMNS} rowKey={(v) => v.verb} caption="Busiest verbs" searchLabel="Search verbs" sortable={false} empty="No requests." /> : null}
            </>
          )
        }
      </QueryView>
    </section>
  );
}
