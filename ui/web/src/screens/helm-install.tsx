// Installing or upgrading a Helm chart (docs/helm.md): one form, previewed (the dry run's diff)
// before it may be sent, answered with a Task the tray follows.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type SyntheticEvent } from 'react';
import { Link, useSearch } from 'wouter';
import { ApiError } from '../api/client';
import { namespaces as namespaceList } from '../api/queries/cluster';
import {
  diffRelease,
  helmConfigs,
  installRelease,
  releaseHref,
  upgradeRelease,
  type ChartSource,
  type HelmDiff,
  type HelmDiffRequest,
  type HelmInstall,
} from '../api/queries/helm';
import { me } from '../api/queries/session';
import { Field, FormError } from '../components/field-error';

import { ExpertRefusal, expertRefusal, TaskStarted } from '../components/helm-parts';

// ---------------------------------------------------------------------------------------------
// Install and upgrade: one form, previewed (the dry run's diff) before it may be sent.

/** Where the chart comes from: a repository URL, an OCI registry, or a saved config (Admin → Expert mode). */
type SourceKind = 'repository' | 'oci' | 'saved';

interface Draft {
  namespace: string;
  name: string;
  source: SourceKind;
  repoUrl: string;
  ociUrl: string;
  plainHttp: boolean;
  configId: string;
  chart: string;
  version: string;
  values: string;
  wait: boolean;
  timeout: string;
}

export const EMPTY_DRAFT: Draft = { namespace: '', name: '', source: 'repository', repoUrl: '', ociUrl: '', plainHttp: false, configId: '', chart: '', version: '', values: '{}', wait: false, timeout: '300' };

/** The values text as the agent takes them (a JSON object), or why it is not one. */
function parseValues(text: string): { ok: true; values: Record<string, unknown> } | { ok: false; problem: string } {
  if (text.trim() === '') return { ok: true, values: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { ok: false, problem: `Values are not valid JSON: ${err instanceof Error ? err.message : String(err)}.` };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    const what = parsed === null ? 'null' : Array.isArray(parsed) ? 'an array' : `a ${typeof parsed}`;
    return { ok: false, problem: `Values must be a JSON object, such as {"greeting": "hello"}, not ${what}.` };
  }
  // The agent shows secret-looking values masked; sending the mask would overwrite the real value.
  if (text.includes('[REDACTED]')) return { ok: false, problem: 'Values still hold "[REDACTED]", the mask of a secret-looking value: type the real value, or remove the key for the chart\'s default.' };
  return { ok: true, values: parsed as Record<string, unknown> };
}

function requestOf(d: Draft): { ok: true; request: HelmInstall } | { ok: false; problem: string; field: 'values' | 'source' } {
  const values = parseValues(d.values);
  if (!values.ok) return { ...values, field: 'values' };
  const version = d.version.trim();
  const where: Pick<ChartSource, 'repo_url' | 'oci_url' | 'config_id' | 'plain_http'> =
    d.source === 'oci' ? { oci_url: d.ociUrl.trim(), plain_http: d.plainHttp } : d.source === 'saved' ? { config_id: Number(d.configId) } : { repo_url: d.repoUrl.trim() };
  if (d.source === 'saved' && d.configId === '') return { ok: false, problem: 'Choose a saved config.', field: 'source' };
  const chart: ChartSource = { ...where, name: d.chart.trim(), ...(version === '' ? {} : { version }) };
  const timeout = d.timeout.trim();
  return { ok: true, request: { namespace: d.namespace, name: d.name.trim(), chart, values: values.values, wait: d.wait, ...(timeout === '' ? {} : { timeout_secs: Number(timeout) }) } };
}

const diffOf = ({ namespace, name, chart, values }: HelmDiffRequest): HelmDiffRequest => ({ namespace, name, chart, values });
/** What the preview depends on: the release, the chart and the values (not --wait or its timeout). */
const previewKey = (request: HelmDiffRequest): string => JSON.stringify(diffOf(request));

function DiffView({ diff }: { diff: HelmDiff }) {
  const id = useId();
  return (
    <section aria-labelledby={id} className="helm-diff">
      <h2 id={id}>Preview</h2>
      <p data-testid="helm-diff-counts">
        {diff.installed ? `An upgrade of the installed release to ${diff.chart} ${diff.chart_version}` : `An install of ${diff.chart} ${diff.chart_version}: every line is new`}.{' '}
        <strong className="diff-added">+{diff.added}</strong> / <strong className="diff-removed">−{diff.removed}</strong> lines.
      </p>
      {diff.diff === '' ? (
        <p>Nothing would change.</p>
      ) : (
        <pre className="log tall diff" tabIndex={0} aria-label="The changes, as a unified diff (Secrets' data hidden)" data-testid="helm-diff">
          {diff.diff.split('\n').map((line, i) => (
            <span key={i} className={line.startsWith('+') && !line.startsWith('+++') ? 'add' : line.startsWith('-') && !line.startsWith('---') ? 'del' : undefined}>
              {line}
              {'\n'}
            </span>
          ))}
        </pre>
      )}
    </section>
  );
}

