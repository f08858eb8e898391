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
import { SortableTable, type Column } from '../components/sortable-table';
import { QueryView } from '../components/states';
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

type FailingCheck = Posture['top_failing_checks'][number];
type NamespacePosture = Posture['namespaces'][number];

const FAILING_CHECK_COLUMNS: Column<FailingCheck>[] = [
  { key: 'check', label: 'Check', value: (c) => c.check_id, render: (c) => <><code>{c.check_id}</code> <span className="muted">{c.title}</span></>, rowHeader: true },
  // By rank, not by name: CRITICAL before HIGH, not alphabetically.
  { key: 'severity', label: 'Severity', value: (c) => SEVERITIES.indexOf(c.severity), render: (c) => <SeverityBadge severity={c.severity} /> },
  { key: 'workloads', label: 'Workloads', value: (c) => c.workloads, numeric: true },
  { key: 'failures', label: 'Failures', value: (c) => c.failures, numeric: true },
];

function TopFailing({ checks }: { checks: Posture['top_failing_checks'] }) {
  return <SortableTable rows={checks} columns={FAILING_CHECK_COLUMNS} rowKey={(c) => c.check_id} caption="Checks failing on the most workloads" empty="No check fails." />;
}

function namespaceColumns(onPick: (namespace: string) => void): Column<NamespacePosture>[] {
  return [
    {
      key: 'namespace',
      label: 'Namespace',
      value: (n) => n.namespace,
      render: (n) => <button type="button" className="link" onClick={() => onPick(n.namespace)} aria-label={`Show findings in ${n.namespace}`}>{n.namespace}</button>,
      rowHeader: true,
    },
    // The grade is the score in letters: sorting by the score orders the grades too.
    { key: 'grade', label: 'Grade', value: (n) => n.score, render: (n) => <span className={`badge ${gradeTone(n.grade)}`}>{n.grade}</span> },
    { key: 'score', label: 'Score', value: (n) => n.score, numeric: true },
    ...SEVERITIES.slice(0, 4).map((s): Column<NamespacePosture> => ({ key: s, label: s, value: (n) => n.by_severity[s], numeric: true })),
    { key: 'workloads', label: 'Workloads', value: (n) => n.workloads_covered, numeric: true },
  ];
}

function Namespaces({ rows, onPick }: { rows: Posture['namespaces']; onPick: (namespace: string) => void }) {
  return (
    <SortableTable
      rows={rows}
      columns={namespaceColumns(onPick)}
      rowKey={(n) => n.namespace}
      caption="Namespaces, worst score first"
      empty="No visible namespace has workloads."
      rowAttributes={(n) => ({ 'data-namespace': n.namespace })}
    />
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
