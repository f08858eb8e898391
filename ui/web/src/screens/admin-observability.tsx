// Admin → Observability (docs/observability.md): the Prometheus source (with a test of the
// form's values before saving), where history comes from, and the scrape config to apply by
// hand. The secret is write-only: the agent answers •••• for a stored one, and keeps it when
// •••• (an untouched field) comes back for the same host.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type SyntheticEvent } from 'react';
import { saveSources, scrapeConfig, setMetricsSource, sources, testSource, type Sources, type SourcesChange, type SourceTest } from '../api/queries/observability';
import { ActionError, QueryView } from '../components/states';

type Auth = 'none' | 'bearer' | 'basic';
interface Draft {
  url: string;
  auth: Auth;
  username: string;
  /** Empty: keep the stored secret (sent as ••••). */
  secret: string;
}

const MASK = '••••';
const draftOf = (s: Sources): Draft => ({ url: s.prometheus?.url ?? '', auth: s.prometheus?.auth ?? 'none', username: s.prometheus?.username ?? '', secret: '' });
const sourceOf = (d: Draft): NonNullable<SourcesChange['prometheus']> => ({
  url: d.url.trim(),
  auth: d.auth,
  ...(d.auth === 'basic' ? { username: d.username.trim() } : {}),
  ...(d.auth === 'none' ? {} : { secret: d.secret === '' ? MASK : d.secret }),
});

function TestResult({ result }: { result: SourceTest }) {
  if (!result.ok) return <p role="status" className="error" data-testid="source-test">Not reachable: {result.message}</p>;
  return (
    <p role="status" data-testid="source-test">
      Prometheus {result.version ?? '(version unknown)'} answered. {result.apiserver_series === true ? 'It holds the API server’s request series.' : result.apiserver_series === false ? 'It holds no API server series: scrape the API server for the API-server panel.' : `The series check failed: ${result.message ?? ''}`}
    </p>
  );
}

function SourceForm({ stored }: { stored: Sources }) {
  const client = useQueryClient();
  const save = useMutation(saveSources(client));
  const remove = useMutation(saveSources(client));
  const test = useMutation(testSource());
  const [draft, setDraft] = useState<Draft | null>(null);
  const d = draft ?? draftOf(stored);
  const storedSecret = stored.prometheus?.secret === MASK;
  const submit = (e: SyntheticEvent<HTMLFormElement>) => (e.preventDefault(), save.mutate({ prometheus: sourceOf(d) }, { onSuccess: () => setDraft(null) }));
  return (
    <form className="stack" onSubmit={submit} aria-labelledby="prometheus-source">
      <h2 id="prometheus-source">Prometheus</h2>
      <p role="status" data-testid="source-state">{stored.prometheus === null ? 'No Prometheus is configured.' : <>Capstan reads <code>{stored.prometheus.url}</code>.</>}</p>
      <label>
        URL (the API is under <code>/api/v1/</code>; metadata, link-local, loopback and the Kubernetes API are refused)
        <input type="url" required value={d.url} onChange={(e) => setDraft({ ...d, url: e.target.value })} />
      </label>
      <label>
        Authentication
        <select value={d.auth} onChange={(e) => setDraft({ ...d, auth: e.target.value as Auth })}>
          <option value="none">none</option>
          <option value="bearer">bearer token</option>
          <option value="basic">basic (username and password)</option>
        </select>
      </label>
      {d.auth === 'basic' ? (
        <label>
          Username
          <input autoComplete="off" value={d.username} onChange={(e) => setDraft({ ...d, username: e.target.value })} />
        </label>
      ) : null}
      {d.auth !== 'none' ? (
        <label>
          {d.auth === 'bearer' ? 'Token' : 'Password'} {storedSecret ? '(one is stored: leave empty to keep it while the host stays the same)' : ''}
          <input type="password" autoComplete="off" placeholder={storedSecret ? MASK : ''} value={d.secret} onChange={(e) => setDraft({ ...d, secret: e.target.value })} />
        </label>
      ) : null}
      <ActionError error={save.error} what="save the source" />
      <ActionError error={remove.error} what="remove the source" />
      <ActionError error={test.error} what="test the source" />
      <div>
        <button type="submit" disabled={save.isPending}>Save source</button>{' '}
        <button type="button" onClick={() => test.mutate(sourceOf(d))} disabled={test.isPending || d.url.trim() === ''}>Test</button>{' '}
        {stored.prometheus !== null ? <button type="button" onClick={() => remove.mutate({ prometheus: null }, { onSuccess: () => setDraft(null) })} disabled={remove.isPending}>Remove source</button> : null}
      </div>
      {test.data ? <TestResult result={test.data} /> : null}
    </form>
  );
}

function MetricsSource({ stored }: { stored: Sources }) {
  const client = useQueryClient();
  const change = useMutation(setMetricsSource(client));
  return (
    <fieldset>
      <legend>History and app network from</legend>
      {(['builtin', 'prometheus'] as const).map((source) => (
        <label key={source} className="inline">
          <input type="radio" name="metrics-source" checked={stored.metrics_source === source} disabled={change.isPending || (source === 'prometheus' && stored.prometheus === null)} onChange={() => change.mutate(source)} /> {source === 'builtin' ? 'Capstan’s own sampler' : 'Prometheus'}
        </label>
      ))}
      <ActionError error={change.error} what="change the metrics source" />
    </fieldset>
  );
}

function CopyBlock({ label, text }: { label: string; text: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="stack">
      <div>
        <strong>{label}</strong>{' '}
        <button type="button" onClick={() => void navigator.clipboard.writeText(text).then(() => setCopied(true))}>{copied ? 'Copied' : `Copy ${label}`}</button>
      </div>
      <pre tabIndex={0} aria-label={label}>{text}</pre>
    </div>
  );
}

function ScrapeConfigSection() {
  const [namespace, setNamespace] = useState('monitoring');
  const config = useQuery(scrapeConfig(namespace));
  return (
    <section aria-labelledby="scrape-config" className="stack">
      <h2 id="scrape-config">Scrape config</h2>
      <p>For a Prometheus that does not scrape node container metrics yet: read-only RBAC and a scrape job, to apply yourself. Capstan applies nothing.</p>
      <label>
        Namespace Prometheus runs in
        <input value={namespace} onChange={(e) => setNamespace(e.target.value.trim() || 'monitoring')} />
      </label>
      <QueryView query={config} what="the scrape config">
        {(c) => (
          <>
            <p className="error" role="note">{c.warning}</p>
            <CopyBlock label="RBAC" text={c.rbac} />
            <CopyBlock label="Scrape job" text={c.scrape_config} />
          </>
        )}
      </QueryView>
    </section>
  );
}

export function AdminObservability() {
  const stored = useQuery(sources());
  return (
    <>
      <h1>Observability</h1>
      <QueryView query={stored} what="the observability sources">
        {(s) => (
          <>
            <SourceForm stored={s} />
            <MetricsSource stored={s} />
          </>
        )}
      </QueryView>
      <ScrapeConfigSection />
    </>
  );
}
