// The CLI's development commands: a local control plane and the demo. They live outside
// runtime/ so the agent's image ships none of them; bin/capstan.js adds them where dev/ exists.
import type { Command } from '../../runtime/cli/main.ts';

export const DEV_COMMANDS: Record<string, Command> = {
  localcluster: { summary: 'Start, inspect or stop a local control plane with KWOK nodes', run: async (args) => (await import('./localcluster-command.ts')).runLocalClusterCommand(args) },
  demo: { summary: 'Local control plane + demo scenario + agent, all in one', run: async (args) => (await import('./demo-command.ts')).runDemoCommand(args) },
};
