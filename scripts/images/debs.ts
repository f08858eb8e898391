// Debian packages for the images' base and shell layers (docs/images.md): which package owns a
// library (dpkg), each package's candidate .deb from apt (downloaded once, checked against apt's
// signed index), the packages holding their copyright files, and unpacking them into a layer
// with the dpkg records scanners read.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { log, run, sha256File } from './run.ts';

export interface Deb {
  package: string;
  version: string;
  architecture: string;
  source: string;
  file: string;
  sha256: string;
  control: string;
}

/**
 * Parts of those packages no process in the image reads: docs (each package's copyright is
 * kept), manuals, lintian and gdb helpers, glibc's iconv modules (Node uses ICU) and
 * update-ca-certificates, a shell script whose output we write ourselves.
 */
export const DEB_PRUNE = ['usr/share/man', 'usr/share/lintian', 'usr/share/gdb', 'usr/share/gcc', 'usr/lib/x86_64-linux-gnu/gconv', 'usr/sbin', 'etc/ca-certificates/update.d'];

/** Which package owns a path, as dpkg answered (paths it does not know are asked again). */
const owners = new Map<string, string>();

/**
 * The Debian package owning each of `paths`, trying each as given, its real path and its other
 * /usr-merged spelling, in one dpkg-query (each call reads dpkg's whole file database).
 */
export function owningPackages(paths: string[]): string[] {
  const tries = paths.map((path) => [path, realpathSync(path), path.startsWith('/usr/') ? path.slice(4) : `/usr${path}`]);
  const unknown = [...new Set(tries.flat())].filter((p) => !owners.has(p));
  if (unknown.length > 0) {
    // Exit status 1 when any is unknown; the others are still answered, one `package[:arch][, …]: path` line each.
    for (const line of spawnSync('dpkg-query', ['-S', ...unknown], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 }).stdout.split('\n')) {
      const at = line.indexOf(': /');
      const name = at > 0 && !line.startsWith('diversion ') ? /^([^:,\s]+)/.exec(line)?.[1] : undefined;
      if (name && !owners.has(line.slice(at + 2))) owners.set(line.slice(at + 2), name);
    }
  }
  return tries.map((candidates, i) => {
    const name = candidates.map((c) => owners.get(c)).find((n) => n !== undefined);
    if (!name) throw new Error(`no Debian package owns ${paths[i] ?? '?'}; the image could not get it from apt`);
    return name;
  });
}

