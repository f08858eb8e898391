// One truth on both surfaces: for a scenario's namespace, every pod incident (`GET /incidents`)
// must be the pod's own first problem finding in the diagnosis (`GET /diagnosis/{id}`): the
// same code, the same severity, the same root; and every pod the namespace's diagnosis shows a
// problem on must have its incident. OOMRisk is the one incident only metrics can raise.
import type { Diagnosis, DiagnosisDetail } from '../../schema/diagnosis.ts';
import type { Incident } from '../../schema/incidents.ts';

/** The two surfaces of one namespace, as read over HTTP. */
export interface Surfaces {
  incidents: readonly Incident[];
  /** `GET /diagnosis?namespace=`. */
  diagnosis: Diagnosis;
  /** `GET /diagnosis/{id}` for each pod either surface names. */
  details: ReadonlyMap<string, DiagnosisDetail | null>;
}

const podId = (namespace: string, pod: string) => `pod:${namespace}/${pod}`;

/** The pods of `namespace` the namespace's diagnosis shows a critical or warning finding on. */
export function podsWithProblems(diagnosis: Diagnosis, namespace: string): string[] {
  const ids = new Set<string>();
  for (const root of diagnosis.root_causes) {
    for (const f of [root.finding, ...root.effects]) if (f.severity !== 'info' && f.object.startsWith(`pod:${namespace}/`)) ids.add(f.object);
  }
  for (const { effect } of diagnosis.hidden_causes) if (effect.severity !== 'info' && effect.object.startsWith(`pod:${namespace}/`)) ids.add(effect.object);
  return [...ids].sort();
}

/** Each disagreement between the surfaces, in words; empty when they tell one story. */
export function disagreements(namespace: string, s: Surfaces): string[] {
  const out: string[] = [];
  const withIncident = new Set<string>();
  for (const incident of s.incidents) {
    const id = podId(incident.namespace, incident.pod);
    withIncident.add(id);
    if (incident.reason === 'OOMRisk') continue;
    const detail = s.details.get(id) ?? null;
    const own = detail?.findings.find((f) => f.severity !== 'info');
    if (own === undefined) {
      out.push(`${id}: /incidents says ${incident.severity} ${incident.reason}, /diagnosis has no problem on it`);
      continue;
    }
    if (own.code !== incident.reason || own.severity !== incident.severity) out.push(`${id}: /incidents says ${incident.severity} ${incident.reason}, /diagnosis says ${own.severity} ${own.code}`);
    const root = detail?.root_cause ?? null;
    const rootOfIncident = incident.root_cause === null ? null : `${incident.root_cause.code} ${incident.root_cause.node_id}`;
    const rootOfDiagnosis = root === null ? null : `${root.code} ${root.object}`;
    if (rootOfIncident !== rootOfDiagnosis) out.push(`${id}: /incidents names root ${rootOfIncident ?? 'none'}, /diagnosis ${rootOfDiagnosis ?? 'none'}`);
  }
  for (const id of podsWithProblems(s.diagnosis, namespace)) {
    if (!withIncident.has(id)) out.push(`${id}: /diagnosis shows a problem, /incidents has no incident`);
  }
  return out;
}
