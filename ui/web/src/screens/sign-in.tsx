// Password sign-in; a second field for the TOTP code appears when the account has one.
import type { QueryClient } from '@tanstack/react-query';
import { useState, type SyntheticEvent } from 'react';
import { ApiError, api, unwrap } from '../api/client';

export function SignIn({ client }: { client: QueryClient }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [needsCode, setNeedsCode] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: SyntheticEvent<HTMLFormElement>) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await unwrap(api.POST('/auth/login', { body: { username, password, ...(needsCode ? { code } : {}) } }));
      await client.invalidateQueries({ queryKey: ['me'] });
    } catch (err) {
      if (err instanceof ApiError && err.body.error === 'second_factor_required') {
        setNeedsCode(true);
        setError(needsCode ? 'That code was not accepted. Try the next one.' : null);
      } else setError(err instanceof ApiError ? err.body.message : 'Sign-in failed: the agent could not be reached.');
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main" className="sign-in">
      <form onSubmit={(e) => void submit(e)} aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Sign in to Capstan</h1>
        <label>
          Username
          <input name="username" autoComplete="username" required value={username} onChange={(e) => setUsername(e.target.value)} />
        </label>
        <label>
          Password
          <input name="password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        </label>
        {needsCode ? (
          <label>
            Authenticator code
            <input name="code" inputMode="numeric" autoComplete="one-time-code" pattern="[0-9]{6}" required autoFocus value={code} onChange={(e) => setCode(e.target.value)} />
          </label>
        ) : null}
        {error ? <p role="alert" className="error">{error}</p> : null}
        <button type="submit" disabled={busy}>{busy ? 'Signing in…' : 'Sign in'}</button>
      </form>
    </main>
  );
}
