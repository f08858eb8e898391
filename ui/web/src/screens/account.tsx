// Your password, your API keys (scopes chosen one by one, nothing preselected; the secret shown
// once), your connected apps, your second factor (enrol with a QR code) and your sessions. Each section is
// a container (its queries and mutations) around a view that only renders.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type SyntheticEvent } from 'react';
import { encode } from 'uqr';
import { apiKeys, createApiKey, revokeApiKey, SCOPES, type ApiKey, type Scope } from '../api/queries/api-keys';
import { grants, revokeGrant, type Grant } from '../api/queries/oauth';
import { beginEnrolment, confirmEnrolment, disableSecondFactor, secondFactor } from '../api/queries/second-factor';
import { changePassword } from '../api/queries/password';
import { mySessions, revokeSession, type Session } from '../api/queries/sessions';
import { Field, FormError } from '../components/field-error';
import { SortableTable, type Column } from '../components/sortable-table';
import { ActionError, Empty, failureOf, QueryView, type Failure } from '../components/states';
import { Time } from '../components/time';

function CreateKey() {
  const client = useQueryClient();
  const create = useMutation(createApiKey(client));
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>([]);
  const [secret, setSecret] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const submit = (e: SyntheticEvent<HTMLFormElement>) => {
    e.preventDefault();
    setCopied(false);
    create.mutate(
      { name, scopes },
      {
        onSuccess: (created) => {
          setSecret(created.key);
          setName('');
          setScopes([]);
        },
      },
    );
  };
  return (
    <form className="stack" onSubmit={submit} aria-labelledby="new-key">
      <h3 id="new-key">New API key</h3>
      <label>
        Name
        <input required value={name} onChange={(e) => setName(e.target.value)} />
      </label>
      <fieldset>
        <legend>Scopes (choose what the key may do)</legend>
        <div className="checks">
          {(Object.keys(SCOPES) as Scope[]).map((s) => (
            <label key={s} title={SCOPES[s]}>
              <input type="checkbox" name="scope" value={s} checked={scopes.includes(s)} onChange={(e) => setScopes(e.target.checked ? [...scopes, s] : scopes.filter((x) => x !== s))} /> {s}
            </label>
          ))}
        </div>
      </fieldset>
      <ActionError error={create.error} what="create the key" />
      <button type="submit" disabled={create.isPending}>Create key</button>
      {secret ? (
        <div className="card secret" role="status">
          <p>Copy this key now: it is shown only once.</p>
          <code data-testid="api-key-secret">{secret}</code>{' '}
          <button type="button" onClick={() => void navigator.clipboard.writeText(secret).then(() => setCopied(true))}>
            {copied ? 'Copied' : 'Copy'}
          </button>
        </div>
      ) : null}
    </form>
  );
}

function apiKeyColumns(onRevoke: (id: number) => void, failure: Failure<number> | null): Column<ApiKey>[] {
  return [
    { key: 'name', label: 'Name', value: (k) => k.name },
    { key: 'prefix', label: 'Prefix', value: (k) => k.prefix, render: (k) => <code>{k.prefix}</code> },
    { key: 'scopes', label: 'Scopes', value: (k) => k.scopes.join(', ') },
    { key: 'created', label: 'Created', value: (k) => k.created_at, render: (k) => <Time at={k.created_at} /> },
    { key: 'used', label: 'Last used', value: (k) => k.last_used_at, render: (k) => <Time at={k.last_used_at} absent="never" /> },
    {
      key: 'state',
      label: 'State',
      value: (k) => (k.revoked_at ? 'revoked' : 'active'),
      render: (k) =>
        k.revoked_at ? (
          <>revoked <Time at={k.revoked_at} /></>
        ) : (
          <>
            {k.expires_at ? <>expires <Time at={k.expires_at} />{' '}</> : null}
            <button type="button" onClick={() => onRevoke(k.id)}>Revoke {k.name}</button>
            <ActionError error={failure?.target === k.id ? failure.error : null} what={`revoke ${k.name}`} />
          </>
        ),
    },
  ];
}

