import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { admitRun, FREE_DAILY_CHAT_PROMPTS, reservationRefusal, runLimits, type RunKind, type RunLimits, type UsageToday } from '../../handlers/copilot/admission.ts';
import type { Licensing } from '../../handlers/license/service.ts';
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

describe('the daily counts a run reserves', () => {
  const viewerCap = (n: number): AiGuardrails => ({ ...DEFAULT_GUARDRAILS, cost_caps: { ...DEFAULT_GUARDRAILS.cost_caps, viewer_ai_daily_limit: n } });
  const cases: [string, RunKind, Role, Licensing, AiGuardrails, RunLimits][] = [
    ['Free: a chat prompt of an admin', 'chat', 'admin', free, DEFAULT_GUARDRAILS, { chat_prompts: FREE_DAILY_CHAT_PROMPTS, runs: null }],
    ['Free: a chat prompt of a viewer counts both', 'chat', 'viewer', free, viewerCap(3), { chat_prompts: FREE_DAILY_CHAT_PROMPTS, runs: 3 }],
    ['Free: a Diagnose is no chat prompt', 'diagnose', 'viewer', free, viewerCap(3), { chat_prompts: null, runs: 3 }],
    ['licensed: no chat limit', 'chat', 'viewer', pro, viewerCap(3), { chat_prompts: null, runs: 3 }],
    ['an admin has no run limit', 'report', 'admin', pro, viewerCap(3), { chat_prompts: null, runs: null }],
    ['0 means no viewer limit', 'diagnose', 'viewer', pro, viewerCap(0), { chat_prompts: null, runs: null }],
  ];
  for (const [name, kind, role, licensing, guardrails, want] of cases) it(name, () => assert.deepEqual(runLimits({ kind, role, licensing, guardrails }), want));

  const refusals: [string, RunLimits, { chat_prompts: number; runs: number }, RegExp][] = [
    ['the Free limit reached', { chat_prompts: 15, runs: 3 }, { chat_prompts: 15, runs: 2 }, /Free tier allows 15/],
    ['the viewer limit reached', { chat_prompts: 15, runs: 3 }, { chat_prompts: 2, runs: 3 }, /viewers may start 3/],
    ['the day turned between the refusal and the read: the limit that applies', { chat_prompts: null, runs: 3 }, { chat_prompts: 0, runs: 0 }, /viewers may start 3/],
    ['nothing could refuse it: refused all the same', { chat_prompts: null, runs: null }, { chat_prompts: 0, runs: 0 }, /today's AI runs are used/],
  ];
  for (const [name, limits, usage, message] of refusals) {
    it(`a refused reservation: ${name}`, () => {
      const refusal = reservationRefusal(limits, usage);
      assert.equal(refusal.code, 'ai_limit_reached');
      assert.match(refusal.message, message);
    });
  }
});
