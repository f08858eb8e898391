// Password sign-in; a second field for the TOTP code appears when the account has one.
import { useMutation, type QueryClient } from '@tanstack/react-query';
import { useState, type SyntheticEvent } from 'react';
import { ApiError } from '../api/client';
import { signIn } from '../api/queries/session';

const needsSecondFactor = (err: unknown): boolean => err instanceof ApiError && err.body.error === 'second_factor_required';

/** What went wrong, as the person at the form needs it. */
function problem(err: unknown, sentCode: boolean): string | null {
  if (err === null) return null;
  if (needsSecondFactor(err)) return sentCode ? 'That code was not accepted. Try the next one.' : null;
  return err instanceof ApiError ? err.body.message : 'Sign-in failed: the agent could not be reached.';
}

export function SignIn({ client }: { client: QueryClient }) {
  const login = useMutation(signIn(client));
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [needsCode, setNeedsCode] = useState(false);

  const submit = (e: SyntheticEvent<HTMLFormElement>) => {
    e.preventDefault();
    login.mutate({ username, password, ...(needsCode ? { code } : {}) }, { onError: (err) => needsSecondFactor(err) && setNeedsCode(true) });
  };
  const error = problem(login.error, login.variables?.code !== undefined);

  return (
    <main id="main" className="sign-in">
      <form onSubmit={submit} aria-labelledby="sign-in-title">
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
        <button type="submit" disabled={login.isPending}>{login.isPending ? 'Signing in…' : 'Sign in'}</button>
      </form>
    </main>
  );
}
