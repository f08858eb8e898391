export function bytes(n: number | null | undefined): string {
  if (n === null || n === undefined) return '–';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = n;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value >= 100 || unit === 0 ? 0 : 1)} ${units[unit] ?? 'B'}`;
}

export const millicores = (n: number | null | undefined): string => (n === null || n === undefined ? '–' : n >= 1000 ? `${(n / 1000).toFixed(2)} cores` : `${Math.round(n)}m`);

export const rate = (n: number | null | undefined): string => (n === null || n === undefined ? '–' : `${bytes(n)}/s`);

/** `45 s ago`, `12 min ago`, `3 h ago`, `2 d ago`, or `in 20 min` for the future. A time
 * less than a minute ahead (clock skew between agent and browser) reads as now. */
export function relativeTime(iso: string, now: number): string {
  const diff = (now - Date.parse(iso)) / 1000;
  const future = diff < -60;
  const secs = Math.round(future ? -diff : Math.max(0, diff));
  const amount = secs < 120 ? `${secs} s` : secs < 7200 ? `${Math.round(secs / 60)} min` : secs < 172_800 ? `${Math.round(secs / 3600)} h` : `${Math.round(secs / 86_400)} d`;
  return future ? `in ${amount}` : `${amount} ago`;
}

const ABSOLUTE = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'long' });

/** The full date and time in the reader's locale and time zone, e.g. `Nov 23, 2026, 3:04:05 PM UTC`. */
export const absoluteTime = (iso: string): string => ABSOLUTE.format(new Date(iso));

export const pct = (n: number | null | undefined): string => (n === null || n === undefined ? '–' : `${Math.round(n)}%`);

/** A resource row's column as shown: `_m` columns are millicores, `_bytes` columns bytes (the agent names its units so); anything else as it comes. */
export function formatColumn(key: string, value: string | number | null): string {
  if (value === null) return '–';
  if (typeof value === 'number' && key.endsWith('_m')) return millicores(value);
  if (typeof value === 'number' && key.endsWith('_bytes')) return bytes(value);
  return String(value);
}

/** `cpu_requested_m` → `Cpu requested`: the unit is in the value. */
/** A row column's header: `cpu_requested_m` → `CPU requested` (the unit is the cell's to say). */
export const columnLabel = (key: string): string => {
  const words = key.replace(/_(m|bytes)$/, '').split('_');
  return words.map((w, i) => (w === 'cpu' ? 'CPU' : i === 0 ? w.charAt(0).toUpperCase() + w.slice(1) : w)).join(' ');
};
