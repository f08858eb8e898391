// The images' layer tarballs (docs/images.md), written so that the same staged files always give
// the same bytes, and so the same layer digest in every image and every build that shares it.
import { readdirSync, rmSync } from 'node:fs';
import { run } from './run.ts';

export interface TarOptions {
  epoch: number;
  /** Directories (relative to `dir`) written with their own owner and mode instead of root's and the staged one. */
  special?: { path: string; uid: number; gid: number; mode: string }[];
  /** Prefix added to every member name (not to symlink targets). */
  prefix?: string;
  /** Top-level entries of `dir` to take (default: all). */
  entries?: string[];
}

/**
 * One layer tarball, reproducible: sorted, every mtime the same, root-owned, no group or other
 * write bits, no atime/ctime. GNU tar cannot give single members another owner or mode, so
 * each special directory is its own small archive appended to the first (`tar -A`).
 */
export function tarLayer(dir: string, out: string, opts: TarOptions): void {
  const common = ['--sort=name', '--format=posix', '--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime', `--mtime=@${opts.epoch}`, '--numeric-owner'];
  const transform = opts.prefix ? [`--transform=flags=r;s,^,${opts.prefix},`] : [];
  const special = opts.special ?? [];
  const top = opts.entries ?? readdirSync(dir).sort();
  run('tar', ['-c', '-f', out, ...common, '--owner=0', '--group=0', '--mode=go-w', ...transform, '--anchored', ...special.map((d) => `--exclude=${d.path}`), '-C', dir, '--', ...top]);
  for (const [i, d] of special.entries()) {
    const extra = `${out}.${i}`;
    run('tar', ['-c', '-f', extra, ...common, `--owner=${d.uid}`, `--group=${d.gid}`, `--mode=${d.mode}`, '--no-recursion', '-C', dir, '--', d.path]);
    run('tar', ['-A', '-f', out, extra]);
    rmSync(extra);
  }
}
