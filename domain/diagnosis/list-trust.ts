// Whether an absence in the cache means absence in the cluster. A list is trusted once its
// informer synced and RBAC did not refuse it; a refusal a per-namespace watch names
// (rbac.clusterWide=false) leaves every other namespace's list complete, so checks there keep
// judging. A resource with no status row (a fake view in tests) is trusted.
import type { DiagnosisInput } from './input.ts';

/** `resource`'s list is complete, cluster-wide (`namespace` null) or within `namespace`. */
export type ListTrust = (resource: string, namespace: string | null) => boolean;

/** Reads the cache's sync status once; the answer is asked per object. */
export function listTrust(input: DiagnosisInput): ListTrust {
  const byResource = new Map(input.view.syncStatus().map((s) => [s.resource, s]));
  return (resource, namespace) => {
    const status = byResource.get(resource);
    if (status === undefined) return true;
    if (!status.synced) return false;
    if (!status.forbidden) return true;
    // No namespace named: refused cluster-wide. Named: only those namespaces are incomplete.
    return namespace !== null && status.forbidden_namespaces.length > 0 && !status.forbidden_namespaces.includes(namespace);
  };
}
