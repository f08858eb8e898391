// Every image's base layer (docs/images.md): the Debian packages `ldd` says Node and the
// production native addons need, plus ca-certificates; /etc/passwd with one non-root user; a CA
// bundle; dpkg records for scanners. No shell, no tools.
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEB_PRUNE, ensureDebs, owningPackages, unpackDebs, withCopyrightOwners, writeStatus, type Deb } from './debs.ts';
import { IMAGE_DATA_DIR, NONROOT, writeUsers } from './users.ts';

/** Debian packages every image gets besides what ldd finds: the copilot calls HTTPS providers. */
const EXTRA_DEBS = ['ca-certificates'];

/**
 * The base layer's packages: those owning `libs` (ldd's answer on the host, the same Debian
 * release apt downloads from), EXTRA_DEBS, and the packages holding their copyright files.
 */
export function baseDebs(cache: string, libs: string[]): Deb[] {
  return withCopyrightOwners(cache, ensureDebs(cache, [...new Set([...owningPackages(libs), ...EXTRA_DEBS])].sort()));
}

/** The root of the image: the debs (pruned), users, a CA bundle, dpkg records for scanners. */
export function stageBase(root: string, debs: Deb[], os: Record<string, string>): void {
  unpackDebs(root, debs, DEB_PRUNE);
  const etc = join(root, 'etc');
  writeUsers(etc);
  writeFileSync(join(etc, 'nsswitch.conf'), 'passwd: files\ngroup: files\nhosts: files dns\n');
  // Scanners read the packages from status.d and the distribution from os-release; trivy
  // recognises Debian only by etc/debian_version (without it, it finds no OS and skips every
  // package), so the image carries the one of the release its libraries come from.
  writeFileSync(join(etc, 'os-release'), `PRETTY_NAME="Capstan (${os.PRETTY_NAME ?? 'Debian'} libraries)"\nID=${os.ID ?? 'debian'}\nVERSION_ID="${os.VERSION_ID ?? ''}"\nVERSION_CODENAME=${os.VERSION_CODENAME ?? ''}\n`);
  writeFileSync(join(etc, 'debian_version'), readFileSync('/etc/debian_version', 'utf8'));
  writeStatus(root, debs);
  // What ca-certificates' postinst and update-ca-certificates write on a fresh install: every
  // certificate the package ships, enabled, in one bundle (the path OpenSSL-style clients read).
  const certs = join(root, 'usr/share/ca-certificates');
  const enabled = readdirSync(certs, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.crt')).sort();
  if (enabled.length === 0) throw new Error('ca-certificates shipped no certificates');
  const bundle = enabled.map((rel) => readFileSync(join(certs, rel), 'utf8').trimEnd() + '\n').join('');
  mkdirSync(join(etc, 'ssl/certs'), { recursive: true });
  writeFileSync(join(etc, 'ssl/certs/ca-certificates.crt'), bundle);
  for (const d of ['tmp', `home/${NONROOT.name}`, IMAGE_DATA_DIR.slice(1), 'app', 'root']) mkdirSync(join(root, d), { recursive: true });
  chmodSync(join(root, 'root'), 0o700);
}
