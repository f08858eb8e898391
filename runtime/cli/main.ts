// Each command's module is imported when that command runs: the agent does not load the UI
// server (tests/bench/results/memory.md). The development commands (`localcluster`, `demo`) live
// in dev/, which runtime/ never imports and the images do not contain: bin/capstan.js passes them
// in where dev/ exists.
export type Command = { summary: string; run: (args: string[]) => Promise<number> };

const COMMANDS: Record<string, Command> = {
  agent: { summary: 'Run the REST agent (default :8080)', run: async (args) => (await import('./agent-command.ts')).runAgentCommand(args) },
  ui: { summary: 'Serve the dashboard (default :3000), proxying /api/agent/* to the agent', run: async (args) => (await import('./ui-command.ts')).runUiCommand(args) },
  terminal: { summary: 'Run the terminal sidecar: shells in PTYs for the agent, on loopback', run: async (args) => (await import('./terminal-command.ts')).runTerminalCommand(args) },
  expert: { summary: 'Run the expert pod: Helm operations with the cluster-admin account, for the agent alone', run: async (args) => (await import('./expert-command.ts')).runExpertCommand(args) },
  'recover-admin': { summary: 'Reset an admin password, second factor, IP bans and password sign-in (run in the agent pod)', run: async (args) => (await import('./recovery-commands.ts')).runRecoverAdminCommand(args) },
  'enable-local-login': { summary: 'Turn password sign-in back on (--admin-only for admins only)', run: async (args) => (await import('./recovery-commands.ts')).runEnableLocalLoginCommand(args) },
};

export async function main(argv: string[], extraCommands: Record<string, Command> = {}): Promise<number> {
  const commands: Record<string, Command> = { ...COMMANDS, ...extraCommands };
  const [name, ...rest] = argv;
  // The one thing the container images are checked by (tests/integration/images.test.ts):
  // it loads no command module, so it proves only that Node, tsx and the sources start.
  if (name === '--version') {
    process.stdout.write(`capstan ${(await import('../version.ts')).CAPSTAN_VERSION}\n`);
    return 0;
  }
  const command = name ? commands[name] : undefined;
  if (!command) {
    const width = Math.max(...Object.keys(commands).map((n) => n.length)) + 2;
    const list = Object.entries(commands).map(([n, c]) => `  ${n.padEnd(width)}${c.summary}`).join('\n');
    process.stderr.write(`usage: capstan <command> [options]\n       capstan --version\n\ncommands:\n${list}\n`);
    return name === undefined || name === '--help' || name === '-h' ? 0 : 2;
  }
  try {
    return await command.run(rest);
  } catch (err) {
    process.stderr.write(`capstan ${name}: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}
