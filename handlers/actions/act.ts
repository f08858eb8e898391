// Each action: the object must be one the caller sees in the cache (404 otherwise, before any
// request to the cluster), the agent's RBAC must allow it (403 naming rbac.allowWrites
// otherwise), then one write; what changed is noted in the audit row.
import type { Out } from '../../schema/common.ts';
import type { AllowedInput, Allowed, DeploymentInput, NodeInput, NodeSchedulable, PodDeleted, PodInput, Restarted, ScaleInput, Scaled } from '../../schema/actions.ts';
import type { HandlerContext } from '../context.ts';
import { fail, ok, type AppError, type Result } from '../result.ts';
import type { ActionName, WriteResult } from './service.ts';

const notGranted = (action: ActionName, where: string): AppError => ({
  code: 'forbidden',
  message: `Capstan's ServiceAccount may not ${action} ${where}: the cluster's RBAC does not grant it (rbac.allowWrites, docs/actions.md)`,
});

function refused(result: WriteResult & { ok: false }): AppError {
  if (result.status === 404) return { code: 'not_found', message: result.reason };
  if (result.status === 409) return { code: 'conflict', field: 'name', message: result.reason };
  if (result.status === 403) return { code: 'forbidden', message: result.reason };
  return { code: 'internal', message: result.reason };
}

export async function allowedActions(input: Out<typeof AllowedInput>, ctx: HandlerContext): Promise<Result<Out<typeof Allowed>>> {
  if (input.kind === 'nodes' ? input.namespace !== undefined : input.namespace === undefined) return fail({ code: 'invalid_input', field: 'namespace', message: input.kind === 'nodes' ? 'nodes have no namespace' : `${input.kind} live in a namespace: give it` });
  return ok({ ...(await ctx.writes.allowed(input.kind, input.namespace ?? null)) });
}

function deployment(input: { namespace: string; name: string }, ctx: HandlerContext) {
  return ctx.cluster.workloads().find((w) => w.kind === 'Deployment' && w.namespace === input.namespace && w.name === input.name);
}

export async function restartDeployment(input: Out<typeof DeploymentInput>, ctx: HandlerContext): Promise<Result<Out<typeof Restarted>>> {
  if (!deployment(input, ctx)) return fail({ code: 'not_found', message: `no deployment ${input.namespace}/${input.name}` });
  if (!(await ctx.writes.allowed('deployments', input.namespace)).restart) return fail(notGranted('restart', `deployments in ${input.namespace}`));
  const at = ctx.clock.now();
  const done = await ctx.writes.restart(input.namespace, input.name, at);
  if (!done.ok) return fail(refused(done));
  return ok({ restarted_at: at.toISOString() });
}

export async function scaleDeployment(input: Out<typeof ScaleInput>, ctx: HandlerContext): Promise<Result<Out<typeof Scaled>>> {
  const found = deployment(input, ctx);
  if (!found) return fail({ code: 'not_found', message: `no deployment ${input.namespace}/${input.name}` });
  if (!(await ctx.writes.allowed('deployments', input.namespace)).scale) return fail(notGranted('scale', `deployments in ${input.namespace}`));
  const done = await ctx.writes.scale(input.namespace, input.name, input.replicas);
  if (!done.ok) return fail(refused(done));
  ctx.request.noteAudit({ replicas_from: String(found.desired), replicas_to: String(input.replicas) });
  return ok({ replicas: input.replicas, previous: found.desired });
}

export async function deletePod(input: Out<typeof PodInput>, ctx: HandlerContext): Promise<Result<Out<typeof PodDeleted>>> {
  if (!ctx.cluster.pods().some((p) => p.namespace === input.namespace && p.name === input.pod)) return fail({ code: 'not_found', message: `no pod ${input.namespace}/${input.pod}` });
  if (!(await ctx.writes.allowed('pods', input.namespace)).delete) return fail(notGranted('delete', `pods in ${input.namespace}`));
  const done = await ctx.writes.deletePod(input.namespace, input.pod);
  if (!done.ok) return fail(refused(done));
  return ok({ deleted: true });
}

async function setNode(input: Out<typeof NodeInput>, ctx: HandlerContext, unschedulable: boolean): Promise<Result<Out<typeof NodeSchedulable>>> {
  if (!ctx.cluster.nodes().some((n) => n.name === input.name)) return fail({ code: 'not_found', message: `no node ${input.name}` });
  const action = unschedulable ? 'cordon' : 'uncordon';
  if (!(await ctx.writes.allowed('nodes', null))[action]) return fail(notGranted(action, 'nodes'));
  const done = await ctx.writes.setUnschedulable(input.name, unschedulable);
  if (!done.ok) return fail(refused(done));
  return ok({ unschedulable });
}

export const cordonNode = (input: Out<typeof NodeInput>, ctx: HandlerContext) => setNode(input, ctx, true);
export const uncordonNode = (input: Out<typeof NodeInput>, ctx: HandlerContext) => setNode(input, ctx, false);
