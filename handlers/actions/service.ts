// Writes to the cluster an admin asks for (restart, scale, delete a pod, cordon): each checked
// first against the agent's own RBAC (SelfSubjectAccessReview), so what rbac.allowWrites does
// not grant is neither offered nor attempted.

export type ActionName = 'restart' | 'scale' | 'delete' | 'cordon' | 'uncordon';

/** Which actions the agent's RBAC allows on one kind in one namespace (null: cluster-scoped). */
export type AllowedActions = Readonly<Record<ActionName, boolean>>;

export type WriteResult = { ok: true } | { ok: false; status: number; reason: string };

export interface ClusterWrites {
  /** Asked of the API server (SelfSubjectAccessReview), each answer kept a minute. */
  allowed(kind: 'deployments' | 'pods' | 'nodes', namespace: string | null): Promise<AllowedActions>;
  /** A rolling restart: the pod template's `kubectl.kubernetes.io/restartedAt` annotation set to `at`. */
  restart(namespace: string, name: string, at: Date): Promise<WriteResult>;
  scale(namespace: string, name: string, replicas: number): Promise<WriteResult>;
  deletePod(namespace: string, name: string): Promise<WriteResult>;
  setUnschedulable(node: string, unschedulable: boolean): Promise<WriteResult>;
}
