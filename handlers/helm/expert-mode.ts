// The runtime expert-mode switch (admin session only, never a key): while it is off every
// Helm route answers 403 expert_mode_disabled (the runtime's kill-switch stage). It turns on
// only where the chart provisioned the expert pod.
import type { Out } from '../../schema/common.ts';
import type { ExpertModeState, ExpertModeSwitch } from '../../schema/helm.ts';
import type { HandlerContext } from '../context.ts';
import { fail, ok, type Result } from '../result.ts';

export async function getExpertMode(_input: unknown, ctx: HandlerContext): Promise<Result<Out<typeof ExpertModeState>>> {
  return ok({ enabled: (await ctx.runtimeSettings.get('expert_mode')).enabled, provisioned: ctx.helm.provisioned });
}

export async function setExpertMode(input: Out<typeof ExpertModeSwitch>, ctx: HandlerContext): Promise<Result<Out<typeof ExpertModeState>>> {
  if (input.enabled && !ctx.helm.provisioned) return fail({ code: 'conflict', field: 'enabled', message: 'the expert pod is not installed: set expertMode.enabled=true in the chart first' });
  await ctx.runtimeSettings.set('expert_mode', { enabled: input.enabled });
  ctx.request.noteAudit({ expert_mode: input.enabled ? 'on' : 'off' });
  return ok({ enabled: input.enabled, provisioned: ctx.helm.provisioned });
}
