// Writes an admin asks for from the dashboard or with a `workloads:write` key: restart and
// scale a Deployment, delete a pod, cordon and uncordon a node. docs/actions.md.
import * as v from 'valibot';
import { kubeName, NamespaceName, Timestamp } from './common.ts';

/** The most replicas one scale may ask for: a typo of 1000 is refused, not obeyed. */
export const MAX_SCALE = 500;

export const AllowedInput = v.object({
  kind: v.picklist(['deployments', 'pods', 'nodes'], 'kind must be deployments, pods or nodes'),
  namespace: v.optional(NamespaceName),
});
export const Allowed = v.object({ restart: v.boolean(), scale: v.boolean(), delete: v.boolean(), cordon: v.boolean(), uncordon: v.boolean() });

export const DeploymentInput = v.object({ namespace: NamespaceName, name: kubeName('name') });
export const ScaleInput = v.object({
  namespace: NamespaceName,
  name: kubeName('name'),
  replicas: v.pipe(v.number('replicas must be a whole number'), v.integer('replicas must be a whole number'), v.minValue(0, 'replicas must be 0 or more'), v.maxValue(MAX_SCALE, `replicas must be at most ${MAX_SCALE}`)),
});
export const PodInput = v.object({ namespace: NamespaceName, pod: kubeName('pod') });
export const NodeInput = v.object({ name: kubeName('node') });

export const Restarted = v.object({ restarted_at: Timestamp });
export const Scaled = v.object({ replicas: v.number(), previous: v.number() });
export const PodDeleted = v.object({ deleted: v.literal(true) });
export const NodeSchedulable = v.object({ unschedulable: v.boolean() });
