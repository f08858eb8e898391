// Whether an AI run may start, before anything is sent anywhere (spec §7, §8): the master
// switch (403), the Free tier's 15 chat prompts per actor per day (402), a viewer's daily runs
// (`cost_caps.viewer_ai_daily_limit`, admins not counted, 402), and the daily token caps per
// actor and per install (402). The per-session rate limit (429) is the runtime's `ai` class.
// The two daily counts are checked and taken in one step (`reserveRun`), never check-then-count.
import type { Role } from '../../schema/access.ts';
import type { AiGuardrails } from '../../schema/copilot.ts';
import type { Licensing } from '../license/service.ts';
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

/** The daily counts that bound this run (spec §8): null where none applies. */
export interface RunLimits {
  /** The Free tier's chat prompts per actor per day. */
  chat_prompts: number | null;
  /** A viewer's AI runs per day (`cost_caps.viewer_ai_daily_limit`). */
  runs: number | null;
}

export function runLimits(q: { kind: RunKind; role: Role; licensing: Licensing; guardrails: AiGuardrails }): RunLimits {
  const viewerLimit = q.guardrails.cost_caps.viewer_ai_daily_limit;
  return {
    chat_prompts: q.kind === 'chat' && !q.licensing.has('copilot') ? FREE_DAILY_CHAT_PROMPTS : null,
    runs: q.role === 'viewer' && viewerLimit > 0 ? viewerLimit : null,
  };
}

/** The refusal for a daily count `usage` has used up, else null. */
export function limitRefusal(limits: RunLimits, usage: Pick<UsageToday, 'chat_prompts' | 'runs'>): AppError | null {
  if (limits.chat_prompts !== null && usage.chat_prompts >= limits.chat_prompts) {
    return { code: 'ai_limit_reached', message: `the Free tier allows ${limits.chat_prompts} copilot chat prompts per day; today's are used`, feature: 'copilot', upgrade: LICENSE_HINT };
  }
  if (limits.runs !== null && usage.runs >= limits.runs) {
    return { code: 'ai_limit_reached', message: `viewers may start ${limits.runs} AI runs per day; today's are used`, feature: 'copilot', upgrade: CAP_HINT };
  }
  return null;
}

/**
 * Why a reservation was refused: the limit its counts reached (one of `limits` is set, or
 * nothing could refuse it). Read after the refusal, the counts are below it only if the UTC day
 * turned in between: the run is refused all the same, naming the limit that applies.
 */
export function reservationRefusal(limits: RunLimits, usage: Pick<UsageToday, 'chat_prompts' | 'runs'>): AppError {
  const full = { chat_prompts: limits.chat_prompts ?? 0, runs: limits.runs ?? 0 };
  return limitRefusal(limits, usage) ?? limitRefusal(limits, full) ?? { code: 'ai_limit_reached', message: "today's AI runs are used", feature: 'copilot', upgrade: CAP_HINT };
}

/**
 * Whether a run may start, judged on what was used so far. This is the early answer (nothing
 * is counted by it); the daily counts are then taken in one atomic step with their check
 * (`CopilotStore.reserveRun`), which is what holds under parallel prompts.
 */
export function admitRun(q: { kind: RunKind; role: Role; licensing: Licensing; guardrails: AiGuardrails; usage: UsageToday }): AppError | null {
  const { guardrails: g, usage } = q;
  if (!g.enabled) return { code: 'ai_disabled', message: 'AI is switched off in AI Guardrails' };
  const counted = limitRefusal(runLimits(q), usage);
  if (counted) return counted;
  const actorCap = g.cost_caps.daily_tokens_per_actor;
  if (actorCap > 0 && usage.tokens >= actorCap) return { code: 'ai_limit_reached', message: `your daily AI token cap (${actorCap}) is reached`, feature: 'copilot', upgrade: CAP_HINT };
  const installCap = g.cost_caps.daily_tokens_install;
  if (installCap > 0 && usage.install_tokens >= installCap) return { code: 'ai_limit_reached', message: `this install's daily AI token cap (${installCap}) is reached`, feature: 'copilot', upgrade: CAP_HINT };
  return null;
}
