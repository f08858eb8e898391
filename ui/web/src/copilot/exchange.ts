// One question and its answer as the dock shows it, and how each streamed event changes it.
// Pure, so the event handling is unit-tested without a browser.
import type { ChatAnswer, ChatEvent } from '../api/chat.js';

export interface ToolStep {
  id: string;
  name: string;
  args: unknown;
  /** null while the tool runs. */
  ok: boolean | null;
  chars: number | null;
}

export interface Exchange {
  question: string;
  focus: string | null;
  tools: ToolStep[];
  /** The answer's text so far; replaced by the finished answer's when it arrives. */
  text: string;
  answer: ChatAnswer | null;
  error: unknown;
  stopped: boolean;
}

/** One exchange after one streamed event. */
export function applyEvent(x: Exchange, event: ChatEvent): Exchange {
  switch (event.type) {
    case 'tool-call':
      return { ...x, tools: [...x.tools, { id: event.id, name: event.name, args: event.args, ok: null, chars: null }] };
    case 'tool-result':
      return { ...x, tools: x.tools.map((t) => (t.id === event.id ? { ...t, ok: event.ok, chars: event.chars } : t)) };
    case 'text':
      return { ...x, text: x.text + event.delta };
    case 'done':
      return { ...x, text: event.answer, answer: event };
    case 'step':
    case 'error':
      return x;
  }
}
