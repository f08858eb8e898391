// Admin → AI: the provider (AI Settings, with test connection), AI Guardrails, the SRE report
// schedule and the prompt audit. Each form holds a draft of its settings; the queries and
// mutations live in api/queries/ai-admin.ts. The key is write-only: the agent never returns it.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type SyntheticEvent } from 'react';
import { Link } from 'wouter';
import { aiSettings, guardrails, promptLog, reportSchedule, runReport, testConnection, updateAiSettings, updateGuardrails, updateReportSchedule, type AiSettings, type AiSettingsChange, type Guardrails, type PromptLogEntry, type ReportSchedule } from '../api/queries/ai-admin';
import { SortableTable, type Column } from '../components/sortable-table';
import { ActionError, QueryView } from '../components/states';
import { Time } from '../components/time';

const PROVIDERS = ['openai', 'anthropic', 'azure', 'openai_compatible', 'ollama'] as const;
type Provider = (typeof PROVIDERS)[number];
const lines = (text: string) => text.split(/[\n,]/).map((s) => s.trim()).filter(Boolean);

interface ProviderDraft {
  provider: Provider | '';
  model: string;
  base_url: string;
  key: string;
  removeKey: boolean;
}

const draftOf = (s: AiSettings): ProviderDraft => ({ provider: s.provider ?? '', model: s.model, base_url: s.base_url ?? '', key: '', removeKey: false });

/** An empty key field keeps the stored key; a typed one replaces it; "remove" deletes it. */
function changeOf(d: ProviderDraft): AiSettingsChange {
  return {
    provider: d.provider === '' ? null : d.provider,
    model: d.model.trim() === '' ? 'default' : d.model.trim(),
    base_url: d.base_url.trim() === '' ? null : d.base_url.trim(),
    ...(d.removeKey ? { api_key: null } : d.key !== '' ? { api_key: d.key } : {}),
  };
}

function ProviderForm({ settings }: { settings: AiSettings }) {
  const client = useQueryClient();
  const save = useMutation(updateAiSettings(client));
  const test = useMutation(testConnection());
  const [draft, setDraft] = useState<ProviderDraft | null>(null);
  const d = draft ?? draftOf(settings);
  const submit = (e: SyntheticEvent<HTMLFormElement>) => (e.preventDefault(), save.mutate(changeOf(d), { onSuccess: () => setDraft(null) }));
  return (
    <form className="stack" onSubmit={submit} aria-labelledby="ai-provider">
      <h2 id="ai-provider">Provider</h2>
      <p role="status">
        {settings.model_ready ? <>Runs reach the model <code>{settings.provider}/{settings.model}</code>.</> : <>No model is used now: {settings.reason ?? 'no provider is configured'}. Chat and Diagnose answer from the diagnosis, labelled so.</>}
      </p>
      <label>
        Provider
        <select value={d.provider} onChange={(e) => setDraft({ ...d, provider: e.target.value as Provider | '' })}>
          <option value="">none (answers without a model)</option>
          {PROVIDERS.map((p) => (
            <option key={p} value={p}>{p}</option>
          ))}
        </select>
      </label>
      <label>
        Model (for Azure, the deployment name)
        <input value={d.model} onChange={(e) => setDraft({ ...d, model: e.target.value })} />
      </label>
      <label>
        Base URL (required for Azure and OpenAI-compatible; Ollama defaults to http://localhost:11434/v1)
        <input type="url" value={d.base_url} onChange={(e) => setDraft({ ...d, base_url: e.target.value })} />
      </label>
      <label>
        API key {settings.api_key !== null ? '(one is stored: leave empty to keep it)' : '(none stored)'}
        <input type="password" autoComplete="off" placeholder={settings.api_key ?? ''} value={d.key} disabled={d.removeKey} onChange={(e) => setDraft({ ...d, key: e.target.value })} />
      </label>
      {settings.api_key !== null ? (
        <label className="inline">
          <input type="checkbox" checked={d.removeKey} onChange={(e) => setDraft({ ...d, removeKey: e.target.checked, key: '' })} /> Remove the stored key
        </label>
      ) : null}
      <ActionError error={save.error} what="save the provider" />
      <div>
        <button type="submit" disabled={save.isPending}>Save provider</button>{' '}
        <button type="button" onClick={() => test.mutate()} disabled={test.isPending || draft !== null}>Test connection</button>
      </div>
      {draft !== null ? <p className="muted">Save first: the test uses the stored settings.</p> : null}
      <ActionError error={test.error} what="test the connection" />
      {test.data ? (
        <p role="status" className={test.data.ok ? '' : 'error'}>
          {test.data.ok ? `Connected to ${test.data.model ?? 'the provider'} in ${test.data.latency_ms ?? '?'} ms.` : `Connection failed: ${test.data.error ?? 'no reason given'}`}
        </p>
      ) : null}
    </form>
  );
}

function Checkbox({ label, checked, onChange }: { label: string; checked: boolean; onChange: (v: boolean) => void }) {
  return (
    <label className="inline">
      <input type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} /> {label}
    </label>
  );
}

