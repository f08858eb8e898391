import { runAgentCommand } from './agent-command.ts';
import { runDemoCommand } from './demo-command.ts';
import { runLocalClusterCommand } from './localcluster-command.ts';
import { runEnableLocalLoginCommand, runRecoverAdminCommand } from './recovery-commands.ts';
import { runUiCommand } from './ui-command.ts';

const COMMANDS: Record<string, { summary: string; run: (args: string[]) => Promise<number> }> = {
  agent: { summary: 'Run the REST agent (default :8080)', run: runAgentCommand },
  ui: { summary: 'Serve the dashboard (default :3000), proxying /api/agent/* to the agent', run: runUiCommand },
  localcluster: { summary: 'Start, inspect or stop a local control plane with KWOK nodes', run: runLocalClusterCommand },
  demo: { summary: 'Local control plane + demo scenario + agent, all in one', run: runDemoCommand },
  'recover-admin': { summary: 'Reset an admin password, second factor, IP bans and password sign-in (run in the agent pod)', run: runRecoverAdminCommand },
  'enable-local-login': { summary: 'Turn password sign-in back on (--admin-only for admins only)', run: runEnableLocalLoginCommand },
};

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const command = name ? COMMANDS[name] : undefined;
  if (!command) {
    const list = Object.entries(COMMANDS).map(([n, c]) => `  ${n.padEnd(14)}${c.summary}`).join('\n');
    process.stderr.write(`usage: capstan <command> [options]\n\ncommands:\n${list}\n`);
    return name === undefined || name === '--help' || name === '-h' ? 0 : 2;
  }
  try {
    return await command.run(rest);
  } catch (err) {
    process.stderr.write(`capstan ${name}: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}
