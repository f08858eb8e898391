// The OAuth consent screen: an MCP client asks to read the cluster as you. It names the
// client and what it gets (read-only MCP tools, one hour); nothing happens without a click.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useSearch } from 'wouter';
import { consentRequest, decideConsent, type AuthorizationRequest } from '../api/queries/oauth';
import { ActionError, QueryView } from '../components/states';

export function Consent() {
  const search = useSearch();
  // The agent validates every field; the browser only carries them from the authorize redirect.
  const params = Object.fromEntries(new URLSearchParams(search)) as AuthorizationRequest;
  const client = useQueryClient();
  const preview = useQuery(consentRequest(params));
  const decision = useMutation(decideConsent(client));
  const decide = (approve: boolean) => decision.mutate({ ...params, approve }, { onSuccess: ({ redirect_to }) => window.location.assign(redirect_to) });
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
            <ActionError error={decision.error} what="answer the request" />
            <p>
              <button type="button" onClick={() => decide(true)} disabled={decision.isPending}>Allow</button>{' '}
              <button type="button" onClick={() => decide(false)} disabled={decision.isPending}>Deny</button>
            </p>
          </section>
        )}
      </QueryView>
    </>
  );
}
