// Helm writes (`helm:write`, admins, expert mode on): the dry run's diff, then install, upgrade,
// rollback and uninstall through the expert pod, each a Task the tray follows.
import type { Out } from '../../schema/common.ts';
import type { HelmDiff, HelmDiffInput, HelmInstallInput, HelmReleaseRef, HelmRollbackInput, HelmTaskStarted, HelmUpgradeInput } from '../../schema/helm.ts';
import type { AuthedContext } from '../context.ts';
import { ok, type Result } from '../result.ts';
import type { HelmWrite } from './service.ts';

async function started(write: HelmWrite, ctx: AuthedContext): Promise<Result<Out<typeof HelmTaskStarted>>> {
  const answer = await ctx.helm.start(write, ctx.principal.username);
  if (!answer.ok) return answer;
  ctx.request.noteAudit({ helm: write.operation, release: `${write.namespace}/${write.name}`, task: answer.value.taskId });
  return ok({ task_id: answer.value.taskId, state: 'running' });
}

export function diffRelease(input: Out<typeof HelmDiffInput>, ctx: AuthedContext): Promise<Result<Out<typeof HelmDiff>>> {
  return ctx.helm.diff(input);
}

export const installRelease = (input: Out<typeof HelmInstallInput>, ctx: AuthedContext) => started({ operation: 'install', ...input }, ctx);
export const upgradeRelease = (input: Out<typeof HelmUpgradeInput>, ctx: AuthedContext) => started({ operation: 'upgrade', ...input }, ctx);
export const rollbackRelease = (input: Out<typeof HelmRollbackInput>, ctx: AuthedContext) => started({ operation: 'rollback', ...input }, ctx);
export const uninstallRelease = (input: Out<typeof HelmReleaseRef>, ctx: AuthedContext) => started({ operation: 'uninstall', ...input }, ctx);
