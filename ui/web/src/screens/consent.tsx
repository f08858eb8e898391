// The OAuth consent screen: an MCP client asks to read the cluster as you. It names the
// client and what it gets (read-only MCP tools, one hour); nothing happens without a click.
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useSearch } from 'wouter';
import { ApiError, api, unwrap } from '../api/client';
import type { operations } from '../api/schema';
import { QueryView } from '../components/states';

type AuthorizationRequest = operations['get_oauth_consent']['parameters']['query'];

export function Consent() {
  const search = useSearch();
  // The agent validates every field; the browser only carries them from the authorize redirect.
  const params = Object.fromEntries(new URLSearchParams(search)) as AuthorizationRequest;
  const preview = useQuery({ queryKey: ['oauth', 'consent', search], queryFn: () => unwrap(api.GET('/oauth/consent', { params: { query: params } })), retry: false });
  const [error, setError] = useState<string | null>(null);
  const decide = async (approve: boolean) => {
    try {
      const { redirect_to } = await unwrap(api.POST('/oauth/consent', { body: { ...params, approve } }));
      window.location.assign(redirect_to);
    } catch (err) {
      setError(err instanceof ApiError ? err.body.message : String(err));
    }
  };
  return (
    <>
      <h1>Connect an app</h1>
      <QueryView query={preview} what="the request">
        {(p) => (
          <section className="card" aria-labelledby="consent-question">
            <h2 id="consent-question">
              Allow <strong>{p.client_name}</strong> to read this cluster as you?
            </h2>
            <ul>
              <li>It can call Capstan's read-only MCP tools: health, incidents, the cluster model, events, redacted logs.</li>
              <li>It sees what you see, and loses access when your role or account changes.</li>
              <li>It cannot change anything or run commands. Access lasts one hour; you can disconnect it any time under Account → Connected apps.</li>
            </ul>
            <p className="muted">
              It will be sent back to <code>{p.redirect_uri}</code>.
            </p>
            {error ? <p role="alert" className="error">{error}</p> : null}
            <p>
              <button type="button" onClick={() => void decide(true)}>Allow</button> <button type="button" onClick={() => void decide(false)}>Deny</button>
            </p>
          </section>
        )}
      </QueryView>
    </>
  );
}
