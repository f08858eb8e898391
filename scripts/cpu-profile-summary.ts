// Summarises a V8 .cpuprofile (node --cpu-prof) by where the time goes on the read path. A
// sample is charged to the innermost frame on its stack that belongs to a *purpose* (the
// credential check, the audit log, a handler, ...), so the SQLite work done for a key lookup
// counts as the key lookup; only a sample with no purpose on its stack is charged by
// *mechanism* (database, socket write, HTTP parsing, ...), innermost first. Used by
// scripts/profile-read-path.ts; `node --import tsx scripts/cpu-profile-summary.ts FILE` prints it.
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  hitCount: number;
  children?: number[];
}

export interface ProfileShare {
  category: string;
  percent: number;
}

/** A purpose or a mechanism; within each, the innermost frame decides and, on one frame, the first entry here. */
export const CATEGORIES: readonly { name: string; purpose: boolean; matches: (fn: string, url: string) => boolean }[] = [
  { name: 'idle (waiting for the client or the kernel)', purpose: false, matches: (fn) => fn === '(idle)' },
  { name: 'garbage collection', purpose: false, matches: (fn) => fn === '(garbage collector)' },
  { name: 'credential check (key hash, lookup, cache)', purpose: true, matches: (fn, url) => /resolveApiKey|resolveSession|secretMatches|verifySessionToken/.test(fn) || /credential-cache/.test(url) },
  { name: 'audit and access log', purpose: true, matches: (_fn, url) => /audit-log|middleware\/audit/.test(url) },
  { name: 'rate limits and load shedding', purpose: true, matches: (_fn, url) => /rate-limit|anonymous-limit|load-shedding/.test(url) },
  { name: 'IP access', purpose: true, matches: (_fn, url) => /ip-access|ip-guard|access\/cidr/.test(url) },
  { name: 'input validation (valibot)', purpose: true, matches: (_fn, url) => /valibot/.test(url) },
  { name: 'MCP SDK (transport, protocol, zod)', purpose: true, matches: (_fn, url) => /@modelcontextprotocol|zod/.test(url) },
  { name: 'handler (cluster read, answer built)', purpose: true, matches: (_fn, url) => /\/handlers\/|\/domain\//.test(url) },
  { name: 'serialisation (JSON.stringify)', purpose: true, matches: (fn) => fn === 'stringify' },
  { name: 'database (other queries)', purpose: false, matches: (_fn, url) => /kysely|libsql|store\/database/.test(url) },
  { name: 'response write (socket, writev)', purpose: false, matches: (fn, url) => fn === 'writev' || fn === 'writeBuffer' || /stream_base_commons|_http_outgoing/.test(url) },
  { name: 'HTTP parse and request objects (node, @hono/node-server)', purpose: false, matches: (_fn, url) => /_http_server|_http_common|_http_incoming|@hono\/node-server|undici/.test(url) },
  { name: 'routing and middleware chain (hono, runtime/http)', purpose: false, matches: (_fn, url) => /\/hono\/|runtime\/http/.test(url) },
  { name: 'informers (watch, decode, slim)', purpose: false, matches: (_fn, url) => /runtime\/kube|node-fetch|zlib/.test(url) },
  { name: 'module loading at start', purpose: false, matches: (_fn, url) => /loader|module_job|translators|esm\/|tsx/.test(url) },
];

export function summarise(profile: { nodes: ProfileNode[] }): ProfileShare[] {
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const total = profile.nodes.reduce((sum, n) => sum + n.hitCount, 0);
  const charged = new Map<string, number>();
  for (const node of profile.nodes) {
    if (node.hitCount === 0) continue;
    const stack: ProfileNode['callFrame'][] = [];
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const frame = byId.get(id)?.callFrame;
      if (frame) stack.push(frame);
    }
    const charge = (purpose: boolean) => {
      for (const frame of stack) {
        const hit = CATEGORIES.find((c) => c.purpose === purpose && c.matches(frame.functionName, frame.url));
        if (hit) return hit.name;
      }
      return null;
    };
    const category = charge(true) ?? charge(false) ?? 'other';
    charged.set(category, (charged.get(category) ?? 0) + node.hitCount);
  }
  return [...charged]
    .map(([category, hits]) => ({ category, percent: Math.round((1000 * hits) / Math.max(1, total)) / 10 }))
    .sort((a, b) => b.percent - a.percent);
}

export function markdownShares(shares: readonly ProfileShare[]): string {
  return ['| where | share of samples |', '|---|---|', ...shares.map((s) => `| ${s.category} | ${s.percent} % |`)].join('\n');
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  const file = process.argv[2];
  if (file === undefined) throw new Error('usage: cpu-profile-summary.ts FILE.cpuprofile');
  process.stdout.write(markdownShares(summarise(JSON.parse(readFileSync(file, 'utf8')) as { nodes: ProfileNode[] })) + '\n');
}
