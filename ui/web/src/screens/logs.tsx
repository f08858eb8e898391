// A container's logs: pick the container, the previous instance, how many lines; read the tail
// or follow it live. The choices live in the URL, so a view of a log is a link. The lines
// arrive redacted; the page keeps the newest MAX_LINES while following.
import { useQuery } from '@tanstack/react-query';
import { Link, useLocation, useSearch } from 'wouter';
import { MAX_LINES, useLogFollow, type Followed } from '../api/log-follow';
import { pods } from '../api/queries/cluster';
import { containerLog, followUrl, type LogQuery } from '../api/queries/logs';
import { Empty, ErrorView, QueryView } from '../components/states';

const TAIL_CHOICES = [100, 200, 1000, 5000] as const;

function choicesOf(search: string): LogQuery & { follow: boolean } {
  const params = new URLSearchParams(search);
  const tail = Number(params.get('tail'));
  return {
    container: params.get('container'),
    previous: params.get('previous') === 'true',
    tailLines: (TAIL_CHOICES as readonly number[]).includes(tail) ? tail : 200,
    follow: params.get('follow') === 'true',
  };
}

function Lines({ lines, label }: { lines: readonly string[]; label: string }) {
  if (lines.length === 0) return <Empty>No lines.</Empty>;
  return (
    <pre className="log tall" tabIndex={0} aria-label={label} data-testid="log-lines">
      {lines.join('\n')}
    </pre>
  );
}

const END_WORDS: Record<string, string> = {
  ended: 'The log ended: the container stopped.',
  byte_cap: 'The follow reached its byte cap.',
  max_duration: 'The follow reached its time cap.',
  error: 'The follow stopped.',
};

function FollowView({ followed }: { followed: Followed }) {
  return (
    <>
      <p role="status" className="muted">
        {followed.error !== null
          ? null
          : followed.end === null
            ? `Following: new lines appear as they are written${followed.dropped > 0 ? ` (the oldest ${followed.dropped} dropped; the page keeps ${MAX_LINES})` : ''}.`
            : `${END_WORDS[followed.end.reason] ?? 'The follow ended.'}${followed.end.message ? ` ${followed.end.message}` : ''}`}
      </p>
      {followed.error !== null ? <ErrorView error={new Error(followed.error)} /> : null}
      <Lines lines={followed.lines} label="Followed log lines" />
    </>
  );
}

function Following({ url }: { url: string }) {
  return <FollowView followed={useLogFollow(url)} />;
}

export function LogsScreen({ namespace, pod }: { namespace: string; pod: string }) {
  const search = useSearch();
  const [, navigate] = useLocation();
  const choices = choicesOf(search);
  const podList = useQuery(pods(namespace));
  const found = podList.data?.pods.find((p) => p.name === pod);
  const containers = found ? [...found.containers, ...found.init_containers] : [];
  const container = choices.container ?? found?.containers[0] ?? null;
  const query: LogQuery = { container, previous: choices.previous, tailLines: choices.tailLines };
  const tail = useQuery({ ...containerLog(namespace, pod, query), enabled: !choices.follow && container !== null });
  const set = (change: Partial<Record<'container' | 'previous' | 'tail' | 'follow', string | null>>) => {
    const next = new URLSearchParams(search);
    for (const [key, value] of Object.entries(change)) {
      if (value === null) next.delete(key);
      else next.set(key, value);
    }
    navigate(`/namespaces/${namespace}/pods/${pod}/logs?${next.toString()}`);
  };
  return (
    <>
      <p className="crumbs">
        <Link href={`/namespaces/${namespace}`}>{namespace}</Link> / <Link href={`/namespaces/${namespace}/pods/${pod}`}>{pod}</Link> / logs
      </p>
      <h1>Logs of {pod}</h1>
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Which log">
        <label>
          Container
          <select value={container ?? ''} onChange={(e) => set({ container: e.target.value })}>
            {containers.map((c) => (
              <option key={c} value={c}>
                {c}
                {found?.init_containers.includes(c) ? ' (init)' : ''}
              </option>
            ))}
          </select>
        </label>
        <label>
          <input type="checkbox" checked={choices.previous} onChange={(e) => set({ previous: e.target.checked ? 'true' : null, follow: null })} /> Previous instance
        </label>
        <label>
          Lines
          <select value={choices.tailLines} onChange={(e) => set({ tail: e.target.value })}>
            {TAIL_CHOICES.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
        {choices.follow ? (
          <button type="button" onClick={() => set({ follow: null })}>Stop following</button>
        ) : (
          <>
            <button type="button" onClick={() => void tail.refetch()}>Refresh</button>
            <button type="button" disabled={choices.previous} title={choices.previous ? 'The previous instance has ended' : undefined} onClick={() => set({ follow: 'true' })}>
              Follow
            </button>
          </>
        )}
      </form>
      {podList.isError ? <ErrorView error={podList.error} retry={() => void podList.refetch()} /> : null}
      {podList.isSuccess && found === undefined ? <Empty>No pod {pod} in {namespace} any more.</Empty> : null}
      {container === null ? null : choices.follow ? (
        <Following url={followUrl(namespace, pod, query)} />
      ) : (
        <QueryView query={tail} what="the log">
          {(data) => (
            <>
              {data.truncated ? <p className="muted">The answer reached its byte cap: the newest lines may be missing. Ask for fewer lines.</p> : null}
              <Lines lines={data.lines} label={`Log of ${data.container}${data.previous ? ', previous instance' : ''}`} />
            </>
          )}
        </QueryView>
      )}
    </>
  );
}
