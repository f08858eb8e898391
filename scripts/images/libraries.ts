// Which shared libraries the images' programs load, and whether the image holds them where its
// loader looks: `ldd` on the build host (the Debian release apt downloads from) names them.
import { closeSync, lstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { basename, join } from 'node:path';

/** Where the image's loader looks for libraries (Debian's multiarch directories; no ld.so.cache). */
const LIB_DIRS = ['lib/x86_64-linux-gnu', 'usr/lib/x86_64-linux-gnu', 'lib64'];

const ELF_MAGIC = Buffer.from([0x7f, 0x45, 0x4c, 0x46]);

/** The shared libraries ldd resolves for `files` (the loader too); a missing one fails the build. */
export function lddLibraries(output: string): string[] {
  const libs = new Set<string>();
  for (const line of output.split('\n')) {
    if (/not found/.test(line)) throw new Error(`ldd: ${line.trim()}`);
    const m = /=>\s*(\/\S+)/.exec(line) ?? /^\s*(\/\S+)\s+\(/.exec(line);
    if (m?.[1]) libs.add(m[1]);
  }
  return [...libs].sort();
}

/** The regular ELF files under `dir` (programs and shared objects), by their magic number. */
export function elfFiles(dir: string): string[] {
  const head = Buffer.alloc(4);
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((rel) => join(dir, rel))
    .filter((path) => {
      const st = lstatSync(path);
      if (!st.isFile() || st.size < 4) return false;
      const fd = openSync(path, 'r');
      try {
        return readSync(fd, head, 0, 4, 0) === 4 && head.equals(ELF_MAGIC);
      } finally {
        closeSync(fd);
      }
    })
    .sort();
}

/**
 * The libraries (ldd's paths on the host) that none of `roots` (the image's layers, staged)
 * holds in a directory its loader searches: the build stops on any.
 */
export function missingLibraries(libs: string[], roots: string[]): string[] {
  return libs.filter((lib) => !roots.some((root) => LIB_DIRS.some((d) => lstatSync(join(root, d, basename(lib)), { throwIfNoEntry: false }) !== undefined)));
}
