// Takes a prepared run to its model: opens the stored key (or uses this request's own, which
// goes to the provider client and nowhere else), runs the tool loop, and keeps the prompt
// audit: what was sent and what came back, redacted, for `retention_days` (30 by default).
import { generateText } from 'ai';
import type { Clock } from '../../domain/clock.ts';
import { redactText } from '../../domain/redaction/redact.ts';
import type { ModelRunner, RunRequest, RunResult } from '../../handlers/copilot/service.ts';
import type { Secrets } from '../../handlers/settings/service.ts';
import type { RuntimeSettings } from '../../handlers/settings/service.ts';
import type { Db } from '../store/database.ts';
import { DEFAULT_LIMITS, runLoop } from './loop.ts';
import { languageModel } from './provider.ts';

const DAY_MS = 24 * 3600 * 1000;
const PRUNE_INTERVAL_MS = 3600 * 1000;
/** The prompt audit keeps at most this much of each side of a run. */
const MAX_LOGGED_CHARS = 64 * 1024;

/** `fetch`: the outbound client's (runtime/outbound/client.ts), every provider request goes through it. */
export function createModelRunner(db: Db, clock: Clock, secrets: Secrets, settings: RuntimeSettings, fetch: typeof globalThis.fetch): ModelRunner {
  let prunedAt = 0;
  return {
    async run(request: RunRequest): Promise<RunResult> {
      const apiKey = request.requestKey ?? (request.settings.api_key_sealed === null ? null : secrets.open(request.settings.api_key_sealed));
      const model = languageModel({ provider: request.settings.provider, model: request.settings.model, url: request.url, apiKey, fetch });
      const result = await runLoop({
        model,
        system: request.system,
        context: request.context,
        history: request.history.map((t) => ({ role: t.role, content: t.content })),
        question: request.question,
        tools: request.tools,
        searchContext: request.searchContext,
        ctx: request.ctx,
        redaction: request.redaction,
        limits: DEFAULT_LIMITS,
        ...(request.signal ? { signal: request.signal } : {}),
        emit: request.emit,
      });
      if (request.audit.keepPrompt) {
        const now = clock.now().getTime();
        const sent = redactText(JSON.stringify({ system: request.system, context: request.context.text, history: request.history, question: request.question })).slice(0, MAX_LOGGED_CHARS);
        await db
          .insertInto('ai_prompt_log')
          .values({ ts: now, actor: request.audit.actor, kind: request.audit.kind, provider: request.settings.provider, model: request.settings.model, sent, received: redactText(result.answer).slice(0, MAX_LOGGED_CHARS), input_tokens: result.usage.input_tokens, output_tokens: result.usage.output_tokens })
          .execute();
        if (now - prunedAt >= PRUNE_INTERVAL_MS) {
          prunedAt = now;
          const days = (await settings.get('ai_guardrails')).prompt_audit.retention_days;
          await db.deleteFrom('ai_prompt_log').where('ts', '<', now - days * DAY_MS).execute();
        }
      }
      return result;
    },
    async probe(probeSettings, url) {
      const started = clock.now().getTime();
      try {
        const apiKey = probeSettings.api_key_sealed === null ? null : secrets.open(probeSettings.api_key_sealed);
        await generateText({
          model: languageModel({ provider: probeSettings.provider, model: probeSettings.model, url, apiKey, fetch }),
          prompt: 'Reply with the single word OK.',
          maxOutputTokens: 8,
          maxRetries: 0,
          abortSignal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
        });
        return { ok: true, latency_ms: clock.now().getTime() - started, error: null };
      } catch (err) {
        return { ok: false, latency_ms: clock.now().getTime() - started, error: redactText(err instanceof Error ? err.message : String(err)).slice(0, 500) };
      }
    },
  };
}

/** How long "test connection" waits for the provider. */
const PROBE_TIMEOUT_MS = 15_000;
