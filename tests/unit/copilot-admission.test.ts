import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { admitRun, FREE_DAILY_CHAT_PROMPTS, type RunKind, type UsageToday } from '../../handlers/copilot/admission.ts';
import type { Licensing } from '../../handlers/access/service.ts';
import type { Role } from '../../schema/access.ts';
import { DEFAULT_GUARDRAILS, type AiGuardrails } from '../../schema/copilot.ts';

const free: Licensing = { tier: 'free', has: (f) => f === 'mcp' };
const pro: Licensing = { tier: 'pro', has: () => true };
const none: UsageToday = { chat_prompts: 0, runs: 0, tokens: 0, install_tokens: 0 };

describe('admitting an AI run', () => {
  const caps = (c: Partial<AiGuardrails['cost_caps']>): AiGuardrails => ({ ...DEFAULT_GUARDRAILS, cost_caps: { ...DEFAULT_GUARDRAILS.cost_caps, ...c } });
  const cases: [string, RunKind, Role, Licensing, AiGuardrails, Partial<UsageToday>, string | null][] = [
    ['a first prompt', 'chat', 'admin', free, DEFAULT_GUARDRAILS, {}, null],
    ['master switch off', 'chat', 'admin', pro, { ...DEFAULT_GUARDRAILS, enabled: false }, {}, 'ai_disabled'],
    ['master switch off refuses Diagnose too', 'diagnose', 'admin', pro, { ...DEFAULT_GUARDRAILS, enabled: false }, {}, 'ai_disabled'],
    ['Free: the 15th prompt of the day', 'chat', 'admin', free, DEFAULT_GUARDRAILS, { chat_prompts: FREE_DAILY_CHAT_PROMPTS - 1 }, null],
    ['Free: the 16th prompt', 'chat', 'admin', free, DEFAULT_GUARDRAILS, { chat_prompts: FREE_DAILY_CHAT_PROMPTS }, 'ai_limit_reached'],
    ['Free: Diagnose is not a chat prompt', 'diagnose', 'admin', free, DEFAULT_GUARDRAILS, { chat_prompts: 99 }, null],
    ['a license lifts the Free limit', 'chat', 'admin', pro, DEFAULT_GUARDRAILS, { chat_prompts: 99 }, null],
    ['viewer: the 50th run', 'diagnose', 'viewer', pro, DEFAULT_GUARDRAILS, { runs: 49 }, null],
    ['viewer: past the daily limit', 'diagnose', 'viewer', pro, DEFAULT_GUARDRAILS, { runs: 50 }, 'ai_limit_reached'],
    ['admins are not counted', 'diagnose', 'admin', pro, DEFAULT_GUARDRAILS, { runs: 500 }, null],
    ['0 means unlimited', 'diagnose', 'viewer', pro, caps({ viewer_ai_daily_limit: 0 }), { runs: 10_000 }, null],
    ['the actor token cap', 'chat', 'admin', pro, caps({ daily_tokens_per_actor: 1000 }), { tokens: 1000 }, 'ai_limit_reached'],
    ['below the actor token cap', 'chat', 'admin', pro, caps({ daily_tokens_per_actor: 1000 }), { tokens: 999 }, null],
    ['the install token cap', 'report', 'admin', pro, caps({ daily_tokens_install: 5000 }), { install_tokens: 5000 }, 'ai_limit_reached'],
  ];
  for (const [name, kind, role, licensing, guardrails, usage, want] of cases) {
    it(name, () => {
      const refusal = admitRun({ kind, role, licensing, guardrails, usage: { ...none, ...usage } });
      assert.equal(refusal?.code ?? null, want);
      if (refusal?.code === 'ai_limit_reached') {
        assert.equal(refusal.feature, 'copilot');
        assert.ok(refusal.upgrade.length > 0);
      }
    });
  }
});
