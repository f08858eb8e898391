// kubectl in the capstan-terminal image (scripts/build-images.ts, docs/images.md): the kubectl
// scripts/build-control-plane.sh builds from the Go module proxy's k8s.io/kubernetes (the
// version the suite's control plane runs), at /usr/local/bin/kubectl (0755, root's) with its
// license, and the SBOM component that names it. The helm beside it is scripts/images/helm.ts'.
import { chmodSync, copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run, sha256File } from './run.ts';
import type { CycloneDxComponent } from './sbom.ts';

const CONTROL_PLANE_SCRIPT = fileURLToPath(new URL('../build-control-plane.sh', import.meta.url));
const MODULE = 'k8s.io/kubernetes';

/** The Kubernetes version scripts/build-control-plane.sh builds (its K8S_VERSION), kubectl's too, e.g. v1.34.4. */
export const KUBECTL_VERSION = (() => {
  const version = /^K8S_VERSION=(v\d+\.\d+\.\d+)$/m.exec(readFileSync(CONTROL_PLANE_SCRIPT, 'utf8'))?.[1];
  if (!version) throw new Error(`${CONTROL_PLANE_SCRIPT} sets no K8S_VERSION=vX.Y.Z`);
  return version;
})();

export interface KubectlBinary {
  binary: string;
  license: string;
  sha256: string;
  goVersion: string;
  /** The module's go.sum hash (h1:…), as the Go checksum database knows it. */
  moduleSum: string;
}

/**
 * `binDir`'s kubectl (ensureControlPlaneBinaries()), checked to be KUBECTL_VERSION so the SBOM
 * cannot name another; its LICENSE from the module the build compiled (already in Go's module cache).
 */
export function ensureKubectl(binDir: string): KubectlBinary {
  const binary = join(binDir, 'kubectl');
  const client = (JSON.parse(run(binary, ['version', '--client', '-o', 'json'], { cwd: tmpdir(), env: { PATH: '', HOME: tmpdir() } })) as { clientVersion?: { gitVersion?: string; goVersion?: string } }).clientVersion;
  if (client?.gitVersion !== KUBECTL_VERSION) throw new Error(`${binary} is kubectl ${client?.gitVersion ?? '?'}, not the ${KUBECTL_VERSION} scripts/build-control-plane.sh builds`);
  const module = JSON.parse(run('go', ['mod', 'download', '-json', `${MODULE}@${KUBECTL_VERSION}`], { cwd: tmpdir(), env: { ...process.env, GOTOOLCHAIN: 'local', GOFLAGS: '-mod=mod' } })) as { Dir?: string; Sum?: string };
  if (!module.Dir || !module.Sum) throw new Error(`go mod download ${MODULE}@${KUBECTL_VERSION} named no directory`);
  return { binary, license: join(module.Dir, 'LICENSE'), sha256: sha256File(binary), goVersion: client.goVersion ?? '', moduleSum: module.Sum };
}

/** /usr/local/bin/kubectl (0755; the layer makes it root's) and /usr/local/share/doc/kubectl/LICENSE. */
export function stageKubectl(root: string, kubectl: KubectlBinary): void {
  mkdirSync(join(root, 'usr/local/bin'), { recursive: true });
  mkdirSync(join(root, 'usr/local/share/doc/kubectl'), { recursive: true });
  copyFileSync(kubectl.binary, join(root, 'usr/local/bin/kubectl'));
  chmodSync(join(root, 'usr/local/bin/kubectl'), 0o755);
  copyFileSync(kubectl.license, join(root, 'usr/local/share/doc/kubectl/LICENSE'));
  chmodSync(join(root, 'usr/local/share/doc/kubectl/LICENSE'), 0o644);
}

export function kubectlComponent(kubectl: KubectlBinary): CycloneDxComponent {
  return {
    'bom-ref': `kubectl@${KUBECTL_VERSION}`,
    type: 'application',
    name: 'kubectl',
    version: KUBECTL_VERSION,
    description: `kubectl, built with ${kubectl.goVersion} from the Go module proxy's ${MODULE}@${KUBECTL_VERSION} (scripts/build-control-plane.sh)`,
    licenses: [{ license: { id: 'Apache-2.0' } }],
    purl: `pkg:golang/${MODULE}@${KUBECTL_VERSION}`,
    cpe: `cpe:2.3:a:kubernetes:kubernetes:${KUBECTL_VERSION.slice(1)}:*:*:*:*:*:*:*`,
    hashes: [{ alg: 'SHA-256', content: kubectl.sha256 }],
    externalReferences: [{ type: 'vcs', url: 'https://github.com/kubernetes/kubernetes' }, { type: 'distribution', url: `https://proxy.golang.org/${MODULE}/@v/${KUBECTL_VERSION}.zip` }],
    properties: [{ name: 'capstan:path', value: '/usr/local/bin/kubectl' }, { name: 'capstan:go-module-sum', value: kubectl.moduleSum }, { name: 'capstan:go-version', value: kubectl.goVersion }],
  };
}
