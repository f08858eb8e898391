import type { Out } from '../../schema/common.ts';
import type { App, AppDefinition, AppDeleted, AppIdInput, AppList, AppPreview, UpdateAppInput } from '../../schema/apps.ts';
import type { AuthedContext, HandlerContext } from '../context.ts';
import { fail, ok, type Result } from '../result.ts';
import { appPods, workloadOf } from './members.ts';
import { appNotFound as notFound } from './service.ts';

/** Rows a preview shows; `total` still counts every match. */
export const PREVIEW_LIMIT = 200;

export async function listApps(_input: unknown, ctx: HandlerContext): Promise<Result<Out<typeof AppList>>> {
  const apps = await ctx.apps.list();
  return ok({ apps, total: apps.length });
}

export async function getApp(input: Out<typeof AppIdInput>, ctx: HandlerContext): Promise<Result<App>> {
  const app = await ctx.apps.get(input.id);
  return app ? ok(app) : fail(notFound(input.id));
}

export async function createApp(input: AppDefinition, ctx: AuthedContext): Promise<Result<App>> {
  const created = await ctx.apps.create(input, ctx.principal.username);
  if (created.ok) ctx.request.noteAudit({ app: created.value.id, name: created.value.name });
  return created;
}

export async function updateApp(input: Out<typeof UpdateAppInput>, ctx: HandlerContext): Promise<Result<App>> {
  const { id, ...definition } = input;
  const updated = await ctx.apps.update(id, definition);
  if (updated.ok) ctx.request.noteAudit({ app: id, name: updated.value.name });
  return updated;
}

export async function deleteApp(input: Out<typeof AppIdInput>, ctx: HandlerContext): Promise<Result<Out<typeof AppDeleted>>> {
  if (!(await ctx.apps.remove(input.id))) return fail(notFound(input.id));
  ctx.request.noteAudit({ app: input.id });
  return ok({ deleted: true as const, id: input.id });
}

/** The pods a definition would select right now: the dashboard's live preview while creating one. */
export function previewApp(input: AppDefinition, ctx: HandlerContext): Result<Out<typeof AppPreview>> {
  const pods = appPods(input, ctx.cluster);
  return ok({
    pods: pods.slice(0, PREVIEW_LIMIT).map((p) => ({ namespace: p.namespace, pod: p.name, workload: workloadOf(p), phase: p.phase })),
    total: pods.length,
    truncated: pods.length > PREVIEW_LIMIT,
  });
}