export function ChartForm({ mode, initial }: { mode: 'install' | 'upgrade'; initial: Draft }) {
  const client = useQueryClient();
  const nsList = useQuery({ ...namespaceList(), enabled: mode === 'install' });
  const diff = useMutation(diffRelease());
  const install = useMutation(installRelease(client));
  const upgrade = useMutation(upgradeRelease(client));
  const write = mode === 'install' ? install : upgrade;
  const [draft, setDraft] = useState<Draft>(initial);
  const set = (change: Partial<Draft>) => setDraft({ ...draft, ...change });
  const parsed = requestOf(draft);
  const current = parsed.ok ? previewKey(parsed.request) : null;
  // The preview shown is of this form as it is now; any change to what it depends on asks for a new one.
  const fresh = diff.isSuccess && current !== null && previewKey(diff.variables) === current;
  const sent = write.isSuccess && current !== null && previewKey(write.variables) === current;
  const error = write.error ?? diff.error;
  const refusal = expertRefusal(error);
  const p = `helm-${mode}`;
  const verb = mode === 'install' ? 'Install' : 'Upgrade';
  const sourceFields = ['chart.repo_url', 'chart.oci_url', 'chart.config_id', 'chart.name', 'chart.version', 'values', 'timeout_secs'];
  const fields = mode === 'install' ? ['namespace', 'name', ...sourceFields] : sourceFields;
  const saved = useQuery({ ...helmConfigs(), enabled: draft.source === 'saved' });

  const preview = () => {
    if (!parsed.ok) return;
    write.reset();
    diff.mutate(diffOf(parsed.request));
  };
  const submit = (e: SyntheticEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (!parsed.ok || !fresh) return;
    write.mutate(parsed.request);
  };

  return (
    <form className="stack" onSubmit={submit} aria-labelledby={`${p}-title`} noValidate>
      <h2 id={`${p}-title`}>{mode === 'install' ? 'The chart and its values' : `Upgrade ${initial.name}`}</h2>
      {mode === 'install' ? (
        <>
          <Field
            id={`${p}-namespace`}
            label="Namespace"
            field="namespace"
            error={error}
            input={(a11y) => (
              <select {...a11y} required value={draft.namespace} onChange={(e) => set({ namespace: e.target.value })}>
                <option value="">choose a namespace</option>
                {(nsList.data?.namespaces ?? []).map((n) => (
                  <option key={n.name} value={n.name}>
                    {n.name}
                  </option>
                ))}
              </select>
            )}
          />
          <Field
            id={`${p}-name`}
            label="Release name"
            field="name"
            error={error}
            hint={<span className="hint">Lowercase letters, digits and dashes, at most 53 characters.</span>}
            input={(a11y) => <input {...a11y} required maxLength={53} value={draft.name} onChange={(e) => set({ name: e.target.value })} />}
          />
        </>
      ) : null}
      <Field
        id={`${p}-source`}
        label="Where the chart comes from"
        field="chart"
        error={error}
        input={(a11y) => (
          <select {...a11y} value={draft.source} onChange={(e) => set({ source: e.target.value as SourceKind })}>
            <option value="repository">a chart repository</option>
            <option value="oci">an OCI registry</option>
            <option value="saved">a saved config (its credentials)</option>
          </select>
        )}
      />
      {draft.source === 'repository' ? (
        <Field
          id={`${p}-repo`}
          label="Repository URL"
          field="chart.repo_url"
          error={error}
          hint={<span className="hint">A chart repository: its index.yaml lists the chart.</span>}
          input={(a11y) => <input {...a11y} type="url" required placeholder="https://charts.example.com" value={draft.repoUrl} onChange={(e) => set({ repoUrl: e.target.value })} />}
        />
      ) : draft.source === 'oci' ? (
        <>
          <Field
            id={`${p}-oci`}
            label="Registry location"
            field="chart.oci_url"
            error={error}
            hint={<span className="hint">oci://host/path, without the chart&apos;s name; a version is required.</span>}
            input={(a11y) => <input {...a11y} required placeholder="oci://registry.example.com/charts" value={draft.ociUrl} onChange={(e) => set({ ociUrl: e.target.value })} />}
          />
          <label className="inline">
            <input type="checkbox" checked={draft.plainHttp} onChange={(e) => set({ plainHttp: e.target.checked })} /> Plain HTTP (Helm&apos;s --plain-http)
          </label>
        </>
      ) : (
        <Field
          id={`${p}-config`}
          label="Saved config"
          field="chart.config_id"
          error={error ?? saved.error}
          hint={<span className="hint">Saved under Admin → Expert mode; its password is used, never shown.</span>}
          input={(a11y) => (
            <select {...a11y} required value={draft.configId} onChange={(e) => set({ configId: e.target.value })}>
              <option value="">choose a saved config</option>
              {(saved.data?.configs ?? []).map((c) => (
                <option key={c.id} value={String(c.id)}>
                  {c.name} ({c.url})
                </option>
              ))}
            </select>
          )}
        />
      )}
      <Field id={`${p}-chart`} label="Chart name" field="chart.name" error={error} input={(a11y) => <input {...a11y} required value={draft.chart} onChange={(e) => set({ chart: e.target.value })} />} />
      <Field
        id={`${p}-version`}
        label="Version (optional)"
        field="chart.version"
        error={error}
        hint={<span className="hint">Empty: the newest the repository lists.</span>}
        input={(a11y) => <input {...a11y} value={draft.version} onChange={(e) => set({ version: e.target.value })} />}
      />
      <div className="field">
        <label>
          Values (a JSON object)
          <textarea
            rows={8}
            spellCheck={false}
            className="code"
            value={draft.values}
            aria-invalid={(!parsed.ok && parsed.field === 'values') || (error instanceof ApiError && error.body.field === 'values')}
            aria-describedby={(!parsed.ok && parsed.field === 'values') || (error instanceof ApiError && error.body.field === 'values') ? `${p}-values-error` : undefined}
            onChange={(e) => set({ values: e.target.value })}
          />
        </label>
        {!parsed.ok && parsed.field === 'values' ? (
          <span id={`${p}-values-error`} role="alert" className="error">
            {parsed.problem}
          </span>
        ) : error instanceof ApiError && error.body.field === 'values' ? (
          <span id={`${p}-values-error`} role="alert" className="error">
            values: {error.body.message}
          </span>
        ) : null}
      </div>
      <label className="inline">
        <input type="checkbox" checked={draft.wait} onChange={(e) => set({ wait: e.target.checked })} /> Wait until every resource is ready (Helm&apos;s --wait)
      </label>
      <Field
        id={`${p}-timeout`}
        label="Timeout in seconds (10 to 900)"
        field="timeout_secs"
        error={error}
        input={(a11y) => <input {...a11y} type="number" min={10} max={900} value={draft.timeout} onChange={(e) => set({ timeout: e.target.value })} />}
      />
      {refusal !== null ? <ExpertRefusal kind={refusal} admin /> : <FormError error={error} what={write.error ? `${verb.toLowerCase()} the chart` : 'preview the changes'} fields={fields} />}
      <div>
        <button type="button" onClick={preview} disabled={!parsed.ok || diff.isPending}>
          {diff.isPending ? 'Previewing…' : 'Preview changes'}
        </button>{' '}
        <button type="submit" disabled={!fresh || write.isPending || sent} aria-describedby={fresh ? undefined : `${p}-first`}>
          {write.isPending ? `${verb === 'Install' ? 'Installing' : 'Upgrading'}…` : verb}
        </button>
      </div>
      {!fresh ? (
        <p id={`${p}-first`} className="hint">
          Preview the changes first: {verb} is enabled once the preview shows what this form would do.
        </p>
      ) : null}
      {write.isSuccess ? <TaskStarted started={write.data} what={`${mode === 'install' ? 'install' : 'upgrade'} ${write.variables.chart.name} ${write.variables.chart.version ?? '(newest)'} as ${write.variables.namespace}/${write.variables.name}`} /> : null}
      {write.isSuccess ? (
        <p>
          <Link href={releaseHref(write.variables)}>Open release {write.variables.name}</Link> · <Link href={`/helm?namespace=${encodeURIComponent(write.variables.namespace)}`}>Releases in {write.variables.namespace}</Link>
        </p>
      ) : null}
      {fresh ? <DiffView diff={diff.data} /> : null}
    </form>
  );
}

export function HelmInstallScreen() {
  const who = useQuery(me());
  const namespace = new URLSearchParams(useSearch()).get('namespace') ?? '';
  return (
    <>
      <p className="crumbs">
        <Link href="/helm">Helm</Link> / Install a chart
      </p>
      <h1>Install a chart</h1>
      {who.data?.role === 'admin' ? (
        <>
          <p className="muted">Helm installs it through the expert pod. Preview the changes (a dry run on the API server, Secrets&apos; data hidden), then install: the Task that runs it appears in the Tasks tray.</p>
          <ChartForm mode="install" initial={{ ...EMPTY_DRAFT, namespace }} />
        </>
      ) : (
        <p>Only admins install charts.</p>
      )}
    </>
  );
}

