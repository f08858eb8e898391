// What the cluster model says about a workload's security: its CRITICAL and HIGH findings,
// counted, with the worst check ids and CVEs named, so `get_entity` on a Deployment (and the
// subgraph around it) shows at a glance that it runs privileged or carries a critical CVE.
// The full list stays GET /security/findings'. docs/cluster-model.md.
import { isNodeKind, nodeId } from '../cluster/node-id.ts';
import type { WorkloadSecurity } from '../../schema/graph.ts';
import type { MisconfigFinding, VulnFinding } from '../../schema/security.ts';

/** Check ids and CVEs named per workload, CRITICAL ones first. */
export const WORKLOAD_SECURITY_TOP = 5;

/**
 * The model node id of each workload (or bare pod) with at least one CRITICAL or HIGH finding,
 * and those findings summed up. Findings whose workload kind is no model kind are left out.
 */
export function workloadSecurity(vulns: readonly VulnFinding[], misconfigs: readonly MisconfigFinding[]): Map<string, WorkloadSecurity> {
  const found = new Map<string, { critical: number; high: number; critical_ids: Set<string>; high_ids: Set<string> }>();
  const add = (kind: string, namespace: string, name: string, severity: string, ref: string) => {
    if (!isNodeKind(kind) || (severity !== 'CRITICAL' && severity !== 'HIGH')) return;
    const id = nodeId(kind, namespace, name);
    let s = found.get(id);
    if (!s) found.set(id, (s = { critical: 0, high: 0, critical_ids: new Set(), high_ids: new Set() }));
    if (severity === 'CRITICAL') {
      s.critical++;
      s.critical_ids.add(ref);
    } else {
      s.high++;
      s.high_ids.add(ref);
    }
  };
  for (const f of misconfigs) add(f.workload_kind, f.namespace, f.workload, f.severity, f.check_id);
  for (const f of vulns) add(f.workload_kind, f.namespace, f.workload, f.severity, f.cve);
  const out = new Map<string, WorkloadSecurity>();
  for (const [id, s] of found) {
    const high = [...s.high_ids].filter((x) => !s.critical_ids.has(x)).sort();
    out.set(id, { critical: s.critical, high: s.high, top: [...[...s.critical_ids].sort(), ...high].slice(0, WORKLOAD_SECURITY_TOP) });
  }
  return out;
}
