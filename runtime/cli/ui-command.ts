import { parseArgs } from 'node:util';
import { DEFAULT_DIST, startUiServer } from '../../ui/server.ts';
import { parseListen } from '../agent.ts';
import { untilSignal } from './signals.ts';

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
  const ui = await startUiServer({ hostname, port, agentUrl, dist: values.dist });
  process.stdout.write(`dashboard on ${ui.url}, proxying /api/agent/* to ${agentUrl}\n`);
  await untilSignal();
  await ui.close();
  return 0;
}
