// AI Context: the admins' markdown documents the copilot reads (runbooks, conventions, known
// issues). Everyone signed in reads them; admins write them. The page says plainly that a
// document asking to leave something out is an instruction to the model, not a filter.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type SyntheticEvent } from 'react';
import { Link, useLocation } from 'wouter';
import { contextDocument, contextDocuments, createContextDocument, deleteContextDocument, updateContextDocument, type ContextDocumentInput, type ContextDocuments } from '../api/queries/ai-context';
import { me as meQuery } from '../api/queries/session';
import { SortableTable, type Column } from '../components/sortable-table';
import { ActionError, QueryView } from '../components/states';
import { Time } from '../components/time';

function SuppressionNote({ note }: { note: string }) {
  return (
    <section className="card notice" aria-labelledby="suppression-title">
      <h2 id="suppression-title">Not a filter</h2>
      <p>{note}</p>
    </section>
  );
}

function DocumentForm({ initial, submitLabel, pending, error, onSubmit, limits }: { initial: ContextDocumentInput; submitLabel: string; pending: boolean; error: unknown; onSubmit: (doc: ContextDocumentInput) => void; limits: { max_title_chars: number; max_body_chars: number } | undefined }) {
  const [doc, setDoc] = useState(initial);
  const submit = (e: SyntheticEvent<HTMLFormElement>) => (e.preventDefault(), onSubmit(doc));
  return (
    <form className="stack" onSubmit={submit}>
      <label>
        Title
        <input required maxLength={limits?.max_title_chars} value={doc.title} onChange={(e) => setDoc({ ...doc, title: e.target.value })} />
      </label>
      <label>
        Markdown ({doc.body.length.toLocaleString()}{limits ? ` of ${limits.max_body_chars.toLocaleString()}` : ''} characters)
        <textarea rows={10} maxLength={limits?.max_body_chars} value={doc.body} onChange={(e) => setDoc({ ...doc, body: e.target.value })} />
      </label>
      <label className="inline">
        <input type="checkbox" checked={doc.include_in_ai ?? false} onChange={(e) => setDoc({ ...doc, include_in_ai: e.target.checked })} /> Give it to every AI run as a standing instruction
      </label>
      <ActionError error={error} what={submitLabel.toLowerCase()} />
      <button type="submit" disabled={pending}>{submitLabel}</button>
    </form>
  );
}

type DocumentSummary = ContextDocuments['items'][number];

const DOCUMENT_COLUMNS: Column<DocumentSummary>[] = [
  { key: 'title', label: 'Title', value: (d) => d.title, render: (d) => <Link href={`/ai/context/${d.id}`}>{d.title}</Link> },
  { key: 'standing', label: 'Every run', value: (d) => (d.include_in_ai ? 'yes' : 'no') },
  { key: 'chars', label: 'Characters', value: (d) => d.chars, render: (d) => d.chars.toLocaleString() },
  { key: 'updated', label: 'Updated', value: (d) => d.updated_at, render: (d) => <><Time at={d.updated_at} /> by {d.updated_by}</> },
];

export function AiContextList() {
  const client = useQueryClient();
  const me = useQuery(meQuery());
  const query = useQuery(contextDocuments());
  const create = useMutation(createContextDocument(client));
  const [formKey, setFormKey] = useState(0);
  const admin = me.data?.role === 'admin';
  return (
    <>
      <h1>AI Context</h1>
      <QueryView query={query} what="AI Context documents">
        {(data) => (
          <>
            <SuppressionNote note={data.note} />
            <p className="muted">
              {data.items.length} of {data.limits.max_documents} documents. Standing ones: {data.standing.documents}, about {data.standing.tokens.toLocaleString()} tokens of the {data.standing.budget_tokens.toLocaleString()} a run gives them; what does not fit is left out of that run. The copilot searches the rest when a question needs them.
            </p>
            <SortableTable rows={data.items} columns={DOCUMENT_COLUMNS} rowKey={(d) => String(d.id)} caption="Documents" searchLabel="Search documents" empty="No document yet." />
            {admin ? (
              <section aria-labelledby="new-doc">
                <h2 id="new-doc">New document</h2>
                <DocumentForm key={formKey} initial={{ title: '', body: '', include_in_ai: false }} submitLabel="Add document" pending={create.isPending} error={create.error} limits={data.limits} onSubmit={(doc) => create.mutate(doc, { onSuccess: () => setFormKey((k) => k + 1) })} />
              </section>
            ) : null}
          </>
        )}
      </QueryView>
    </>
  );
}

export function AiContextDocumentView({ id }: { id: number }) {
  const client = useQueryClient();
  const [, navigate] = useLocation();
  const me = useQuery(meQuery());
  const query = useQuery(contextDocument(id));
  // The caps come with the list; the agent enforces them whatever the form knows.
  const list = useQuery(contextDocuments());
  const update = useMutation(updateContextDocument(client));
  const remove = useMutation(deleteContextDocument(client));
  const [editing, setEditing] = useState(false);
  const admin = me.data?.role === 'admin';
  return (
    <>
      <p className="crumbs"><Link href="/ai/context">AI Context</Link></p>
      <QueryView query={query} what="the document">
        {(doc) => (
          <>
            <h1>{doc.title}</h1>
            <p className="muted">
              {doc.include_in_ai ? 'Given to every AI run as a standing instruction' : 'Searched when a question needs it'} · updated <Time at={doc.updated_at} /> by {doc.updated_by}
            </p>
            {editing ? (
              <DocumentForm initial={{ title: doc.title, body: doc.body, include_in_ai: doc.include_in_ai }} submitLabel="Save document" pending={update.isPending} error={update.error} limits={list.data?.limits} onSubmit={(next) => update.mutate({ id, ...next }, { onSuccess: () => setEditing(false) })} />
            ) : (
              <pre className="document">{doc.body}</pre>
            )}
            {admin && !editing ? (
              <p>
                <button type="button" onClick={() => setEditing(true)}>Edit</button>{' '}
                <button type="button" onClick={() => remove.mutate(id, { onSuccess: () => navigate('/ai/context') })} disabled={remove.isPending}>Delete {doc.title}</button>
              </p>
            ) : null}
            <ActionError error={remove.error} what="delete the document" />
          </>
        )}
      </QueryView>
    </>
  );
}
