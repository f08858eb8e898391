import * as v from 'valibot';

export const Liveness = v.object({ status: v.literal('ok') });

/** One refusal by RBAC: a resource Capstan may not list, in one namespace or (null) cluster-wide. */
export const Unreadable = v.object({ resource: v.string(), namespace: v.nullable(v.string()) });
export type Unreadable = v.InferOutput<typeof Unreadable>;

/**
 * `unreadable`: the resources RBAC refuses, by name only. The probe is public (the kubelet, and
 * anyone the dashboard's proxy serves), so it says what is degraded, not which tenant
 * namespaces exist; a signed-in caller reads the namespaces in /overview.
 */
export const Readiness = v.object({ status: v.literal('ready'), synced: v.array(v.string()), unreadable: v.array(v.string()) });
