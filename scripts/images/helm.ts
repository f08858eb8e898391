// The helm layer of the capstan-expert and capstan-terminal images (scripts/build-images.ts,
// docs/images.md): the helm scripts/build-control-plane.sh builds from the Go module proxy, at
// /usr/local/bin/helm (0755, root's) with its license, and the SBOM component that names it.
import { chmodSync, copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run, sha256File } from './run.ts';
import type { CycloneDxComponent } from './sbom.ts';

const CONTROL_PLANE_SCRIPT = fileURLToPath(new URL('../build-control-plane.sh', import.meta.url));
const MODULE = 'helm.sh/helm/v3';

/** The helm version scripts/build-control-plane.sh builds (its HELM_VERSION), e.g. v3.19.5. */
export const HELM_VERSION = (() => {
  const version = /^HELM_VERSION=(v\d+\.\d+\.\d+)$/m.exec(readFileSync(CONTROL_PLANE_SCRIPT, 'utf8'))?.[1];
  if (!version) throw new Error(`${CONTROL_PLANE_SCRIPT} sets no HELM_VERSION=vX.Y.Z`);
  return version;
})();

export interface HelmBinary {
  binary: string;
  license: string;
  sha256: string;
  goVersion: string;
  /** The module's go.sum hash (h1:…), as the Go checksum database knows it. */
  moduleSum: string;
}

/**
 * `binDir`'s helm (ensureControlPlaneBinaries()), checked to be HELM_VERSION so the SBOM cannot
 * name another; its LICENSE from the module the build compiled (already in Go's module cache).
 */
export function ensureHelm(binDir: string): HelmBinary {
  const binary = join(binDir, 'helm');
  const [version, goVersion] = run(binary, ['version', '--template', '{{.Version}} {{.GoVersion}}'], { cwd: tmpdir(), env: { PATH: '', HOME: tmpdir() } }).trim().split(' ');
  if (version !== HELM_VERSION) throw new Error(`${binary} is helm ${version ?? '?'}, not the ${HELM_VERSION} scripts/build-control-plane.sh builds`);
  const module = JSON.parse(run('go', ['mod', 'download', '-json', `${MODULE}@${HELM_VERSION}`], { cwd: tmpdir(), env: { ...process.env, GOTOOLCHAIN: 'local', GOFLAGS: '-mod=mod' } })) as { Dir?: string; Sum?: string };
  if (!module.Dir || !module.Sum) throw new Error(`go mod download ${MODULE}@${HELM_VERSION} named no directory`);
  return { binary, license: join(module.Dir, 'LICENSE'), sha256: sha256File(binary), goVersion: goVersion ?? '', moduleSum: module.Sum };
}

/** /usr/local/bin/helm (0755; the layer makes it root's) and /usr/local/share/doc/helm/LICENSE. */
export function stageHelm(root: string, helm: HelmBinary): void {
  mkdirSync(join(root, 'usr/local/bin'), { recursive: true });
  mkdirSync(join(root, 'usr/local/share/doc/helm'), { recursive: true });
  copyFileSync(helm.binary, join(root, 'usr/local/bin/helm'));
  chmodSync(join(root, 'usr/local/bin/helm'), 0o755);
  copyFileSync(helm.license, join(root, 'usr/local/share/doc/helm/LICENSE'));
  chmodSync(join(root, 'usr/local/share/doc/helm/LICENSE'), 0o644);
}

export function helmComponent(helm: HelmBinary): CycloneDxComponent {
  return {
    'bom-ref': `helm@${HELM_VERSION}`,
    type: 'application',
    name: 'helm',
    version: HELM_VERSION,
    description: `Helm, built with ${helm.goVersion} from the Go module proxy's ${MODULE}@${HELM_VERSION} (scripts/build-control-plane.sh)`,
    licenses: [{ license: { id: 'Apache-2.0' } }],
    purl: `pkg:golang/${MODULE}@${HELM_VERSION}`,
    cpe: `cpe:2.3:a:helm:helm:${HELM_VERSION.slice(1)}:*:*:*:*:*:*:*`,
    hashes: [{ alg: 'SHA-256', content: helm.sha256 }],
    externalReferences: [{ type: 'vcs', url: 'https://github.com/helm/helm' }, { type: 'distribution', url: `https://proxy.golang.org/${MODULE}/@v/${HELM_VERSION}.zip` }],
    properties: [{ name: 'capstan:path', value: '/usr/local/bin/helm' }, { name: 'capstan:go-module-sum', value: helm.moduleSum }, { name: 'capstan:go-version', value: helm.goVersion }],
  };
}