function NumberField({ label, value, min, max, onChange }: { label: string; value: number; min: number; max: number; onChange: (v: number) => void }) {
  return (
    <label>
      {label}
      <input type="number" min={min} max={max} value={value} onChange={(e) => onChange(Number(e.target.value))} />
    </label>
  );
}

function ListField({ label, value, onChange }: { label: string; value: string[]; onChange: (v: string[]) => void }) {
  const [text, setText] = useState(value.join('\n'));
  return (
    <label>
      {label}
      <textarea rows={3} value={text} onChange={(e) => (setText(e.target.value), onChange(lines(e.target.value)))} />
    </label>
  );
}

function GuardrailsForm({ current }: { current: Guardrails }) {
  const client = useQueryClient();
  const save = useMutation(updateGuardrails(client));
  const [draft, setDraft] = useState<Guardrails | null>(null);
  const g = draft ?? current;
  const set = (change: Partial<Guardrails>) => setDraft({ ...g, ...change });
  // Lists keep their own text while typing; a saved answer remounts them with what was stored.
  const [generation, setGeneration] = useState(0);
  const submit = (e: SyntheticEvent<HTMLFormElement>) => (e.preventDefault(), save.mutate(g, { onSuccess: () => (setDraft(null), setGeneration((n) => n + 1)) }));
  return (
    <form className="stack" onSubmit={submit} aria-labelledby="ai-guardrails" key={generation}>
      <h2 id="ai-guardrails">Guardrails</h2>
      <Checkbox label="AI enabled (off: every AI-backed call is refused; MCP read tools keep working)" checked={g.enabled} onChange={(enabled) => set({ enabled })} />
      <label>
        Data residency
        <select value={g.residency} onChange={(e) => set({ residency: e.target.value as Guardrails['residency'] })}>
          <option value="any">any provider</option>
          <option value="local_only">local only (no key, a private endpoint)</option>
        </select>
      </label>
      <ListField label="AI namespace scope (one a line; empty: every namespace the caller may see)" value={g.namespace_scope} onChange={(namespace_scope) => set({ namespace_scope })} />
      <Checkbox label="Redact what is sent to a provider" checked={g.redaction.enabled} onChange={(enabled) => set({ redaction: { ...g.redaction, enabled } })} />
      <ListField label="Extra literals to redact (one a line; literals, never patterns)" value={g.redaction.extra_literals} onChange={(extra_literals) => set({ redaction: { ...g.redaction, extra_literals } })} />
      <ListField label="Denied tools (MCP tool names, one a line)" value={g.denied_tools} onChange={(denied_tools) => set({ denied_tools })} />
      <ListField label="Egress allowlist: provider hosts (one a line, *.domain allowed; empty: any)" value={g.egress_allowlist} onChange={(egress_allowlist) => set({ egress_allowlist })} />
      <Checkbox label="Prompt audit (what was sent and received, redacted)" checked={g.prompt_audit.enabled} onChange={(enabled) => set({ prompt_audit: { ...g.prompt_audit, enabled } })} />
      <NumberField label="Prompt audit kept for (days)" value={g.prompt_audit.retention_days} min={1} max={365} onChange={(retention_days) => set({ prompt_audit: { ...g.prompt_audit, retention_days } })} />
      <NumberField label="Tokens per person per day (0: unlimited)" value={g.cost_caps.daily_tokens_per_actor} min={0} max={1_000_000_000} onChange={(daily_tokens_per_actor) => set({ cost_caps: { ...g.cost_caps, daily_tokens_per_actor } })} />
      <NumberField label="Tokens per day for the install (0: unlimited)" value={g.cost_caps.daily_tokens_install} min={0} max={1_000_000_000} onChange={(daily_tokens_install) => set({ cost_caps: { ...g.cost_caps, daily_tokens_install } })} />
      <NumberField label="AI runs per viewer per day (0: unlimited; admins not counted)" value={g.cost_caps.viewer_ai_daily_limit} min={0} max={100_000} onChange={(viewer_ai_daily_limit) => set({ cost_caps: { ...g.cost_caps, viewer_ai_daily_limit } })} />
      <ActionError error={save.error} what="save the guardrails" />
      <button type="submit" disabled={save.isPending}>Save guardrails</button>
    </form>
  );
}

