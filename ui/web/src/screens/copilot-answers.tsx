// Stored copilot answers: Diagnose results and scheduled SRE reports, listed (kind and
// namespace filters kept in the URL) and read one by one.
import { useQuery } from '@tanstack/react-query';
import { Link, useLocation, useSearch } from 'wouter';
import { answers, storedAnswer } from '../api/queries/copilot';
import { Empty, QueryView } from '../components/states';
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
        {(data) =>
          data.items.length === 0 ? (
            <Empty>No stored answer yet. Diagnose a namespace from its view, or (admins) run an SRE report.</Empty>
          ) : (
            <table>
              <caption>{data.items.length} answers, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Answer</th>
                  <th scope="col">Kind</th>
                  <th scope="col">About</th>
                  <th scope="col">By</th>
                  <th scope="col">When</th>
                </tr>
              </thead>
              <tbody>
                {data.items.map((a) => (
                  <tr key={a.id}>
                    <td>
                      <Link href={`/copilot/answers/${a.id}`}>{a.headline || '(empty)'}</Link>
                    </td>
                    <td>{a.kind === 'diagnose' ? 'Diagnose' : 'SRE report'}{a.source === 'model' ? '' : ' (no model)'}</td>
                    <td>{a.scope === '*' ? 'every namespace in scope' : a.scope}</td>
                    <td>{a.actor}</td>
                    <td><Time at={a.created_at} /></td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </QueryView>
    </>
  );
}
