// Following a container's log: the follow route's Server-Sent Events read from a fetch body
// (the same framing as the copilot's chat), lines gathered and handed to React a few times a
// second rather than once per line, and only the newest MAX_LINES kept on the page.
import { useEffect, useState } from 'react';
import { readMessages } from '../copilot/sse';

/** Lines a page keeps; older ones are dropped (and counted) so a chatty log cannot grow the page without bound. */
export const MAX_LINES = 5000;
const FLUSH_MS = 150;

export interface LogEnd {
  reason: string;
  message: string | null;
}

export interface Followed {
  lines: string[];
  /** Older lines dropped to stay under MAX_LINES. */
  dropped: number;
  /** Why the follow ended (the agent's `end` event), or null while it runs. */
  end: LogEnd | null;
  /** The refusal (a 429 past the caps, a 404) or a broken connection. */
  error: string | null;
}

const EMPTY: Followed = { lines: [], dropped: 0, end: null, error: null };

type LogEvent = { type: 'line'; line: string } | { type: 'end'; reason: string; message: string | null } | { type: 'error'; message: string };

/** Follows `url` while it is not null; a new url starts over, null (or unmounting) stops and closes the connection. */
export function useLogFollow(url: string | null): Followed {
  const [state, setState] = useState<Followed>(EMPTY);
  useEffect(() => {
    setState(EMPTY);
    if (url === null) return;
    const stop = new AbortController();
    let pending: string[] = [];
    const flush = () => {
      if (pending.length === 0) return;
      const arrived = pending;
      pending = [];
      setState((s) => {
        const all = [...s.lines, ...arrived];
        const over = Math.max(0, all.length - MAX_LINES);
        return { ...s, lines: over > 0 ? all.slice(over) : all, dropped: s.dropped + over };
      });
    };
    const timer = setInterval(flush, FLUSH_MS);
    void (async () => {
      try {
        const res = await fetch(url, { headers: { accept: 'text/event-stream' }, credentials: 'same-origin', signal: stop.signal });
        if (!res.ok || res.body === null) {
          const body = (await res.json().catch(() => ({}))) as { message?: string };
          setState((s) => ({ ...s, error: body.message ?? `the agent answered ${res.status}` }));
          return;
        }
        for await (const raw of readMessages(res.body)) {
          const event = raw as LogEvent;
          if (event.type === 'line') pending.push(event.line);
          else if (event.type === 'end') {
            flush();
            setState((s) => ({ ...s, end: { reason: event.reason, message: event.message } }));
          } else {
            flush();
            setState((s) => ({ ...s, error: event.message }));
          }
        }
        flush();
      } catch (err) {
        if (!stop.signal.aborted) setState((s) => ({ ...s, error: err instanceof Error ? err.message : String(err) }));
      }
    })();
    return () => {
      clearInterval(timer);
      stop.abort();
    };
  }, [url]);
  return state;
}
