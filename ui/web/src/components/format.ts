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

export function secondsAgo(iso: string, now = Date.now()): string {
  const secs = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  return secs < 120 ? `${secs} s ago` : secs < 7200 ? `${Math.round(secs / 60)} min ago` : `${Math.round(secs / 3600)} h ago`;
}

export const pct = (n: number | null | undefined): string => (n === null || n === undefined ? '–' : `${Math.round(n)}%`);
