// A terminal session's own kubectl identity: a token minted for it through the TokenRequest
// API (an hour at most) for a terminal ServiceAccount, in a kubeconfig the sidecar writes under
// the session's directory and deletes when the session ends. The agent's own token never
// leaves the agent.
//
// Which account depends on the sidecar (./agent-terminal.ts picks it): the terminal sidecar's
// sessions, a viewer's and (without an admin sidecar) an admin's, get the read-only account
// `capstan-terminal` (the `view` role); the admin sidecar's, an admin's with `rbac.allowWrites`,
// get `capstan-terminal-admin` (`view` and the write verbs the chart grants the agent). The
// write token lives only in the admin sidecar: another container, another Unix user, another
// key, none of them mounted where a viewer's shell runs (the shells of one sidecar share one
// user and could read each other's kubeconfigs). docs/terminal.md, "What a session may do".
import fetch, { Headers } from 'node-fetch';
import type { RequestOptions } from 'node:https';
import { stringify } from 'yaml';
import type { TerminalOpenRequest } from '../../handlers/terminal/service.ts';
import { refusalMessage, type KubeAccess } from '../kube/client.ts';
import { WRITES_USER_AGENT } from '../kube/writes.ts';
import { pemData } from '../kube/ephemeral-kubeconfig.ts';

export type SessionCredential = { ok: true; kubeconfig: string; describe: string } | { ok: false; reason: string };

export interface SessionCredentials {
  kubeconfigFor(request: TerminalOpenRequest): Promise<SessionCredential>;
}

/** Spec: a session's token lives at most an hour (the API server's minimum is 10 minutes). */
export const SESSION_TOKEN_SECS = 3600;

export function tokenRequestCredentials(kc: KubeAccess, account: { namespace: string; name: string }, timeoutMs = 5000): SessionCredentials {
  return {
    async kubeconfigFor(request) {
      const cluster = kc.getCurrentCluster();
      if (!cluster) return { ok: false, reason: 'the agent has no API server configured' };
      const path = `/api/v1/namespaces/${encodeURIComponent(account.namespace)}/serviceaccounts/${encodeURIComponent(account.name)}/token`;
      try {
        const init = await kc.applyToFetchOptions({});
        const headers = new Headers(init.headers);
        headers.set('Accept', 'application/json');
        headers.set('Content-Type', 'application/json');
        headers.set('User-Agent', WRITES_USER_AGENT);
        const response = await fetch(`${cluster.server}${path}`, {
          ...init,
          method: 'POST',
          headers,
          body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: SESSION_TOKEN_SECS } }),
          signal: AbortSignal.timeout(timeoutMs),
        });
        const text = await response.text();
        if (!response.ok) return { ok: false, reason: `the API server refused a token for ${account.namespace}/${account.name}: ${refusalMessage(text, `status ${response.status}`)}` };
        const token = (JSON.parse(text) as { status?: { token?: string } }).status?.token;
        if (typeof token !== 'string' || token === '') return { ok: false, reason: 'the TokenRequest answered no token' };
        // The CA the agent trusts the API server by, embedded: the sidecar cannot read the agent's mounts.
        const tls: RequestOptions = {};
        await kc.applyToHTTPSOptions(tls);
        const ca = pemData(tls.ca);
        const insecure = tls.rejectUnauthorized === false;
        const kubeconfig = stringify({
          apiVersion: 'v1',
          kind: 'Config',
          clusters: [{ name: 'cluster', cluster: { server: cluster.server, ...(ca ? { 'certificate-authority-data': ca } : {}), ...(insecure ? { 'insecure-skip-tls-verify': true } : {}) } }],
          users: [{ name: account.name, user: { token } }],
          contexts: [{ name: 'capstan', context: { cluster: 'cluster', user: account.name, namespace: request.namespace } }],
          'current-context': 'capstan',
        });
        return { ok: true, kubeconfig, describe: `serviceaccount ${account.namespace}/${account.name}, ${SESSION_TOKEN_SECS / 60} min token` };
      } catch (err) {
        return { ok: false, reason: err instanceof Error ? err.message : String(err) };
      }
    },
  };
}
