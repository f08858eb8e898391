// The harness asks a real agent: signed in as admin, it mints an API key with the
// `workloads:read` scope `/diagnosis` declares, and asks over loopback HTTP like any client.
import { join } from 'node:path';
import { startAgent, type RunningAgent } from '../../runtime/agent.ts';
import { silentLogger } from '../../runtime/log.ts';
import type { Diagnosis } from '../../schema/diagnosis.ts';
import type { Diagnose } from './harness.ts';
import { podsWithProblems, type Surfaces } from './agreement.ts';
import type { DiagnosisDetail } from '../../schema/diagnosis.ts';
import type { IncidentList } from '../../schema/incidents.ts';
import type { Out } from '../../schema/common.ts';

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

/** Both surfaces of a namespace over HTTP, for the harness' agreement check: incidents, the diagnosis, and the detail of every pod either names. */
export function agentSurfaces(agentUrl: string, apiKey: string): (namespace: string) => Promise<Surfaces> {
  const get = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${agentUrl}${path}`, { headers: { 'x-api-key': apiKey } });
    if (!res.ok) throw new Error(`GET ${path} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    return (await res.json()) as T;
  };
  return async (namespace) => {
    const { incidents } = await get<Out<typeof IncidentList>>(`/incidents?namespace=${encodeURIComponent(namespace)}`);
    const diagnosis = await get<Diagnosis>(`/diagnosis?namespace=${encodeURIComponent(namespace)}`);
    const ids = new Set([...incidents.map((i) => `pod:${i.namespace}/${i.pod}`), ...podsWithProblems(diagnosis, namespace)]);
    const details = new Map<string, DiagnosisDetail | null>();
    for (const id of ids) {
      const res = await fetch(`${agentUrl}/diagnosis/${encodeURIComponent(id)}`, { headers: { 'x-api-key': apiKey } });
      details.set(id, res.status === 404 ? null : ((await res.json()) as DiagnosisDetail));
    }
    return { incidents, diagnosis, details };
  };
}
