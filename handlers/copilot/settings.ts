// AI Settings and AI Guardrails (admin). The provider key is sealed at rest and never shown:
// every answer says only whether one is stored (`••••`). A stored key belongs to the provider
// and endpoint it was entered for, as the audit webhook's token does: changing either needs the
// key typed again, so a session cannot send the stored key to a host of its choosing.
import type { Out } from '../../schema/common.ts';
import { checkEgress } from '../../domain/copilot/egress.ts';
import type { AiGuardrails, AiSettingsInput, AiSettingsView, ConnectionTest } from '../../schema/copilot.ts';
import type { AiSettings } from '../../schema/settings.ts';
import type { HandlerContext } from '../context.ts';
import { MCP_TOOL_NAMES } from '../mcp/tools.ts';
import { fail, ok, type Result } from '../result.ts';
import { MASK } from '../settings/audit-stream.ts';

/** Whether a run would reach a model with these settings, and why not. */
export function modelReadiness(settings: AiSettings, guardrails: AiGuardrails): { ready: true; url: string } | { ready: false; reason: string } {
  if (!guardrails.enabled) return { ready: false, reason: 'AI is switched off in AI Guardrails' };
  if (settings.provider === null) return { ready: false, reason: 'no AI provider is configured' };
  const verdict = checkEgress({ provider: settings.provider, baseUrl: settings.base_url, withKey: settings.api_key_sealed !== null, residency: guardrails.residency, allowlist: guardrails.egress_allowlist });
  return verdict.allowed ? { ready: true, url: verdict.url } : { ready: false, reason: verdict.message };
}

function view(settings: AiSettings, guardrails: AiGuardrails): Out<typeof AiSettingsView> {
  const readiness = modelReadiness(settings, guardrails);
  return {
    provider: settings.provider,
    model: settings.model,
    base_url: settings.base_url,
    api_key: settings.api_key_sealed === null ? null : MASK,
    model_ready: readiness.ready,
    reason: readiness.ready ? null : readiness.reason,
  };
}

export async function getAiSettings(_input: object, ctx: HandlerContext): Promise<Result<Out<typeof AiSettingsView>>> {
  return ok(view(await ctx.runtimeSettings.get('ai'), await ctx.runtimeSettings.get('ai_guardrails')));
}

export async function updateAiSettings(input: Out<typeof AiSettingsInput>, ctx: HandlerContext): Promise<Result<Out<typeof AiSettingsView>>> {
  if (input.base_url !== null) {
    const problem = ctx.outbound.problem(input.base_url, 'base');
    if (problem !== null) return fail({ code: 'invalid_input', field: 'base_url', message: `base_url ${problem}` });
  }
  const stored = await ctx.runtimeSettings.get('ai');
  const key = input.api_key;
  const keepsStored = key === undefined || key === MASK;
  const sameTarget = input.provider === stored.provider && input.base_url === stored.base_url;
  if (keepsStored && stored.api_key_sealed !== null && input.provider !== null && !sameTarget) {
    return fail({ code: 'invalid_input', field: 'api_key', message: 'api_key must be given again when provider or base_url changes: the stored key is only sent where it was entered for' });
  }
  const sealed = input.provider === null ? null : keepsStored ? stored.api_key_sealed : key === null || key === '' ? null : ctx.secrets.seal(key);
  const next: AiSettings = { provider: input.provider, model: input.model, base_url: input.base_url, api_key_sealed: sealed };
  ctx.request.noteAudit({ provider: input.provider ?? '(none)', model: input.model, base_url: input.base_url ?? '(default)', key_changed: String(sealed !== stored.api_key_sealed) });
  await ctx.runtimeSettings.set('ai', next);
  return ok(view(next, await ctx.runtimeSettings.get('ai_guardrails')));
}

export async function getGuardrails(_input: object, ctx: HandlerContext): Promise<Result<AiGuardrails>> {
  return ok(await ctx.runtimeSettings.get('ai_guardrails'));
}

export async function updateGuardrails(input: AiGuardrails, ctx: HandlerContext): Promise<Result<AiGuardrails>> {
  const unknownTool = input.denied_tools.findIndex((name) => !MCP_TOOL_NAMES.has(name));
  if (unknownTool !== -1) return fail({ code: 'invalid_input', field: `denied_tools.${unknownTool}`, message: `no MCP tool ${input.denied_tools[unknownTool] ?? ''}; the tools are ${[...MCP_TOOL_NAMES].join(', ')}` });
  const before = await ctx.runtimeSettings.get('ai_guardrails');
  const changed = (Object.keys(input) as (keyof AiGuardrails)[]).filter((k) => JSON.stringify(input[k]) !== JSON.stringify(before[k]));
  ctx.request.noteAudit({ changed: changed.join(',') || '(nothing)', enabled: String(input.enabled) });
  await ctx.runtimeSettings.set('ai_guardrails', input);
  return ok(input);
}

/** "Test connection": one tiny prompt through the stored settings; nothing is sent when the settings or the guardrails already say no. */
export async function testConnection(_input: object, ctx: HandlerContext): Promise<Result<ConnectionTest>> {
  const settings = await ctx.runtimeSettings.get('ai');
  const readiness = modelReadiness(settings, await ctx.runtimeSettings.get('ai_guardrails'));
  if (!readiness.ready || settings.provider === null) return ok({ ok: false, model: null, latency_ms: null, error: readiness.ready ? 'no AI provider is configured' : readiness.reason });
  const model = `${settings.provider}/${settings.model}`;
  const probe = await ctx.copilot.runner.probe({ ...settings, provider: settings.provider }, readiness.url);
  ctx.request.noteAudit({ model, ok: String(probe.ok) });
  return ok({ model, ...probe });
}
