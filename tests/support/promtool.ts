// promtool built from the Go module proxy (scripts/build-promtool.sh; tests/run.ts builds it
// before the files that import this run): Debian's is built without Kubernetes service
// discovery and refuses the generated scrape config's kubernetes_sd_configs.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../..');

export async function promtool(): Promise<string> {
  const { stdout } = await run('bash', [join(ROOT, 'scripts/build-promtool.sh')], { maxBuffer: 1 << 20 });
  return stdout.trim().split('\n').at(-1) ?? '';
}
