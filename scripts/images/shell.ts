// capstan-terminal's shell layer (docs/images.md): Debian's bash, coreutils and a few more tools
// (SHELL_DEBS) with every library they load, and the terminal's own user (TERMINAL_USER).
import { existsSync, lstatSync, mkdirSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { DEB_PRUNE, ensureDebs, owningPackages, unpackDebs, writeStatus, type Deb } from './debs.ts';
import { elfFiles, lddLibraries, missingLibraries } from './libraries.ts';
import { run } from './run.ts';
import { TERMINAL_ADMIN_USER, TERMINAL_USER, writeUsers } from './users.ts';

/**
 * capstan-terminal's shell, from Debian like the base layer: bash, the everyday tools (coreutils:
 * ls, cat, env, id, …; grep, sed, find/xargs, awk), a pager and the terminal descriptions
 * (TERM=xterm-256color). The libraries they load come with them (shellDebs), nothing else.
 */
export const SHELL_DEBS = ['bash', 'coreutils', 'findutils', 'grep', 'less', 'mawk', 'ncurses-base', 'sed'];

/**
 * What those packages' maintainer scripts would link (no maintainer script runs): awk is an
 * alternative (update-alternatives), and /bin/sh is bash (Debian's is dash, one shell more).
 */
const SHELL_LINKS = [{ path: 'bin/sh', target: 'bash' }, { path: 'usr/bin/awk', target: 'mawk' }];

/** Besides DEB_PRUNE: info manuals, translations (the image has no locales but C), doc-base and menu entries. */
const SHELL_PRUNE = [...DEB_PRUNE, 'usr/share/info', 'usr/share/locale', 'usr/share/doc-base', 'usr/share/menu', 'usr/share/bug'];

/**
 * capstan-terminal's packages beyond the base layer's: SHELL_DEBS, then the packages owning
 * every library `ldd` lists for their programs and libraries that neither the base layer nor
 * they hold (unpacked into `scratch`), and the packages holding their copyright files, again
 * until nothing new is needed.
 */
export function shellDebs(cache: string, base: Deb[], baseRoot: string, scratch: string): Deb[] {
  const inBase = new Set(base.map((d) => d.package));
  const wanted = new Set(SHELL_DEBS);
  for (;;) {
    const debs = ensureDebs(cache, [...wanted].sort());
    rmSync(scratch, { recursive: true, force: true });
    mkdirSync(scratch, { recursive: true });
    for (const deb of debs) run('dpkg-deb', ['-x', deb.file, scratch]);
    // Only a library neither the base layer nor these packages hold needs its package found.
    const lacking = missingLibraries(lddLibraries(run('ldd', elfFiles(scratch))), [baseRoot, scratch]);
    // A package whose /usr/share/doc entry is a link keeps its copyright in the linked one's (withCopyrightOwners).
    const docOwners = debs.flatMap((deb) => {
      const doc = join(scratch, 'usr/share/doc', deb.package);
      return lstatSync(doc, { throwIfNoEntry: false })?.isSymbolicLink() ? [basename(readlinkSync(doc))] : [];
    });
    const more = [...new Set([...owningPackages(lacking), ...docOwners])].filter((pkg) => !inBase.has(pkg) && !wanted.has(pkg));
    if (more.length === 0) {
      if (lacking.length > 0) throw new Error(`${lacking.join(', ')}: not where their packages put them (the host's ldd found them elsewhere)`);
      rmSync(scratch, { recursive: true, force: true });
      return debs;
    }
    for (const pkg of more) wanted.add(pkg);
  }
}

/**
 * capstan-terminal's shell layer: its debs (pruned like the base's, and more), their dpkg
 * records, the links their maintainer scripts would make, /etc/passwd and /etc/group again with
 * TERMINAL_USER and TERMINAL_ADMIN_USER (replacing the base layer's) and the home. Not /usr-merged, like the
 * base layer: a /bin or /lib symlink here would hide the base layer's directories.
 */
export function stageShell(root: string, debs: Deb[]): void {
  unpackDebs(root, debs, SHELL_PRUNE);
  writeStatus(root, debs);
  for (const link of SHELL_LINKS) {
    if (!existsSync(join(dirname(join(root, link.path)), link.target))) throw new Error(`${link.path} -> ${link.target}: no ${link.target} in the shell's packages`);
    symlinkSync(link.target, join(root, link.path));
  }
  mkdirSync(join(root, 'etc'), { recursive: true });
  writeUsers(join(root, 'etc'), [{ ...TERMINAL_USER, shell: '/bin/bash' }, { ...TERMINAL_ADMIN_USER, shell: '/bin/bash' }]);
  mkdirSync(join(root, TERMINAL_USER.home.slice(1)), { recursive: true });
}
