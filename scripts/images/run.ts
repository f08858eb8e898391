// What every step of `make images` (scripts/build-images.ts) does on the build host: run one of
// its tools, say what it is doing, hash what it downloaded.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

export const log = (line: string) => process.stderr.write(`[images] ${line}\n`);

/** `cmd args` to completion, its stdout; a non-zero exit fails the build with its stderr. */
export function run(cmd: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): string {
  const result = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'], ...options });
  if (result.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${result.status ?? result.signal ?? '?'}):\n${result.stderr}${result.error?.message ?? ''}`);
  return result.stdout;
}

export const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');
export const sha256File = (path: string): string => sha256(readFileSync(path));
