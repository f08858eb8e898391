// Creating an application: namespaces and a label selector, with a live preview of the pods
// it would select right now.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useDeferredValue, useState, type SyntheticEvent } from 'react';
import { useLocation } from 'wouter';
import { errorText } from '../api/client';
import { appPreview, createApp } from '../api/queries/apps';
import { namespaces as namespaceList } from '../api/queries/cluster';
import { ActionError } from '../components/states';

/** `app=web, tier in (front, edge), !canary` → the API's selector (Kubernetes' own syntax). */
export function parseSelector(text: string): { match_labels: Record<string, string>; match_expressions: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[] } {
  const match_labels: Record<string, string> = {};
  const match_expressions: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[] = [];
  for (const part of text.split(/,(?![^(]*\))/).map((p) => p.trim()).filter(Boolean)) {
    const set = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/i.exec(part);
    if (set) {
      match_expressions.push({ key: set[1] ?? '', operator: set[2]?.toLowerCase() === 'in' ? 'In' : 'NotIn', values: (set[3] ?? '').split(',').map((v) => v.trim()).filter(Boolean) });
    } else if (part.startsWith('!')) match_expressions.push({ key: part.slice(1).trim(), operator: 'DoesNotExist' });
    else if (part.includes('=')) {
      const [key = '', value = ''] = part.split(/==?/).map((s) => s.trim());
      match_labels[key] = value;
    } else match_expressions.push({ key: part, operator: 'Exists' });
  }
  return { match_labels, match_expressions };
}

export function NewApp() {
  const client = useQueryClient();
  const [, navigate] = useLocation();
  const namespaces = useQuery(namespaceList());
  const [name, setName] = useState('');
  const [chosen, setChosen] = useState<string[]>([]);
  const [selectorText, setSelectorText] = useState('');
  const definition = { name: name || 'preview', namespaces: chosen, selector: parseSelector(selectorText) };
  const deferred = useDeferredValue(JSON.stringify(definition));
  const preview = useQuery(appPreview(JSON.parse(deferred) as typeof definition, chosen.length > 0 && selectorText.trim() !== ''));
  const create = useMutation(createApp(client));

  const submit = (e: SyntheticEvent<HTMLFormElement>) => {
    e.preventDefault();
    create.mutate({ ...definition, name }, { onSuccess: (created) => navigate(`/apps/${created.id}`) });
  };

  return (
    <>
      <h1>New application</h1>
      <form className="stack" onSubmit={submit}>
        <label>
          Name
          <input required value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <fieldset>
          <legend>Namespaces</legend>
          <div className="checks">
            {(namespaces.data?.namespaces ?? []).map((n) => (
              <label key={n.name}>
                <input type="checkbox" checked={chosen.includes(n.name)} onChange={(e) => setChosen(e.target.checked ? [...chosen, n.name] : chosen.filter((c) => c !== n.name))} /> {n.name}
              </label>
            ))}
          </div>
        </fieldset>
        <label>
          Label selector (as kubectl: <code>app in (frontend, cart), tier=web, !canary</code>)
          <input required value={selectorText} onChange={(e) => setSelectorText(e.target.value)} />
        </label>
        <ActionError error={create.error} what="create the application" />
        <button type="submit" disabled={create.isPending}>Create</button>
      </form>
      <section aria-labelledby="preview" aria-live="polite">
        <h2 id="preview">Matching pods now</h2>
        {preview.isFetching ? <p className="muted">Looking…</p> : null}
        {preview.error ? <p className="error">{errorText(preview.error)}</p> : null}
        {preview.data ? (
          <>
            <p>
              {preview.data.total} pods{preview.data.truncated ? ' (first 200 shown)' : ''}
            </p>
            <ul className="grid-list">
              {preview.data.pods.map((p) => (
                <li key={`${p.namespace}/${p.pod}`}>
                  {p.namespace}/{p.pod} <span className="muted">{p.workload} · {p.phase}</span>
                </li>
              ))}
            </ul>
          </>
        ) : null}
      </section>
    </>
  );
}
