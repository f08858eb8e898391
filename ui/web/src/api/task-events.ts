// The Tasks tray's live events: `/tasks/events` (Server-Sent Events, read from a fetch body like
// the log follow) hands each task as it starts or ends to `onTask`. A broken stream is retried
// after a pause; the tray's poll still keeps the rows and the badge right meanwhile.
import { useEffect, useRef } from 'react';
import { readMessages } from '../copilot/sse';
import type { Task } from './queries/tasks';

const RETRY_MS = 5000;

export function useTaskEvents(onTask: (task: Task) => void): void {
  const handler = useRef(onTask);
  handler.current = onTask;
  useEffect(() => {
    const stop = new AbortController();
    void (async () => {
      while (!stop.signal.aborted) {
        try {
          const res = await fetch('/api/agent/tasks/events', { headers: { accept: 'text/event-stream' }, credentials: 'same-origin', signal: stop.signal });
          if (res.ok && res.body !== null) {
            for await (const raw of readMessages(res.body)) {
              const event = raw as { type: string; task?: Task };
              if (event.type === 'task' && event.task) handler.current(event.task);
            }
          }
        } catch {
          // Gone (the page left, the agent restarted): retried below unless stopped.
        }
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    })();
    return () => stop.abort();
  }, []);
}
