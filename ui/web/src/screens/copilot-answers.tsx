// Stored copilot answers: Diagnose results and scheduled SRE reports, listed (kind and
// namespace filters kept in the URL) and read one by one.
import { useQuery } from '@tanstack/react-query';
import { Link, useLocation, useSearch } from 'wouter';
import { answers, storedAnswer, type StoredAnswerSummary } from '../api/queries/copilot';
import { SortableTable, type Column } from '../components/sortable-table';
import { QueryView } from '../components/states';
import { Time } from '../components/time';
import { StoredAnswerBody } from '../copilot/stored-answer';

export function StoredAnswerView({ id }: { id: string }) {
  const query = useQuery(storedAnswer(id));
  return (
    <>
      <p className="crumbs">
        <Link href="/copilot/answers">Copilot answers</Link>
      </p>
      <h1>Copilot answer</h1>
      <QueryView query={query} what="the answer">
        {(a) => <StoredAnswerBody answer={a} />}
      </QueryView>
    </>
  );
}

/** The newest answers the agent returns, not all of them: sorting them would misstate what is kept. */
const ANSWER_COLUMNS: Column<StoredAnswerSummary>[] = [
  { key: 'answer', label: 'Answer', value: (a) => a.headline, render: (a) => <Link href={`/copilot/answers/${a.id}`}>{a.headline || '(empty)'}</Link> },
  { key: 'kind', label: 'Kind', value: (a) => `${a.kind === 'diagnose' ? 'Diagnose' : 'SRE report'}${a.source === 'model' ? '' : ' (no model)'}` },
  { key: 'about', label: 'About', value: (a) => (a.scope === '*' ? 'every namespace in scope' : a.scope) },
  { key: 'by', label: 'By', value: (a) => a.actor },
  { key: 'when', label: 'When', value: (a) => a.created_at, render: (a) => <Time at={a.created_at} /> },
];

export function AnswerList() {
  const params = new URLSearchParams(useSearch());
  const [, navigate] = useLocation();
  const kindParam = params.get('kind');
  const kind = kindParam === 'diagnose' || kindParam === 'report' ? kindParam : undefined;
  const scope = params.get('scope') ?? undefined;
  const query = useQuery(answers({ ...(kind ? { kind } : {}), ...(scope ? { scope } : {}) }));
  const setKind = (value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set('kind', value);
    else next.delete('kind');
    navigate(`/copilot/answers${next.size > 0 ? `?${next.toString()}` : ''}`);
  };
  return (
    <>
      <h1>Copilot answers</h1>
      <p className="muted">Diagnose results and scheduled SRE reports about namespaces you may see, kept 180 days.</p>
      <div className="filters" role="group" aria-label="Filters">
        <label>
          Kind
          <select value={kind ?? ''} onChange={(e) => setKind(e.target.value)}>
            <option value="">all</option>
            <option value="diagnose">Diagnose</option>
            <option value="report">SRE report</option>
          </select>
        </label>
        {scope ? (
          <span>
            Namespace {scope} <Link href={`/copilot/answers${kind ? `?kind=${kind}` : ''}`}>show every namespace</Link>
          </span>
        ) : null}
      </div>
      <QueryView query={query} what="stored answers">
        {(data) => (
          <SortableTable
            rows={data.items}
            columns={ANSWER_COLUMNS}
            rowKey={(a) => a.id}
            caption={`${data.items.length} answers, newest first`}
            sortable={false}
            empty="No stored answer yet. Diagnose a namespace from its view, or (admins) run an SRE report."
          />
        )}
      </QueryView>
    </>
  );
}
