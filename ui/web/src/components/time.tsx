// Every time the dashboard shows: relative ("3 min ago"), the absolute time on hover, and the
// machine-readable instant in `dateTime`. One shared clock re-renders them all, so hundreds of
// audit rows cost one timer.
import { useSyncExternalStore } from 'react';
import { absoluteTime, relativeTime } from './format';

const TICK_MS = 5000;
const listeners = new Set<() => void>();
let now = Date.now();
let timer: ReturnType<typeof setInterval> | undefined;

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  timer ??= setInterval(() => {
    now = Date.now();
    for (const l of listeners) l();
  }, TICK_MS);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}

/** Stable between calls (React requires it), and fresh when the clock was idle. */
function snapshot(): number {
  if (timer === undefined && Date.now() - now >= TICK_MS) now = Date.now();
  return now;
}

/** The current time, advancing every few seconds while anything on screen shows a time. */
export function useNow(): number {
  return useSyncExternalStore(subscribe, snapshot);
}

/** An instant from the agent (ISO 8601), or `absent` when there is none (`never`, `–`). */
export function Time({ at, absent = '–' }: { at: string | null | undefined; absent?: string }) {
  const current = useNow();
  if (at === null || at === undefined) return <>{absent}</>;
  if (Number.isNaN(Date.parse(at))) return <>{at}</>;
  return (
    <time dateTime={at} title={absoluteTime(at)}>
      {relativeTime(at, current)}
    </time>
  );
}
