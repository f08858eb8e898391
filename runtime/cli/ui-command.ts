import { parseArgs } from 'node:util';
import { DEFAULT_DIST, startUiServer, type UiServerOptions } from '../../ui/server.ts';
import { parseListen } from '../agent.ts';
import { parseProxySecret, parseTrustedProxies } from '../http/client-ip.ts';
import { untilSignal } from './signals.ts';

/**
 * What the chart tells `capstan ui` through its environment: the install secret it vouches for
 * client addresses with, the proxies in front of it (or how many append to X-Forwarded-For)
 * and whether the Ingress has TLS (HSTS). Throws naming the variable when a value is unusable.
 */
export function uiOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): Pick<UiServerOptions, 'proxySecret' | 'trustedProxies' | 'forwardedHops' | 'hsts'> {
  const hops = env.CAPSTAN_UI_FORWARDED_HOPS ?? '';
  if (hops !== '' && !/^[0-9]$/.test(hops)) throw new Error(`CAPSTAN_UI_FORWARDED_HOPS must be a whole number from 0 to 9, got "${hops}"`);
  const hsts = env.CAPSTAN_UI_HSTS ?? '';
  if (hsts !== '' && hsts !== 'true' && hsts !== 'false') throw new Error(`CAPSTAN_UI_HSTS must be true or false, got "${hsts}"`);
  return {
    proxySecret: parseProxySecret(env.CAPSTAN_UI_PROXY_SECRET),
    trustedProxies: parseTrustedProxies(env.CAPSTAN_TRUSTED_PROXY_CIDRS ?? ''),
    forwardedHops: hops === '' ? 0 : Number(hops),
    hsts: hsts === 'true',
  };
}

export async function runUiCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      listen: { type: 'string', default: ':3000' },
      'agent-url': { type: 'string', default: process.env.CAPSTAN_AGENT_URL ?? 'http://localhost:8080' },
      dist: { type: 'string', default: DEFAULT_DIST },
    },
    strict: true,
  });
  const agentUrl = values['agent-url'];
  if (!/^https?:\/\/[^\s/]+/.test(agentUrl)) throw new Error(`--agent-url must be an http(s) URL, got "${agentUrl}"`);
  const { hostname, port } = parseListen(values.listen);
  const ui = await startUiServer({ hostname, port, agentUrl, dist: values.dist, ...uiOptionsFromEnv() });
  process.stdout.write(`dashboard on ${ui.url}, proxying /api/agent/* to ${agentUrl}\n`);
  await untilSignal();
  await ui.close();
  return 0;
}
