// Rendering the Helm chart for the chart tests (tests/integration/chart*.test.ts): `helm
// template` with the offline secrets against the suite's API server version, the rendered
// objects' shapes, and every RBAC rule flattened to grants.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { CHART_DIR, helmResult as helm, kJson, testCluster, WRITE_VERBS } from './cluster.ts';

export const NAMESPACE = 'capstan-system';
/** Namespaces of the demo scenario, so Roles and RoleBindings there pass admission. */
export const TENANTS = ['shop', 'payments'];
export const HOST = 'capstan.example.com';

export type Values = { [key: string]: unknown };

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  [key: string]: unknown;
}

export interface Rule {
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
  resourceNames?: string[];
}

export interface PodSpec {
  automountServiceAccountToken?: boolean;
  securityContext?: { runAsNonRoot?: boolean; seccompProfile?: { type: string }; appArmorProfile?: { type: string; localhostProfile?: string } };
  containers: { name: string; image: string; args?: string[]; env?: { name: string; value?: string }[]; securityContext?: { allowPrivilegeEscalation?: boolean; readOnlyRootFilesystem?: boolean; capabilities?: { drop?: string[] } }; volumeMounts?: { name: string; mountPath: string }[]; readinessProbe?: { httpGet?: { path: string } }; livenessProbe?: { httpGet?: { path: string } } }[];
  volumes?: { name: string; emptyDir?: object; persistentVolumeClaim?: { claimName: string } }[];
}

export type WithData = KubeObject & { data: Record<string, string> };

export interface Deployment extends KubeObject {
  spec: { replicas: number; strategy: { type: string }; template: { metadata: { annotations?: Record<string, string> }; spec: PodSpec } };
}

export const tmp = mkdtempSync(join(tmpdir(), 'capstan-chart-test-'));
process.once('exit', () => rmSync(tmp, { recursive: true, force: true }));

let serverVersion: string | null = null;
/** The suite's API server version, which every render assumes (read once). */
export async function kubeVersion(): Promise<string> {
  serverVersion ??= (await kJson<{ serverVersion: { gitVersion: string } }>(['version'])).serverVersion.gitVersion.replace(/^v/, '');
  return serverVersion;
}

let fileCount = 0;
export function valuesFile(values: Values): string {
  const path = join(tmp, `values-${fileCount++}.json`);
  writeFileSync(path, JSON.stringify(values));
  return path;
}

/**
 * `helm template` has no cluster to read the seeded Secrets back from, so the chart refuses to
 * render without these (a new encryption key on every GitOps sync would leave the sealed data
 * unreadable); every offline render here gives them, the GitOps tests below leave them out.
 */
export const OFFLINE_SECRETS: Values = { security: { encryptionKey: 'e'.repeat(32), adminPassword: 'gitops-admin-password', uiProxySecret: 'u'.repeat(40) } };

/** `helm template` of the chart with these values (and extra -f files), released into NAMESPACE unless told; rejects with helm's stderr. */
export async function render(values: Values, extraFiles: string[] = [], options: { kubeVersion?: string; namespace?: string } = {}): Promise<KubeObject[]> {
  const files = [valuesFile(OFFLINE_SECRETS), ...extraFiles, valuesFile(values)].flatMap((f) => ['-f', f]);
  const result = await helm(['template', 'capstan', CHART_DIR, '-n', options.namespace ?? NAMESPACE, '--kube-version', options.kubeVersion ?? (await kubeVersion()), ...files]);
  if (!result.ok) throw new Error(`helm template failed: ${result.stderr}`);
  return parseAllDocuments(result.stdout)
    .map((d) => d.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null);
}

/** The error helm gives for values it refuses (schema or a template `fail`). */
export async function refusal(values: Values): Promise<string> {
  const result = await helm(['template', 'capstan', CHART_DIR, '-n', NAMESPACE, '--kube-version', await kubeVersion(), '-f', valuesFile(OFFLINE_SECRETS), '-f', valuesFile(values)]);
  assert.equal(result.ok, false, `helm accepted ${JSON.stringify(values)}`);
  return result.stderr;
}

export function toManifest(objects: KubeObject[]): string {
  return objects.map((o) => JSON.stringify(o)).join('\n---\n');
}