function ApiKeyTable({ keys, onRevoke, failure }: { keys: ApiKey[]; onRevoke: (id: number) => void; failure: Failure<number> | null }) {
  return <SortableTable rows={keys} columns={apiKeyColumns(onRevoke, failure)} rowKey={(k) => String(k.id)} caption="Your keys (the secrets are never shown again)" empty="No API keys." />;
}

function ApiKeys() {
  const client = useQueryClient();
  const keys = useQuery(apiKeys());
  const revoke = useMutation(revokeApiKey(client));
  return (
    <section aria-labelledby="keys">
      <h2 id="keys">API keys</h2>
      <QueryView query={keys} what="API keys">
        {(data) => <ApiKeyTable keys={data.api_keys} onRevoke={(id) => revoke.mutate(id)} failure={failureOf(revoke)} />}
      </QueryView>
      <CreateKey />
    </section>
  );
}

function QrCode({ text }: { text: string }) {
  const { data, size } = encode(text, { border: 2 });
  return (
    <svg className="qr" viewBox={`0 0 ${size} ${size}`} width={size * 5} height={size * 5} role="img" aria-label="QR code for your authenticator app">
      <rect width={size} height={size} fill="#fff" />
      {data.flatMap((row, y) => row.map((dark, x) => (dark ? <rect key={`${x}-${y}`} x={x} y={y} width={1} height={1} fill="#000" /> : null)))}
    </svg>
  );
}

function SecondFactor() {
  const client = useQueryClient();
  const status = useQuery(secondFactor());
  const begin = useMutation(beginEnrolment());
  const confirm = useMutation(confirmEnrolment(client));
  const disable = useMutation(disableSecondFactor(client));
  const [code, setCode] = useState('');
  // The enrolment in progress is the last one begun, until a code confirms it.
  const enrolment = confirm.isSuccess ? undefined : begin.data;
  const clearCode = { onSuccess: () => setCode('') };
  const codeField = (
    <label>
      Code from your authenticator
      <input inputMode="numeric" pattern="[0-9]{6}" required value={code} onChange={(e) => setCode(e.target.value)} />
    </label>
  );
  return (
    <section aria-labelledby="tfa">
      <h2 id="tfa">Second factor</h2>
      <QueryView query={status} what="second factor">
        {(s) =>
          s.enabled ? (
            <form className="stack" onSubmit={(e) => (e.preventDefault(), disable.mutate(code, clearCode))}>
              <p>On: sign-in asks for a code from your authenticator app.</p>
              {codeField}
              <ActionError error={disable.error} what="turn the second factor off" />
              <button type="submit" disabled={disable.isPending}>Turn off</button>
            </form>
          ) : enrolment ? (
            <form className="stack" onSubmit={(e) => (e.preventDefault(), confirm.mutate(code, clearCode))}>
              <p>Scan this with your authenticator app, or type the secret <code>{enrolment.secret}</code>, then enter the code it shows.</p>
              <QrCode text={enrolment.otpauth_uri} />
              {codeField}
              <ActionError error={confirm.error} what="confirm the second factor" />
              <button type="submit" disabled={confirm.isPending}>Confirm</button>
            </form>
          ) : (
            <p>
              Off.{' '}
              <button type="button" onClick={() => (confirm.reset(), begin.mutate())} disabled={begin.isPending}>Set up a second factor</button>
              <ActionError error={begin.error} what="start setting up a second factor" />
            </p>
          )
        }
      </QueryView>
    </section>
  );
}

function SessionList({ sessions, onEnd, failure }: { sessions: Session[]; onEnd: (id: string) => void; failure: Failure<string> | null }) {
  return (
    <ul>
      {sessions.map((s) => (
        <li key={s.id}>
          {s.current ? <strong>This browser</strong> : 'Signed in'} from {s.ip}, since <Time at={s.created_at} />, last seen <Time at={s.last_seen_at} />{' '}
          <button type="button" onClick={() => onEnd(s.id)}>
            {s.current ? 'End session (signs you out)' : `End session from ${s.ip}`}
          </button>
          <ActionError error={failure?.target === s.id ? failure.error : null} what="end the session" />
        </li>
      ))}
    </ul>
  );
}

