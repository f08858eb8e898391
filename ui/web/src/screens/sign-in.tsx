// Sign-in: the password form and, when an admin enabled it, the directory (LDAP) with the same
// two fields (GET /auth/methods says which); a field for the TOTP code appears when the account
// has one. With sso.local_login off only the directory is offered. Each enabled redirect method
// (OIDC, SAML) is a button that sends the browser to its start path under /api/agent, so the
// identity provider's redirects happen in the page and the browser comes back to where it was.
// A refused redirect sign-in comes back here too (the agent's 303 to /sign-in?sso_error=…&reason=…,
// runtime/http/browser-errors.ts): its reason is shown as the page's error, as text.
import { useMutation, useQuery, type QueryClient } from '@tanstack/react-query';
import { useEffect, useState, type SyntheticEvent } from 'react';
import { ApiError } from '../api/client';
import { signIn } from '../api/queries/session';
import { authMethods, ldapSignIn, type AuthMethods } from '../api/queries/sso';
import { redirectSignInUrl } from '../api/sso-urls';

const needsSecondFactor = (err: unknown): boolean => err instanceof ApiError && err.body.error === 'second_factor_required';

/** What went wrong, as the person at the form needs it. */
function problem(err: unknown, sentCode: boolean): string | null {
  if (err === null) return null;
  if (needsSecondFactor(err)) return sentCode ? 'That code was not accepted. Try the next one.' : null;
  return err instanceof ApiError ? err.body.message : 'Sign-in failed: the agent could not be reached.';
}

/** As the agent bounds it; a hand-made link cannot make the page show more. */
const REASON_MAX_CHARS = 200;

/**
 * The refusal the agent sent the browser here with, read once at mount, then taken out of the
 * address bar so a reload or a bookmark does not show it again. Always under a fixed lead-in:
 * the query is anyone's to write, so it is never shown as if it were the page's own words.
 */
function useSsoRefusal(): string | null {
  const [refusal] = useState(() => {
    const query = new URLSearchParams(window.location.search);
    const code = query.get('sso_error');
    if (code === null) return null;
    const reason = Array.from(query.get('reason') ?? '').slice(0, REASON_MAX_CHARS).join('').trim();
    return `Single sign-on did not sign you in: ${reason === '' ? code.slice(0, 64) : reason}`;
  });
  useEffect(() => {
    const url = new URL(window.location.href);
    if (!url.searchParams.has('sso_error') && !url.searchParams.has('reason')) return;
    url.searchParams.delete('sso_error');
    url.searchParams.delete('reason');
    window.history.replaceState(window.history.state, '', `${url.pathname}${url.search}${url.hash}`);
  }, []);
  return refusal;
}

type Method = 'ldap' | 'password';
type RedirectMethod = AuthMethods['sso'][number] & { provider: 'oidc' | 'saml' };

const REDIRECT_LABEL = { oidc: 'Sign in with OIDC', saml: 'Sign in with SAML' } as const;
const isRedirect = (m: AuthMethods['sso'][number]): m is RedirectMethod => m.provider === 'oidc' || m.provider === 'saml';

/** One button per enabled redirect method; the browser leaves for the identity provider and comes back to this path. */
function RedirectMethods({ methods }: { methods: readonly RedirectMethod[] }) {
  if (methods.length === 0) return null;
  const here = `${window.location.pathname}${window.location.search}`;
  return (
    <div className="stack" role="group" aria-label="Single sign-on">
      {methods.map((m) => (
        <button key={m.provider} type="button" onClick={() => window.location.assign(redirectSignInUrl(m.path, here))}>
          {REDIRECT_LABEL[m.provider]}
        </button>
      ))}
    </div>
  );
}

export function SignIn({ client }: { client: QueryClient }) {
  const methods = useQuery(authMethods());
  const password = useMutation(signIn(client));
  const directory = useMutation(ldapSignIn(client));
  const [username, setUsername] = useState('');
  const [secret, setSecret] = useState('');
  const [code, setCode] = useState('');
  const [needsCode, setNeedsCode] = useState(false);
  const [picked, setPicked] = useState<Method | null>(null);
  const refusal = useSsoRefusal();

  // Until the methods are known (or if asking fails) the password form stands, as before SSO.
  const ldapOn = methods.data?.sso.some((m) => m.provider === 'ldap') ?? false;
  const passwordOn = methods.data?.local_login !== 'off';
  const offered: Method[] = [...(ldapOn ? (['ldap'] as const) : []), ...(passwordOn ? (['password'] as const) : [])];
  const redirects = methods.data?.sso.filter(isRedirect) ?? [];
  const method: Method = picked !== null && offered.includes(picked) ? picked : (offered[0] ?? 'password');
  const login = method === 'ldap' ? directory : password;

  const choose = (next: Method) => {
    setPicked(next);
    setNeedsCode(false);
    password.reset();
    directory.reset();
  };
  const submit = (e: SyntheticEvent<HTMLFormElement>) => {
    e.preventDefault();
    login.mutate({ username, password: secret, ...(needsCode ? { code } : {}) }, { onError: (err) => needsSecondFactor(err) && setNeedsCode(true) });
  };
  const error = problem(login.error, login.variables?.code !== undefined);

  // Only redirect methods on offer (password and LDAP sign-in off): no form to fill.
  if (offered.length === 0 && redirects.length > 0) {
    return (
      <main id="main" className="sign-in">
        <h1>Sign in to Capstan</h1>
        {refusal ? <p role="alert" className="error">{refusal}</p> : null}
        <RedirectMethods methods={redirects} />
      </main>
    );
  }
  return (
    <main id="main" className="sign-in">
      <form onSubmit={submit} aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Sign in to Capstan</h1>
        {refusal && login.isIdle ? <p role="alert" className="error">{refusal}</p> : null}
        <RedirectMethods methods={redirects} />
        {offered.length > 1 ? (
          <fieldset>
            <legend>Sign in with</legend>
            <label>
              <input type="radio" name="method" checked={method === 'ldap'} onChange={() => choose('ldap')} /> Directory account (LDAP)
            </label>
            <label>
              <input type="radio" name="method" checked={method === 'password'} onChange={() => choose('password')} /> Capstan account
            </label>
          </fieldset>
        ) : method === 'ldap' ? (
          <p>Sign in with your directory (LDAP) account.</p>
        ) : null}
        <label>
          Username
          <input name="username" autoComplete="username" required value={username} onChange={(e) => setUsername(e.target.value)} />
        </label>
        <label>
          Password
          <input name="password" type="password" autoComplete="current-password" required value={secret} onChange={(e) => setSecret(e.target.value)} />
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
