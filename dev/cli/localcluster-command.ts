import { parseArgs } from 'node:util';
import { down, status, up } from '../localcluster/cluster.ts';

const USAGE = 'usage: capstan localcluster up|down|status --dir DIR [--nodes N] [--scenario NAME|PATH] [--no-metrics-server]';

export async function runLocalClusterCommand(args: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      dir: { type: 'string' },
      nodes: { type: 'string' },
      scenario: { type: 'string' },
      'no-metrics-server': { type: 'boolean', default: false },
    },
  });
  const [action] = positionals;
  if (!values.dir || !action) {
    process.stderr.write(USAGE + '\n');
    return 2;
  }
  const progress = (line: string) => process.stderr.write(`[localcluster] ${line}\n`);
  switch (action) {
    case 'up': {
      const nodes = values.nodes === undefined ? undefined : Number(values.nodes);
      if (nodes !== undefined && (!Number.isInteger(nodes) || nodes < 1 || nodes > 250)) {
        process.stderr.write(`--nodes must be a whole number from 1 to 250, got "${values.nodes ?? ''}"\n`);
        return 2;
      }
      const cluster = await up({ dir: values.dir, nodes, scenario: values.scenario, metricsServer: !values['no-metrics-server'], progress });
      if (cluster.alreadyRunning) progress(`already running in ${cluster.dir}; not starting it twice`);
      else progress('ready');
      process.stdout.write(cluster.kubeconfig + '\n');
      return 0;
    }
    case 'down': {
      const { stopped } = await down(values.dir);
      progress(stopped.length === 0 ? 'nothing was running' : `stopped ${stopped.map((c) => c.component).join(', ')}`);
      return 0;
    }
    case 'status': {
      const components = status(values.dir);
      if (components.length === 0) {
        process.stdout.write('not running\n');
        return 3;
      }
      for (const c of components) process.stdout.write(`${c.component.padEnd(26)}pid ${String(c.pid).padEnd(8)}${c.alive ? 'running' : 'stopped'}\n`);
      return components.every((c) => c.alive) ? 0 : 3;
    }
    default:
      process.stderr.write(USAGE + '\n');
      return 2;
  }
}