/** kubectl with its stderr, where the API server's warnings (deprecations, Pod Security) arrive. */
export function kubectlWithWarnings(args: string[], input: string): Promise<{ ok: boolean; stdout: string; stderr: string }> {
  const { kubeconfig, binDir } = testCluster();
  return new Promise((resolve) => {
    const child = execFile(join(binDir, 'kubectl'), ['--kubeconfig', kubeconfig, ...args], { timeout: 120_000, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => resolve({ ok: err === null, stdout, stderr }));
    child.stdin?.end(input);
  });
}

/** Applies with --dry-run=server; returns the API server's warnings (none is the rule for the chart on this server's version). */
export async function dryRunApply(objects: KubeObject[]): Promise<string> {
  const result = await kubectlWithWarnings(['apply', '--dry-run=server', '-f', '-'], toManifest(objects));
  assert.ok(result.ok, result.stderr);
  const lines = result.stdout.trim().split('\n');
  assert.equal(lines.length, objects.length, `one line per object:\n${result.stdout}`);
  for (const line of lines) assert.match(line, /\(server dry run\)$/);
  return result.stderr;
}

export function find(objects: KubeObject[], kind: string, name: string, namespace?: string): KubeObject | undefined {
  return objects.find((o) => o.kind === kind && o.metadata.name === name && (namespace === undefined || o.metadata.namespace === namespace));
}

/** The rendered object, which must exist; callers say which shape they read it as. */
export function get(objects: KubeObject[], kind: string, name: string, namespace?: string): KubeObject {
  const found = find(objects, kind, name, namespace);
  assert.ok(found, `${kind} ${namespace ?? ''}/${name} is rendered`);
  return found;
}

/** Every RBAC rule rendered, with where it applies. */
export interface Grant {
  role: string;
  namespace: string | null;
  group: string;
  resource: string;
  verb: string;
  resourceNames?: string[];
}

export function grants(objects: KubeObject[]): Grant[] {
  return objects
    .filter((o) => o.kind === 'ClusterRole' || o.kind === 'Role')
    .flatMap((o) =>
      ((o.rules as Rule[] | undefined) ?? []).flatMap((r) =>
        (r.apiGroups ?? ['']).flatMap((group) =>
          (r.resources ?? []).flatMap((resource) => r.verbs.map((verb) => ({ role: `${o.kind}/${o.metadata.name}`, namespace: o.kind === 'Role' ? (o.metadata.namespace ?? null) : null, group, resource, verb, ...(r.resourceNames ? { resourceNames: r.resourceNames } : {}) }))),
        ),
      ),
    );
}

export const isWrite = (g: Grant) => WRITE_VERBS.has(g.verb) || g.resource === 'pods/exec' || g.resource === '*';
export const OWN_SECRETS = (g: Grant) => g.role === 'Role/capstan-own-namespace' && g.namespace === NAMESPACE && g.resource === 'secrets';
/** terminal.enabled: minting the terminal account's tokens, that one account only (docs/terminal.md). */
export const TERMINAL_TOKENS = (g: Grant) => g.role === 'Role/capstan-terminal-tokens' && g.resource === 'serviceaccounts/token' && g.verb === 'create' && g.resourceNames?.join() === 'capstan-terminal';
export const key = (g: Grant) => `${g.group}/${g.resource}:${g.verb}`;

/** Spec §5's writes with rbac.allowWrites, and nothing else (pods/exec get: exec over WebSocket). */
export const SPEC_WRITES = ['/pods:create', '/pods:delete', '/pods/exec:create', '/pods/exec:get', '/secrets:create', '/secrets:update', '/secrets:patch', 'apps/deployments:patch', 'apps/deployments:update', '/namespaces:create'].sort();
/** What a namespaced Role may hold that a cluster-scoped ClusterRole must not when rbac.clusterWide=false. */
export const CLUSTER_SCOPED = new Set(['/nodes', '/namespaces', '/persistentvolumes', '/nodes/metrics', '/nodes/proxy', 'storage.k8s.io/storageclasses', 'networking.k8s.io/ingressclasses', 'apiextensions.k8s.io/customresourcedefinitions', 'rbac.authorization.k8s.io/clusterroles', 'rbac.authorization.k8s.io/clusterrolebindings']);
