// Your API keys (scopes chosen one by one, nothing preselected; the secret shown once), your
// second factor (enrol with a QR code) and your sessions.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type SyntheticEvent } from 'react';
import { encode } from 'uqr';
import { api, errorText, unwrap } from '../api/client';
import { queries, SCOPES, type Scope } from '../api/queries';
import { Empty, QueryView } from '../components/states';


function CreateKey() {
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>([]);
  const [secret, setSecret] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const create = useMutation({
    mutationFn: () => unwrap(api.POST('/me/api-keys', { body: { name, scopes } })),
    onSuccess: async (created) => {
      setSecret(created.key);
      setName('');
      setScopes([]);
      await client.invalidateQueries({ queryKey: ['me', 'api-keys'] });
    },
  });
  const submit = (e: SyntheticEvent<HTMLFormElement>) => {
    e.preventDefault();
    setCopied(false);
    create.mutate();
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
      {create.error ? <p role="alert" className="error">{errorText(create.error)}</p> : null}
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

function ApiKeys() {
  const client = useQueryClient();
  const keys = useQuery(queries.apiKeys());
  const revoke = useMutation({
    mutationFn: (id: number) => unwrap(api.DELETE('/me/api-keys/{id}', { params: { path: { id: String(id) } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: ['me', 'api-keys'] }),
  });
  return (
    <section aria-labelledby="keys">
      <h2 id="keys">API keys</h2>
      <QueryView query={keys} what="API keys">
        {(data) =>
          data.api_keys.length === 0 ? (
            <Empty>No API keys.</Empty>
          ) : (
            <table>
              <caption>Your keys (the secrets are never shown again)</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Prefix</th>
                  <th scope="col">Scopes</th>
                  <th scope="col">Last used</th>
                  <th scope="col">State</th>
                </tr>
              </thead>
              <tbody>
                {data.api_keys.map((k) => (
                  <tr key={k.id}>
                    <td>{k.name}</td>
                    <td><code>{k.prefix}</code></td>
                    <td>{k.scopes.join(', ')}</td>
                    <td>{k.last_used_at ?? 'never'}</td>
                    <td>{k.revoked_at ? 'revoked' : <button type="button" onClick={() => revoke.mutate(k.id)}>Revoke {k.name}</button>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
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
  const status = useQuery(queries.secondFactor());
  const [enrolment, setEnrolment] = useState<{ secret: string; otpauth_uri: string } | null>(null);
  const [code, setCode] = useState('');
  const done = () => {
    setEnrolment(null);
    setCode('');
    return client.invalidateQueries({ queryKey: ['me', 'second-factor'] });
  };
  const begin = useMutation({ mutationFn: () => unwrap(api.POST('/me/second-factor/enrol')), onSuccess: setEnrolment });
  const confirm = useMutation({ mutationFn: () => unwrap(api.POST('/me/second-factor/confirm', { body: { code } })), onSuccess: done });
  const disable = useMutation({ mutationFn: () => unwrap(api.POST('/me/second-factor/disable', { body: { code } })), onSuccess: done });
  const error = begin.error ?? confirm.error ?? disable.error;
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
            <form className="stack" onSubmit={(e) => (e.preventDefault(), disable.mutate())}>
              <p>On: sign-in asks for a code from your authenticator app.</p>
              {codeField}
              <button type="submit">Turn off</button>
            </form>
          ) : enrolment ? (
            <form className="stack" onSubmit={(e) => (e.preventDefault(), confirm.mutate())}>
              <p>Scan this with your authenticator app, or type the secret <code>{enrolment.secret}</code>, then enter the code it shows.</p>
              <QrCode text={enrolment.otpauth_uri} />
              {codeField}
              <button type="submit">Confirm</button>
            </form>
          ) : (
            <p>
              Off. <button type="button" onClick={() => begin.mutate()}>Set up a second factor</button>
            </p>
          )
        }
      </QueryView>
      {error ? <p role="alert" className="error">{errorText(error)}</p> : null}
    </section>
  );
}

function Sessions() {
  const client = useQueryClient();
  const sessions = useQuery(queries.mySessions());
  const revoke = useMutation({ mutationFn: (id: string) => unwrap(api.DELETE('/me/sessions/{id}', { params: { path: { id } } })), onSuccess: () => client.invalidateQueries({ queryKey: ['me', 'sessions'] }) });
  return (
    <section aria-labelledby="sessions">
      <h2 id="sessions">Active sessions</h2>
      <QueryView query={sessions} what="sessions">
        {(data) => (
          <ul>
            {data.sessions.map((s) => (
              <li key={s.id}>
                from {s.ip}, since {s.created_at}, last seen {s.last_seen_at}{' '}
                <button type="button" onClick={() => revoke.mutate(s.id)}>End</button>
              </li>
            ))}
          </ul>
        )}
      </QueryView>
    </section>
  );
}

function ConnectedApps() {
  const client = useQueryClient();
  const grants = useQuery(queries.grants());
  const revoke = useMutation({ mutationFn: (id: string) => unwrap(api.DELETE('/me/oauth/grants/{id}', { params: { path: { id } } })), onSuccess: () => client.invalidateQueries({ queryKey: ['me', 'grants'] }) });
  return (
    <section aria-labelledby="apps">
      <h2 id="apps">Connected apps</h2>
      <QueryView query={grants} what="connected apps">
        {(data) =>
          data.grants.length === 0 ? (
            <Empty>No app holds an access token of yours. MCP clients that sign in with OAuth appear here.</Empty>
          ) : (
            <ul>
              {data.grants.map((g) => (
                <li key={g.id}>
                  <strong>{g.client_name}</strong>, connected {g.created_at}, until {g.expires_at}, last used {g.last_used_at ?? 'never'}{' '}
                  <button type="button" onClick={() => revoke.mutate(g.id)}>Disconnect {g.client_name}</button>
                </li>
              ))}
            </ul>
          )
        }
      </QueryView>
    </section>
  );
}

export function Account() {
  return (
    <>
      <h1>Account</h1>
      <ApiKeys />
      <ConnectedApps />
      <SecondFactor />
      <Sessions />
    </>
  );
}