function ReportsForm({ schedule }: { schedule: ReportSchedule }) {
  const client = useQueryClient();
  const save = useMutation(updateReportSchedule(client));
  const run = useMutation(runReport(client));
  const [draft, setDraft] = useState<ReportSchedule | null>(null);
  const s = draft ?? schedule;
  return (
    <form className="stack" onSubmit={(e) => (e.preventDefault(), save.mutate(s, { onSuccess: () => setDraft(null) }))} aria-labelledby="ai-reports">
      <h2 id="ai-reports">Scheduled SRE reports</h2>
      <Checkbox label="Write a report on a schedule" checked={s.enabled} onChange={(enabled) => setDraft({ ...s, enabled })} />
      <NumberField label="Every how many hours (1–168)" value={s.every_hours} min={1} max={168} onChange={(every_hours) => setDraft({ ...s, every_hours })} />
      <ActionError error={save.error} what="save the schedule" />
      <div>
        <button type="submit" disabled={save.isPending}>Save schedule</button>{' '}
        <button type="button" onClick={() => run.mutate()} disabled={run.isPending}>{run.isPending ? 'Writing a report…' : 'Run a report now'}</button>
      </div>
      <ActionError error={run.error} what="run a report" />
      {run.data ? (
        <p role="status">
          <Link href={`/copilot/answers/${run.data.id}`}>Report written</Link>
          {run.data.posted === null ? ' (no chat webhook is configured)' : run.data.posted ? ', posted to the chat webhook' : ', but the chat webhook did not take it'}.
        </p>
      ) : null}
    </form>
  );
}

/** The last runs, newest first, as the agent returns them: a sort would only reorder a window of the audit. */
const PROMPT_LOG_COLUMNS: Column<PromptLogEntry>[] = [
  { key: 'when', label: 'When', value: (e) => e.ts, render: (e) => <Time at={e.ts} /> },
  { key: 'who', label: 'Who', value: (e) => e.actor },
  { key: 'kind', label: 'Kind', value: (e) => e.kind },
  { key: 'model', label: 'Model', value: (e) => `${e.provider}/${e.model}` },
  { key: 'tokens', label: 'Tokens in/out', value: (e) => `${e.input_tokens} / ${e.output_tokens}` },
  {
    key: 'exchange',
    label: 'Exchange',
    value: () => null,
    render: (e) => (
      <details>
        <summary>Sent and received</summary>
        <pre className="log">{e.sent}</pre>
        <pre className="log">{e.received}</pre>
      </details>
    ),
  },
];

function PromptLogView() {
  const query = useQuery(promptLog());
  return (
    <section aria-labelledby="ai-prompt-log">
      <h2 id="ai-prompt-log">Prompt audit</h2>
      <QueryView query={query} what="the prompt audit">
        {(log) => (
          <SortableTable
            rows={log.items}
            columns={PROMPT_LOG_COLUMNS}
            rowKey={(e) => String(e.id)}
            caption={`The last ${log.items.length} runs that reached a provider (redacted; kept ${log.retention_days} days)`}
            sortable={false}
            empty={`Nothing was sent to a provider in the last ${log.retention_days} days.`}
          />
        )}
      </QueryView>
    </section>
  );
}

export function AdminAi() {
  const settings = useQuery(aiSettings());
  const rails = useQuery(guardrails());
  const schedule = useQuery(reportSchedule());
  return (
    <>
      <h1>AI</h1>
      <p className="muted">
        The copilot reads the cluster and never changes it. Documents every run is given live in <Link href="/ai/context">AI Context</Link>.
      </p>
      <QueryView query={settings} what="AI settings">{(s) => <ProviderForm settings={s} />}</QueryView>
      <QueryView query={rails} what="AI guardrails">{(g) => <GuardrailsForm current={g} />}</QueryView>
      <QueryView query={schedule} what="the report schedule">{(s) => <ReportsForm schedule={s} />}</QueryView>
      <PromptLogView />
    </>
  );
}
