// The facts an SRE report adds to the diagnosis: namespace health as the overview grades it,
// and how the cluster's CPU and memory moved over the report's window (resource history).
// Written as markdown with node-id citations, so the model gets them as context and an answer
// produced without a model carries them as they are. Pure: the caller reads overview and history.
import type { NamespaceHealth } from '../../schema/overview.ts';

/** The cluster's CPU and memory in one resource-history sample (null: a gap). Not the security score trend (schema/security-scan.ts ScoreTrendPoint). */
export interface UsageSample {
  cpuM: number | null;
  memBytes: number | null;
}

/** Unhealthy namespaces named one by one; the rest are counted. */
const NAMED_NAMESPACES = 10;

export function healthSection(namespaces: readonly NamespaceHealth[]): string {
  const count = (h: NamespaceHealth['health_score']) => namespaces.filter((n) => n.health_score === h).length;
  const lines = [`## Health`, `${namespaces.length} namespaces: ${count('critical')} critical, ${count('degraded')} degraded, ${count('unknown')} unknown, ${count('healthy')} healthy.`];
  const unhealthy = namespaces.filter((n) => n.health_score === 'critical' || n.health_score === 'degraded');
  for (const n of unhealthy.slice(0, NAMED_NAMESPACES)) lines.push(`- [namespace:${n.namespace}] ${n.health_score}: ${n.reasons.slice(0, 2).join('; ') || 'no reason given'}`);
  if (unhealthy.length > NAMED_NAMESPACES) lines.push(`- and ${unhealthy.length - NAMED_NAMESPACES} more unhealthy namespaces`);
  return lines.join('\n');
}

/** The mean of the first and of the last quarter of the window's samples (ignoring gaps), so one spike is not a trend. */
function ends(values: readonly (number | null)[]): { from: number; to: number } | null {
  const known = values.filter((x): x is number => x !== null);
  if (known.length < 2) return null;
  const q = Math.max(1, Math.floor(known.length / 4));
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return { from: mean(known.slice(0, q)), to: mean(known.slice(-q)) };
}

const change = (from: number, to: number) => (from === 0 ? (to === 0 ? 'flat' : 'up from zero') : `${to >= from ? '+' : '−'}${Math.abs(Math.round(((to - from) / from) * 100))} %`);
const cores = (m: number) => `${(m / 1000).toFixed(2)} cores`;
const gib = (b: number) => `${(b / 2 ** 30).toFixed(2)} GiB`;

export function trendSection(points: readonly UsageSample[], windowHours: number): string {
  const cpu = ends(points.map((p) => p.cpuM));
  const mem = ends(points.map((p) => p.memBytes));
  const lines = [`## Trends over the last ${windowHours} h (cluster, from resource history)`];
  if (cpu === null && mem === null) lines.push('Not enough resource history in this window to call a trend.');
  if (cpu !== null) lines.push(`- CPU in use: ${cores(cpu.from)} → ${cores(cpu.to)} (${change(cpu.from, cpu.to)})`);
  if (mem !== null) lines.push(`- Memory in use: ${gib(mem.from)} → ${gib(mem.to)} (${change(mem.from, mem.to)})`);
  return lines.join('\n');
}
