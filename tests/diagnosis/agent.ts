// The harness asks a real agent: signed in as admin, it mints an API key with the
// `workloads:read` scope `/diagnosis` declares, and asks over loopback HTTP like any client.
import { join } from 'node:path';
import { startAgent, type RunningAgent } from '../../runtime/agent.ts';
import { silentLogger } from '../../runtime/log.ts';
import type { Diagnosis } from '../../schema/diagnosis.ts';
import type { Diagnose } from './harness.ts';

/** The in-process agent the scenario benchmarks ask: on the bench's cluster, its data under `dir`, every namespace visible. */
export function startBenchAgent(kubeconfig: string, dir: string, adminPassword: string): Promise<RunningAgent> {
  return startAgent({
    kubeconfig,
    listen: '127.0.0.1:0',
    dataDir: join(dir, 'agent-data'),
    settings: { tenantNamespaces: [] },
    accounts: { adminPassword },
    validateOutput: true,
    log: silentLogger,
  });
}

export async function diagnosisApiKey(agentUrl: string, adminPassword: string): Promise<string> {
  const login = await fetch(`${agentUrl}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: adminPassword }) });
  if (!login.ok) throw new Error(`admin sign-in answered ${login.status}`);
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const minted = await fetch(`${agentUrl}/me/api-keys`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'diagnosis-scenarios', scopes: ['workloads:read'] }) });
  if (!minted.ok) throw new Error(`minting an API key answered ${minted.status}: ${await minted.text()}`);
  return ((await minted.json()) as { key: string }).key;
}

export function agentDiagnose(agentUrl: string, apiKey: string): Diagnose {
  return async (namespace) => {
    const query = namespace === null ? '' : `?namespace=${encodeURIComponent(namespace)}`;
    const res = await fetch(`${agentUrl}/diagnosis${query}`, { headers: { 'x-api-key': apiKey } });
    if (!res.ok) throw new Error(`GET /diagnosis${query} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    return (await res.json()) as Diagnosis;
  };
}
