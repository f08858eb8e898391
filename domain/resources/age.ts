/** kubectl-style short age: `45s`, `12m`, `5h`, `3d`. */
export function shortAge(since: string | null, now: Date): string {
  if (since === null) return 'unknown';
  const secs = Math.max(0, Math.floor((now.getTime() - Date.parse(since)) / 1000));
  if (secs < 120) return `${secs}s`;
  if (secs < 2 * 3600) return `${Math.floor(secs / 60)}m`;
  if (secs < 2 * 86400) return `${Math.floor(secs / 3600)}h`;
  return `${Math.floor(secs / 86400)}d`;
}
