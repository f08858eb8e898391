// Security posture: the grade and score with the formula's inputs, failed checks per severity,
// workloads covered, the score's trend, the top failing checks, each namespace worst first,
// and every finding (filters in the URL, so a view can be shared). Admins can start a scan.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useLocation, useSearch } from 'wouter';
import { errorText } from '../api/client';
import { me } from '../api/queries/session';
import { posture, scanFinished, scanStatus, startScan, trend, type Posture, type ScanStarted } from '../api/queries/security';
import { ScoreTrend, SeverityBadge, SeverityBars } from '../components/security-charts';
import { FindingsPanel } from '../components/security-findings';
import { Empty, QueryView } from '../components/states';
import { filtersFromSearch, gradeTone, scoreFormula, searchFromFilters, SEVERITIES, type FindingsFilters } from '../security/view';

function ScanState({ started }: { started: ScanStarted }) {
  const state = useQuery(scanStatus(started.id));
  const client = useQueryClient();
  const status = state.data?.status;
  // When the scan ends, what it found shows up in the posture, the findings and the trend.
  useEffect(() => {
    if (status !== undefined && status !== 'running') void scanFinished(client);
  }, [status, client]);
  if (state.isError) return <span role="alert" className="error">Could not read the scan's state: {errorText(state.error)}</span>;
  // Until the first poll answers, the POST's own answer: running.
  const { job_name, error, summary } = state.data ?? { ...started, error: null, summary: null };
  return (
    <span role="status" aria-live="polite" data-testid="scan-state">
      {started.started ? '' : 'A scan was already running: '}Scan <code>{job_name}</code>: {status ?? started.status}
      {error ? ` (${error})` : ''}
      {summary ? ` · score ${summary.score} (${summary.grade}), ${summary.misconfigs} misconfigurations, ${summary.vulns} vulnerabilities` : ''}
    </span>
  );
}

/** "Scan now": a 403/402 refusal (scanning switched off, self-scan not licensed) shows the agent's reason here. */
function ScanNow() {
  const scan = useMutation(startScan());
  return (
    <p className="scan-now">
      <button type="button" onClick={() => scan.mutate()} disabled={scan.isPending}>
        {scan.isPending ? 'Starting a scan…' : 'Scan now'}
      </button>{' '}
      {scan.isError ? <span role="alert" className="error">Scan refused: {errorText(scan.error)}</span> : null}
      {scan.data ? <ScanState started={scan.data} /> : null}
    </p>
  );
}

function Summary({ data }: { data: Posture }) {
  return (
    <section aria-labelledby="posture" className="posture">
      <h2 id="posture" className="visually-hidden">Posture</h2>
      <div className="card grade">
        <p>
          Grade <span className={`badge grade ${gradeTone(data.grade)}`} data-testid="grade">{data.grade}</span>
        </p>
        <p>
          Score <strong data-testid="score">{data.score}</strong> / 100
        </p>
        <dl className="facts" aria-label="The score's inputs">
          <dt>Passed</dt><dd>{data.checks.passed}</dd>
          <dt>Warnings</dt><dd>{data.checks.warnings}</dd>
          <dt>Dangers</dt><dd>{data.checks.dangers}</dd>
          <dt>Formula</dt><dd title="Polaris: 2 points per pass, warnings count once and dangers twice against them">{scoreFormula(data.checks)}</dd>
          <dt>Workloads covered</dt><dd data-testid="workloads-covered">{data.workloads_covered}</dd>
        </dl>
      </div>
      <SeverityBars counts={data.by_severity} caption="Failed checks by severity" />
    </section>
  );
}

function TopFailing({ checks }: { checks: Posture['top_failing_checks'] }) {
  if (checks.length === 0) return <Empty>No check fails.</Empty>;
  return (
    <div className="table-wrap">
      <table>
        <caption>Checks failing on the most workloads</caption>
        <thead>
          <tr>
            <th scope="col">Check</th>
            <th scope="col">Severity</th>
            <th scope="col" className="num">Workloads</th>
            <th scope="col" className="num">Failures</th>
          </tr>
        </thead>
        <tbody>
          {checks.map((c) => (
            <tr key={c.check_id}>
              <th scope="row"><code>{c.check_id}</code> <span className="muted">{c.title}</span></th>
              <td><SeverityBadge severity={c.severity} /></td>
              <td className="num">{c.workloads}</td>
              <td className="num">{c.failures}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Namespaces({ rows, onPick }: { rows: Posture['namespaces']; onPick: (namespace: string) => void }) {
  if (rows.length === 0) return <Empty>No visible namespace has workloads.</Empty>;
  return (
    <div className="table-wrap">
      <table>
        <caption>Namespaces, worst score first</caption>
        <thead>
          <tr>
            <th scope="col">Namespace</th>
            <th scope="col">Grade</th>
            <th scope="col" className="num">Score</th>
            {SEVERITIES.slice(0, 4).map((s) => <th key={s} scope="col" className="num">{s}</th>)}
            <th scope="col" className="num">Workloads</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((n) => (
            <tr key={n.namespace} data-namespace={n.namespace}>
              <th scope="row">
                <button type="button" className="link" onClick={() => onPick(n.namespace)} aria-label={`Show findings in ${n.namespace}`}>{n.namespace}</button>
              </th>
              <td><span className={`badge ${gradeTone(n.grade)}`}>{n.grade}</span></td>
              <td className="num">{n.score}</td>
              {SEVERITIES.slice(0, 4).map((s) => <td key={s} className="num">{n.by_severity[s]}</td>)}
              <td className="num">{n.workloads_covered}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function SecurityScreen() {
  const search = useSearch();
  const [, navigate] = useLocation();
  const filters = filtersFromSearch(search);
  const go = (next: FindingsFilters) => {
    const qs = searchFromFilters(next);
    navigate(`/security${qs ? `?${qs}` : ''}`);
  };
  const summary = useQuery(posture());
  const history = useQuery(trend());
  const who = useQuery(me());
  return (
    <>
      <h1>Security</h1>
      {who.data?.role === 'admin' ? <ScanNow /> : null}
      <QueryView query={summary} what="the security posture">
        {(data) => (
          <>
            <Summary data={data} />
            <section aria-labelledby="trend">
              <h2 id="trend">Score trend</h2>
              <QueryView query={history} what="the score trend">
                {(t) => <ScoreTrend points={t.points} />}
              </QueryView>
            </section>
            <section aria-labelledby="top-failing">
              <h2 id="top-failing">Top failing checks</h2>
              <TopFailing checks={data.top_failing_checks} />
            </section>
            <section aria-labelledby="by-namespace">
              <h2 id="by-namespace">By namespace</h2>
              <Namespaces rows={data.namespaces} onPick={(namespace) => go({ ...filters, namespace, page: undefined })} />
            </section>
            <section aria-labelledby="findings">
              <h2 id="findings">Findings</h2>
              <FindingsPanel filters={filters} namespaces={data.namespaces.map((n) => n.namespace)} onChange={go} />
            </section>
          </>
        )}
      </QueryView>
    </>
  );
}
