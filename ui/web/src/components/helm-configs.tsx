// Admin → Helm configs (docs/helm.md "Saved configs"): repositories and OCI registries saved
// once with their credentials, then named by an install. The password is write-only: the list
// says only whether one is saved (••••).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type SyntheticEvent } from 'react';
import { createHelmConfig, deleteHelmConfig, helmConfigs, type HelmConfig } from '../api/queries/helm';
import { Field, FormError } from './field-error';
import { ExpertRefusal, expertRefusal } from './helm-parts';
import { SortableTable, type Column } from './sortable-table';
import { ActionError, ErrorView, Loading } from './states';
import { Time } from './time';

const EMPTY = { name: '', url: '', username: '', password: '', plainHttp: false };

function DeleteConfig({ config }: { config: HelmConfig }) {
  const client = useQueryClient();
  const remove = useMutation(deleteHelmConfig(client));
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" onClick={() => setAsking(true)}>
        Delete {config.name}
      </button>
    );
  }
  return (
    <span role="group" aria-label={`Delete ${config.name}?`}>
      Installs that name it will be refused.{' '}
      <button type="button" onClick={() => remove.mutate(config.id)} disabled={remove.isPending}>
        Delete it
      </button>{' '}
      <button type="button" onClick={() => setAsking(false)}>
        Keep it
      </button>
      <ActionError error={remove.error} what={`delete ${config.name}`} />
    </span>
  );
}

const COLUMNS: Column<HelmConfig>[] = [
  { key: 'name', label: 'Name', value: (c) => c.name, rowHeader: true },
  { key: 'kind', label: 'Kind', value: (c) => (c.kind === 'oci' ? 'OCI registry' : 'chart repository') },
  { key: 'url', label: 'URL', value: (c) => c.url, render: (c) => <code>{c.url}</code> },
  { key: 'username', label: 'Username', value: (c) => c.username },
  { key: 'password', label: 'Password', value: (c) => (c.password === null ? 'none' : 'saved'), render: (c) => (c.password === null ? 'none' : <span aria-label="a password is saved">{c.password}</span>) },
  { key: 'created', label: 'Saved by', value: (c) => c.created_by, render: (c) => <>{c.created_by}, <Time at={c.created_at} /></> },
  { key: 'actions', label: 'Actions', value: () => null, render: (c) => <DeleteConfig config={c} />, sortable: false },
];

export function HelmConfigs() {
  const client = useQueryClient();
  const list = useQuery(helmConfigs());
  const create = useMutation(createHelmConfig(client));
  const [draft, setDraft] = useState(EMPTY);
  const set = (change: Partial<typeof EMPTY>) => setDraft({ ...draft, ...change });
  const refusal = expertRefusal(list.error ?? create.error);
  const submit = (e: SyntheticEvent<HTMLFormElement>) => {
    e.preventDefault();
    create.mutate(
      { name: draft.name, url: draft.url.trim(), ...(draft.username === '' ? {} : { username: draft.username }), ...(draft.password === '' ? {} : { password: draft.password }), plain_http: draft.plainHttp },
      { onSuccess: () => setDraft(EMPTY) },
    );
  };
  if (refusal !== null) return <ExpertRefusal kind={refusal} admin />;
  return (
    <>
      {list.isPending ? <Loading what="the saved configs" /> : list.error ? <ErrorView error={list.error} retry={() => void list.refetch()} /> : <SortableTable rows={list.data.configs} columns={COLUMNS} rowKey={(c) => String(c.id)} caption="Saved Helm configs" empty="No saved config yet." />}
      <form className="stack" onSubmit={submit} aria-labelledby="helm-config-new" noValidate>
        <h3 id="helm-config-new">Save a config</h3>
        <Field id="helm-config-name" label="Name" field="name" error={create.error} input={(a11y) => <input {...a11y} required maxLength={63} value={draft.name} onChange={(e) => set({ name: e.target.value })} />} />
        <Field
          id="helm-config-url"
          label="URL"
          field="url"
          error={create.error}
          hint={<span className="hint">A chart repository (https://…) or an OCI registry (oci://host/path).</span>}
          input={(a11y) => <input {...a11y} required value={draft.url} onChange={(e) => set({ url: e.target.value })} />}
        />
        <Field id="helm-config-username" label="Username (optional)" field="username" error={create.error} input={(a11y) => <input {...a11y} autoComplete="off" value={draft.username} onChange={(e) => set({ username: e.target.value })} />} />
        <Field
          id="helm-config-password"
          label="Password (optional)"
          field="password"
          error={create.error}
          hint={<span className="hint">Sealed at rest; never shown again.</span>}
          input={(a11y) => <input {...a11y} type="password" autoComplete="new-password" value={draft.password} onChange={(e) => set({ password: e.target.value })} />}
        />
        <label className="inline">
          <input type="checkbox" checked={draft.plainHttp} onChange={(e) => set({ plainHttp: e.target.checked })} /> An OCI registry over plain HTTP (its credentials cross the network in the clear)
        </label>
        <FormError error={create.error} what="save the config" fields={['name', 'url', 'username', 'password']} />
        <div>
          <button type="submit" disabled={create.isPending}>
            {create.isPending ? 'Saving…' : 'Save'}
          </button>
        </div>
      </form>
    </>
  );
}