function Sessions() {
  const client = useQueryClient();
  const sessions = useQuery(mySessions());
  const revoke = useMutation(revokeSession(client));
  return (
    <section aria-labelledby="sessions">
      <h2 id="sessions">Active sessions</h2>
      <QueryView query={sessions} what="sessions">
        {(data) => <SessionList sessions={data.sessions} onEnd={(id) => revoke.mutate(id)} failure={failureOf(revoke)} />}
      </QueryView>
    </section>
  );
}

function GrantList({ grants, onDisconnect, failure }: { grants: Grant[]; onDisconnect: (id: string) => void; failure: Failure<string> | null }) {
  if (grants.length === 0) return <Empty>No app holds an access token of yours. MCP clients that sign in with OAuth appear here.</Empty>;
  return (
    <ul>
      {grants.map((g) => (
        <li key={g.id}>
          <strong>{g.client_name}</strong>, connected <Time at={g.created_at} />, access ends <Time at={g.expires_at} />, last used <Time at={g.last_used_at} absent="never" />{' '}
          <button type="button" onClick={() => onDisconnect(g.id)}>Disconnect {g.client_name}</button>
          <ActionError error={failure?.target === g.id ? failure.error : null} what={`disconnect ${g.client_name}`} />
        </li>
      ))}
    </ul>
  );
}

function ConnectedApps() {
  const client = useQueryClient();
  const query = useQuery(grants());
  const revoke = useMutation(revokeGrant(client));
  return (
    <section aria-labelledby="apps">
      <h2 id="apps">Connected apps</h2>
      <QueryView query={query} what="connected apps">
        {(data) => <GrantList grants={data.grants} onDisconnect={(id) => revoke.mutate(id)} failure={failureOf(revoke)} />}
      </QueryView>
    </section>
  );
}

const PASSWORD_FIELDS = ['current_password', 'new_password'] as const;

function ChangePassword() {
  const client = useQueryClient();
  const change = useMutation(changePassword(client));
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const submit = (e: SyntheticEvent<HTMLFormElement>) => {
    e.preventDefault();
    change.mutate(
      { current_password: current, new_password: next },
      {
        onSuccess: () => {
          setCurrent('');
          setNext('');
        },
      },
    );
  };
  return (
    <section aria-labelledby="password">
      <h2 id="password">Password</h2>
      <form className="stack" onSubmit={submit}>
        <Field id="current-password" label="Current password" field="current_password" error={change.error} input={(a11y) => <input type="password" autoComplete="current-password" required value={current} onChange={(e) => setCurrent(e.target.value)} {...a11y} />} />
        <Field
          id="new-password"
          label="New password"
          field="new_password"
          error={change.error}
          hint={<span className="hint">At least 8 characters. Your other sessions are signed out; this one stays.</span>}
          input={(a11y) => <input type="password" autoComplete="new-password" required minLength={8} value={next} onChange={(e) => setNext(e.target.value)} {...a11y} />}
        />
        <FormError error={change.error} what="change the password" fields={PASSWORD_FIELDS} />
        <button type="submit" disabled={change.isPending}>Change password</button>
        {change.isSuccess ? (
          <p role="status">
            Password changed{change.data.other_sessions_ended > 0 ? `; ${change.data.other_sessions_ended} other session${change.data.other_sessions_ended === 1 ? '' : 's'} signed out` : ''}.
          </p>
        ) : null}
      </form>
    </section>
  );
}

export function Account() {
  return (
    <>
      <h1>Account</h1>
      <ChangePassword />
      <ApiKeys />
      <ConnectedApps />
      <SecondFactor />
      <Sessions />
    </>
  );
}