/** apt's candidate record of each package, in one apt-cache call (each takes a second or more); null for one apt does not know. */
function aptShow(packages: string[]): (Record<string, string> | null)[] {
  if (packages.length === 0) return [];
  // A package apt does not know fails the call, and the others are still printed.
  const result = spawnSync('apt-cache', ['show', '--no-all-versions', ...packages], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const records = new Map<string, Record<string, string>>();
  for (const paragraph of result.stdout.split(/\n\s*\n/)) {
    const fields: Record<string, string> = {};
    for (const line of paragraph.split('\n')) {
      const m = /^([A-Za-z0-9-]+):\s*(.*)$/.exec(line);
      if (m?.[1] && m[2] !== undefined) fields[m[1]] = m[2];
    }
    if (fields.Package && fields.Version) records.set(fields.Package, fields);
  }
  return packages.map((pkg) => records.get(pkg) ?? null);
}

/** Each package's candidate version from apt, downloaded once (apt verifies it against the signed index). */
export function ensureDebs(cache: string, packages: string[]): Deb[] {
  const dir = join(cache, 'debs');
  mkdirSync(dir, { recursive: true });
  const show = () => aptShow(packages).map((fields, i) => ({ pkg: packages[i] ?? '', fields }));
  let shown = show();
  if (shown.some((s) => s.fields === null)) {
    log('apt knows no such package (no package lists?); apt-get update');
    run('apt-get', ['update', '-qq']);
    shown = show();
  }
  const wanted = shown.map(({ pkg, fields }) => {
    if (!fields?.Version || !fields.Filename || !fields.SHA256) throw new Error(`apt-cache knows no ${pkg}`);
    return { pkg, version: fields.Version, sha256: fields.SHA256, file: join(dir, basename(fields.Filename)), saved: join(dir, `${pkg}_${fields.Version.replaceAll(':', '%3a')}_${fields.Architecture ?? ''}.deb`) };
  });
  const missing = wanted.filter((w) => !existsSync(w.file) || sha256File(w.file) !== w.sha256);
  if (missing.length > 0) {
    log(`apt-get download ${missing.map((w) => `${w.pkg}=${w.version}`).join(' ')}`);
    // As root apt would drop to _apt, which cannot write into our cache.
    const sandbox = process.getuid?.() === 0 ? ['-o', 'APT::Sandbox::User=root'] : [];
    run('apt-get', ['download', '-qq', ...sandbox, ...missing.map((w) => `${w.pkg}=${w.version}`)], { cwd: dir });
    // apt-get names the file by the version, its epoch too (libattr1_1%3a2.5.1-4_amd64.deb); the cache by the archive's name.
    for (const w of missing) if (!existsSync(w.file) && existsSync(w.saved)) renameSync(w.saved, w.file);
    for (const w of missing) if (sha256File(w.file) !== w.sha256) throw new Error(`${w.file}: checksum differs from apt's index`);
  }
  return wanted.map((w) => {
    const control = run('dpkg-deb', ['-f', w.file]);
    const field = (name: string) => new RegExp(`^${name}: (.*)$`, 'm').exec(control)?.[1] ?? '';
    return { package: field('Package'), version: field('Version'), architecture: field('Architecture'), source: field('Source').split(' ')[0] || field('Package'), file: w.file, sha256: w.sha256, control };
  });
}

/**
 * Adds the packages whose /usr/share/doc the chosen ones point into (libgcc-s1 and libstdc++6
 * keep their copyright in gcc-12-base's), so every package's license text is in the image.
 */
export function withCopyrightOwners(cache: string, debs: Deb[]): Deb[] {
  const all = new Map(debs.map((d) => [d.package, d]));
  for (let pending = [...debs]; pending.length > 0; ) {
    const wanted = new Set<string>();
    for (const deb of pending) {
      const link = new RegExp(`^l\\S+.* \\./usr/share/doc/${deb.package.replace(/[+.]/g, '\\$&')} -> ([\\w.+-]+)$`, 'm').exec(run('dpkg-deb', ['-c', deb.file]))?.[1];
      if (link && !all.has(link)) wanted.add(link);
    }
    pending = ensureDebs(cache, [...wanted].sort());
    for (const deb of pending) all.set(deb.package, deb);
  }
  return [...all.values()].sort((a, b) => a.package.localeCompare(b.package));
}

/** The debs unpacked into `root`, without what `prune` names and without docs but each package's copyright. */
export function unpackDebs(root: string, debs: Deb[], prune: string[]): void {
  for (const deb of debs) run('dpkg-deb', ['-x', deb.file, root]);
  for (const p of prune) rmSync(join(root, p), { recursive: true, force: true });
  const docs = join(root, 'usr/share/doc');
  for (const pkg of readdirSync(docs, { withFileTypes: true })) {
    // A symlink here points at another package's directory (see withCopyrightOwners).
    if (!pkg.isDirectory()) continue;
    for (const f of readdirSync(join(docs, pkg.name))) if (f !== 'copyright') rmSync(join(docs, pkg.name, f), { recursive: true, force: true });
  }
}

/** Each package's control record where distroless images keep them, so trivy or grype find the packages. */
export function writeStatus(root: string, debs: Deb[]): void {
  const status = join(root, 'var/lib/dpkg/status.d');
  mkdirSync(status, { recursive: true });
  for (const deb of debs) writeFileSync(join(status, deb.package), deb.control.endsWith('\n') ? deb.control : `${deb.control}\n`);
}

/** The build host's /etc/os-release: the Debian release every deb (and so the image's os-release and SBOM) comes from. */
export function osRelease(): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of readFileSync('/etc/os-release', 'utf8').split('\n')) {
    const m = /^([A-Z_]+)=("?)(.*)\2$/.exec(line);
    if (m?.[1] && m[3] !== undefined) fields[m[1]] = m[3];
  }
  return fields;
}
