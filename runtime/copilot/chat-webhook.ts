// Posting to a chat incoming webhook (`alerting.chatWebhookUrl`, env CAPSTAN_CHAT_WEBHOOK_URL):
// a JSON body `{"text": ...}`, the shape Slack, Mattermost and Rocket.Chat incoming webhooks
// take. Bounded (10 s, 40,000 characters); a failure is logged and answered, never thrown, so a
// report is stored whether or not the chat took it. Sent through the outbound client
// (docs/security.md "Outbound calls").
import { neutraliseChatText } from '../../domain/copilot/chat-text.ts';
import type { ChatWebhook } from '../../handlers/copilot/service.ts';
import type { Logger } from '../log.ts';

const TIMEOUT_MS = 10_000;
/** Slack cuts a message's text at 40,000 characters. */
const MAX_TEXT_CHARS = 40_000;

/** `fetch`: the outbound client's (runtime/outbound/client.ts): no redirects, refused addresses, a size cap. */
export function createChatWebhook(url: string | null, log: Logger, fetch: typeof globalThis.fetch): ChatWebhook | null {
  if (url === null) return null;
  const host = new URL(url).host;
  return {
    async post(text: string) {
      // Nothing posted pings anyone or hides where a link goes (domain/copilot/chat-text.ts): a report quotes cluster text.
      const inert = neutraliseChatText(text);
      const body = JSON.stringify({ text: inert.length > MAX_TEXT_CHARS ? `${inert.slice(0, MAX_TEXT_CHARS - 1)}…` : inert });
      try {
        const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(TIMEOUT_MS) });
        await res.body?.cancel();
        if (res.ok) return { ok: true, error: null };
        log.warn('chat webhook refused a post', { host, status: res.status });
        return { ok: false, error: `the chat webhook answered ${res.status}` };
      } catch (err) {
        const error = err instanceof Error ? err.message : 'unknown error';
        log.warn('chat webhook post failed', { host, error });
        return { ok: false, error };
      }
    },
  };
}
