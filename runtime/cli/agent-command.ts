import { parseArgs } from 'node:util';
import { startAgent } from '../agent.ts';
import type { CookieSecure } from '../http/app.ts';
import { DEFAULT_SHEDDING } from '../http/middleware/load-shedding.ts';
import { createLogger } from '../log.ts';
import { untilSignal } from './signals.ts';

export async function runAgentCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      kubeconfig: { type: 'string' },
      listen: { type: 'string', default: ':8080' },
      'data-dir': { type: 'string', default: process.env.CAPSTAN_DATA_DIR ?? './data' },
      'tenant-namespaces': { type: 'string', default: process.env.CAPSTAN_TENANT_NAMESPACES ?? '' },
    },
    strict: true,
  });
  const agent = await startAgent({
    kubeconfig: values.kubeconfig ?? process.env.KUBECONFIG,
    listen: values.listen,
    dataDir: values['data-dir'],
    settings: { tenantNamespaces: splitList(values['tenant-namespaces']) },
    apiDocs: process.env.CAPSTAN_ENABLE_API_DOCS === 'true',
    accounts: { adminPassword: process.env.CAPSTAN_ADMIN_PASSWORD, viewerPassword: process.env.CAPSTAN_VIEWER_PASSWORD },
    sessionIdleTimeoutSecs: parseWholeNumber(process.env.CAPSTAN_SESSION_IDLE_TIMEOUT, 28800, 'CAPSTAN_SESSION_IDLE_TIMEOUT'),
    cookieSecure: parseCookieSecure(process.env.CAPSTAN_COOKIE_SECURE),
    trustedProxyCidrs: process.env.CAPSTAN_TRUSTED_PROXY_CIDRS ?? '',
    shedding: { ...DEFAULT_SHEDDING, maxInFlight: parsePositive(process.env.CAPSTAN_MAX_IN_FLIGHT, DEFAULT_SHEDDING.maxInFlight, 'CAPSTAN_MAX_IN_FLIGHT') },
    log: createLogger(),
  });
  await untilSignal();
  await agent.close();
  return 0;
}

export function splitList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function parseWholeNumber(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a whole number, got "${value}"`);
  return n;
}

function parsePositive(value: string | undefined, fallback: number, name: string): number {
  const n = parseWholeNumber(value, fallback, name);
  if (n === 0) throw new Error(`${name} must be at least 1`);
  return n;
}

function parseCookieSecure(value: string | undefined): CookieSecure {
  if (value === undefined || value === '') return 'auto';
  if (value === 'auto' || value === 'true' || value === 'false') return value;
  throw new Error(`CAPSTAN_COOKIE_SECURE must be auto, true or false, got "${value}"`);
}
