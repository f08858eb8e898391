// Saved Helm configs (docs/helm.md "Saved configs"): admin sessions only, never a key (spec §5:
// saved Helm configs decrypt on read). The password is write-only: answered as •••• at most.
import type { Out } from '../../schema/common.ts';
import { PASSWORD_MASK, type HelmConfigDeleted, type HelmConfigId, type HelmConfigInput, type HelmConfigList, type HelmConfigOut, type HelmConfigUpdate } from '../../schema/helm.ts';
import type { HandlerContext, SessionContext } from '../context.ts';
import { fail, ok, type Result } from '../result.ts';
import type { HelmConfig } from './service.ts';

function configOut(c: HelmConfig): Out<typeof HelmConfigOut> {
  return { id: c.id, name: c.name, kind: c.kind, url: c.url, username: c.username, plain_http: c.plainHttp, password: c.hasPassword ? PASSWORD_MASK : null, created_by: c.createdBy, created_at: c.createdAt.toISOString(), updated_at: c.updatedAt.toISOString() };
}

/** The URL must pass the outbound rules it will be fetched under (an OCI registry's as https://host/). */
function urlProblem(url: string, ctx: HandlerContext): string | null {
  const oci = /^oci:\/\/([^/]+)/.exec(url);
  return ctx.outbound.problem(oci ? `https://${oci[1] ?? ''}/` : url, 'base');
}

export async function listConfigs(_input: unknown, ctx: HandlerContext): Promise<Result<Out<typeof HelmConfigList>>> {
  return ok({ configs: (await ctx.helmConfigs.list()).map(configOut) });
}

export async function createConfig(input: Out<typeof HelmConfigInput>, ctx: SessionContext): Promise<Result<Out<typeof HelmConfigOut>>> {
  const problem = urlProblem(input.url, ctx);
  if (problem !== null) return fail({ code: 'invalid_input', field: 'url', message: `url ${problem}` });
  const saved = await ctx.helmConfigs.create(input, ctx.principal.username);
  if (!saved.ok) return saved;
  ctx.request.noteAudit({ helm_config: saved.value.name });
  return ok(configOut(saved.value));
}

export async function updateConfig(input: Out<typeof HelmConfigUpdate>, ctx: HandlerContext): Promise<Result<Out<typeof HelmConfigOut>>> {
  const problem = urlProblem(input.url, ctx);
  if (problem !== null) return fail({ code: 'invalid_input', field: 'url', message: `url ${problem}` });
  const { id, ...fields } = input;
  const saved = await ctx.helmConfigs.update(id, fields);
  if (!saved.ok) return saved;
  ctx.request.noteAudit({ helm_config: saved.value.name, password: input.password === undefined ? 'kept' : input.password === '' ? 'removed' : 'changed' });
  return ok(configOut(saved.value));
}

export async function deleteConfig(input: Out<typeof HelmConfigId>, ctx: HandlerContext): Promise<Result<Out<typeof HelmConfigDeleted>>> {
  const removed = await ctx.helmConfigs.remove(input.id);
  return removed.ok ? ok({ deleted: true, id: removed.value.id }) : removed;
}
