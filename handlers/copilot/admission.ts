// Whether an AI run may start, before anything is sent anywhere (spec §7, §8): the master
// switch (403), the Free tier's 15 chat prompts per actor per day (402), a viewer's daily runs
// (`cost_caps.viewer_ai_daily_limit`, admins not counted, 402), and the daily token caps per
// actor and per install (402). The per-session rate limit (429) is the runtime's `ai` class.
import type { Role } from '../../schema/access.ts';
import type { AiGuardrails } from '../../schema/copilot.ts';
import type { Licensing } from '../access/service.ts';
import type { AppError } from '../result.ts';

/** Free tier: chat prompts per actor per UTC day. */
export const FREE_DAILY_CHAT_PROMPTS = 15;

export type RunKind = 'chat' | 'diagnose' | 'report';

/** What one actor, and the install, have used today (UTC). */
export interface UsageToday {
  chat_prompts: number;
  runs: number;
  tokens: number;
  install_tokens: number;
}

const LICENSE_HINT = 'A Capstan license tier that includes the copilot lifts the Free daily limit; an admin can add one under Admin → License.';
const CAP_HINT = 'An admin can raise it under Admin → AI → Guardrails → cost caps; it resets at 00:00 UTC.';

export function admitRun(q: { kind: RunKind; role: Role; licensing: Licensing; guardrails: AiGuardrails; usage: UsageToday }): AppError | null {
  const { guardrails: g, usage } = q;
  if (!g.enabled) return { code: 'ai_disabled', message: 'AI is switched off in AI Guardrails' };
  if (q.kind === 'chat' && !q.licensing.has('copilot') && usage.chat_prompts >= FREE_DAILY_CHAT_PROMPTS) {
    return { code: 'ai_limit_reached', message: `the Free tier allows ${FREE_DAILY_CHAT_PROMPTS} copilot chat prompts per day; today's are used`, feature: 'copilot', upgrade: LICENSE_HINT };
  }
  const viewerLimit = g.cost_caps.viewer_ai_daily_limit;
  if (q.role === 'viewer' && viewerLimit > 0 && usage.runs >= viewerLimit) {
    return { code: 'ai_limit_reached', message: `viewers may start ${viewerLimit} AI runs per day; today's are used`, feature: 'copilot', upgrade: CAP_HINT };
  }
  const actorCap = g.cost_caps.daily_tokens_per_actor;
  if (actorCap > 0 && usage.tokens >= actorCap) return { code: 'ai_limit_reached', message: `your daily AI token cap (${actorCap}) is reached`, feature: 'copilot', upgrade: CAP_HINT };
  const installCap = g.cost_caps.daily_tokens_install;
  if (installCap > 0 && usage.install_tokens >= installCap) return { code: 'ai_limit_reached', message: `this install's daily AI token cap (${installCap}) is reached`, feature: 'copilot', upgrade: CAP_HINT };
  return null;
}
