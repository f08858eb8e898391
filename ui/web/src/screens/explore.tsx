// Explore: PromQL through the agent's guard (docs/observability.md, "The guard"), charted. The
// query sent is shown as the agent confined it; a refusal is shown with its reason and the
// place in the query it is about; the Free tier's 402 says what it needs.
import { useMutation, useQuery } from '@tanstack/react-query';
import { useMemo, useState, type SyntheticEvent } from 'react';
import { ApiError, errorText } from '../api/client';
import { observabilityStatus, runRangeQuery, type PromAnswer } from '../api/queries/observability';
import { TimeChart, type Series } from '../components/time-chart';
import { QueryView } from '../components/states';

const RANGES = [
  { label: 'last 15 minutes', secs: 900 },
  { label: 'last hour', secs: 3600 },
  { label: 'last 6 hours', secs: 21600 },
  { label: 'last 24 hours', secs: 86400 },
] as const;
/** Lines drawn at most: a query answering more is told to aggregate. */
const MAX_SERIES = 12;
const COLORS = ['#2563eb', '#dc2626', '#16a34a', '#d97706', '#7c3aed', '#0891b2', '#db2777', '#65a30d', '#9333ea', '#ea580c', '#0d9488', '#4b5563'];

type Matrix = { metric: Record<string, string>; values: [number, string][] }[];

const labelOf = (metric: Record<string, string>) => {
  const { __name__: name, ...rest } = metric;
  const labels = Object.entries(rest).map(([k, v]) => `${k}="${v}"`).join(', ');
  return `${name ?? ''}{${labels}}`;
};

/** A matrix answer as chart columns: one timestamp axis, each series' values (gaps as null). */
export function chartOf(answer: PromAnswer): { ts: number[]; series: Series[]; cut: number } | null {
  if (answer.result_type !== 'matrix' || !Array.isArray(answer.result)) return null;
  const matrix = answer.result as Matrix;
  const ts = [...new Set(matrix.flatMap((s) => s.values.map(([t]) => t)))].sort((a, b) => a - b);
  const index = new Map(ts.map((t, i) => [t, i]));
  const series = matrix.slice(0, MAX_SERIES).map((s, n): Series => {
    const values: (number | null)[] = ts.map(() => null);
    for (const [t, v] of s.values) values[index.get(t) ?? 0] = Number(v);
    return { label: labelOf(s.metric), values, color: COLORS[n % COLORS.length] ?? '#2563eb' };
  });
  return { ts, series, cut: Math.max(0, matrix.length - MAX_SERIES) };
}

function Refusal({ error, query }: { error: unknown; query: string }) {
  if (error instanceof ApiError && error.status === 402) return <p className="error" role="alert">Queries need the Pro tier’s <code>observability</code> feature. {error.body.upgrade ?? ''}</p>;
  const position = error instanceof ApiError && typeof error.body.position === 'number' ? error.body.position : null;
  return (
    <div role="alert" className="error" data-testid="query-refusal">
      <p>{errorText(error)}</p>
      {position !== null ? (
        <pre aria-label="where in the query">
          {query}
          {'\n'}
          {' '.repeat(position)}^
        </pre>
      ) : null}
    </div>
  );
}

function Answer({ answer }: { answer: PromAnswer }) {
  const chart = useMemo(() => chartOf(answer), [answer]);
  const format = useMemo(() => (v: number) => (Math.abs(v) >= 1000 ? v.toExponential(2) : String(Math.round(v * 1000) / 1000)), []);
  return (
    <section aria-labelledby="answer" className="stack">
      <h2 id="answer">Answer</h2>
      <p className="muted">
        Sent to Prometheus as <code data-testid="guarded-query">{answer.query}</code>
        {answer.step_secs !== undefined ? ` every ${String(answer.step_secs)} s` : ''}.
      </p>
      {answer.warnings.map((w) => (
        <p key={w} className="muted">Prometheus: {w}</p>
      ))}
      {chart === null || chart.series.length === 0 ? <p data-testid="no-series">No series matched.</p> : <TimeChart title="Query result" ts={chart.ts} series={chart.series} format={format} />}
      {chart !== null && chart.cut > 0 ? <p className="muted">{chart.cut} more series not drawn: aggregate the query (sum by …) to see them together.</p> : null}
    </section>
  );
}

export function Explore() {
  const status = useQuery(observabilityStatus());
  const run = useMutation(runRangeQuery());
  const [query, setQuery] = useState('');
  const [range, setRange] = useState<number>(RANGES[1].secs);
  const submit = (e: SyntheticEvent<HTMLFormElement>) => {
    e.preventDefault();
    const end = Math.floor(Date.now() / 1000);
    run.mutate({ query, start: end - range, end });
  };
  return (
    <>
      <h1>Explore</h1>
      <QueryView query={status} what="the observability status">
        {(s) =>
          !s.prometheus.configured ? (
            <p className="muted">No Prometheus is configured. An admin can add one under Admin → Observability.</p>
          ) : (
            <form className="stack" onSubmit={submit}>
              <p className="muted">PromQL over the namespaces you may see: Capstan adds a namespace matcher to every selector before Prometheus is asked.</p>
              <label>
                PromQL query
                <textarea rows={3} required value={query} spellCheck={false} onChange={(e) => setQuery(e.target.value)} />
              </label>
              <label>
                Range
                <select value={range} onChange={(e) => setRange(Number(e.target.value))}>
                  {RANGES.map((r) => (
                    <option key={r.secs} value={r.secs}>{r.label}</option>
                  ))}
                </select>
              </label>
              <div>
                <button type="submit" disabled={run.isPending || query.trim() === ''}>Run query</button>
              </div>
            </form>
          )
        }
      </QueryView>
      {run.error ? <Refusal error={run.error} query={run.variables.query} /> : null}
      {run.data ? <Answer answer={run.data} /> : null}
    </>
  );
}
