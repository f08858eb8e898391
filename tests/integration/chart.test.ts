// The Helm chart against the suite's real API server: `helm lint`, `helm template` for the
// defaults, every sizing preset and a matrix that flips every boolean and enum of the schema,
// each rendered set accepted by `kubectl apply --dry-run=server` in capstan-system; the schema
// refusing bad values by field; the cross-value refusals (service-only mode without trusted
// proxies, ...); and one real install, upgrade and uninstall for what only a live cluster shows
// (the seeded Secrets kept). The RBAC rendered per mode: chart-rbac.test.ts; the terminal sidecars: chart-terminal.test.ts.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse, parseAllDocuments } from 'yaml';
import { schemaLeaves, type SchemaNode } from '../../scripts/generate-chart-readme.ts';
import { CHART_DIR, helmResult as helm, k, kJson, testCluster } from '../support/cluster.ts';
import { dryRunApply, find, get, grants, HOST, isWrite, key, kubectlWithWarnings, kubeVersion, NAMESPACE, OFFLINE_SECRETS, OWN_SECRETS, refusal, render, TENANTS, TERMINAL_TOKENS, toManifest, valuesFile, type Deployment, type KubeObject, type PodSpec, type Values, type WithData } from '../support/chart-render.ts';
import { waitForCrdsEstablished } from '../../dev/localcluster/kubectl.ts';

function merge(...layers: Values[]): Values {
  const out: Values = {};
  for (const layer of layers) {
    for (const [k2, v] of Object.entries(layer)) {
      const prev = out[k2];
      out[k2] = typeof v === 'object' && v !== null && !Array.isArray(v) && typeof prev === 'object' && prev !== null && !Array.isArray(prev) ? merge(prev as Values, v as Values) : v;
    }
  }
  return out;
}

function at(path: string, value: unknown): Values {
  return path.split('.').reduceRight<unknown>((inner, part) => ({ [part]: inner }), value) as Values;
}

function lookupPath(values: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((v, part) => (typeof v === 'object' && v !== null ? (v as Values)[part] : undefined), values);
}

const schema = JSON.parse(readFileSync(`${CHART_DIR}values.schema.json`, 'utf8')) as SchemaNode;
const defaults = parse(readFileSync(`${CHART_DIR}values.yaml`, 'utf8')) as Values;

/** Values a flip cannot render without (the chart refuses the flip alone, as other tests prove). */
const COMPANIONS: Record<string, Values> = {
  'ingress.enabled=false': { security: { trustedProxyCidrs: '10.0.0.0/8' } },
  'rbac.clusterWide=false': { tenantNamespaces: TENANTS },
  'persistence.replication.enabled=true': { persistence: { replication: { bucket: 'capstan-db' } } },
  'audit.worm.enabled=true': { audit: { worm: { bucket: 'capstan-audit' } } },
  'global.tlsProvider="manual"': { global: { tlsSecret: 'capstan-tls' } },
  'global.tlsProvider="certificate-manager"': { global: { ingressClassName: 'alb' } },
  'global.tlsProvider="managed-certificate"': { global: { ingressClassName: 'gce' } },
};

interface Case {
  name: string;
  values: Values;
  files?: string[];
  kubeVersion?: string;
}

/** One case per boolean flipped and per enum value other than the default, over a hostname (so TLS and Ingress flips show). */
function matrix(): Case[] {
  const base: Values = { global: { hostname: HOST } };
  const cases: Case[] = [];
  for (const leaf of schemaLeaves(schema, defaults)) {
    if (leaf.node['x-capstan-removed'] === true) continue;
    const others = leaf.resolved.type === 'boolean' ? [!(leaf.value as boolean)] : (leaf.resolved.enum ?? []).filter((v) => v !== leaf.value);
    for (const value of others) {
      const name = `${leaf.path}=${JSON.stringify(value)}`;
      const companion = COMPANIONS[name] ?? {};
      cases.push({ name, values: merge(base, at(leaf.path, value), companion) });
    }
  }
  return cases;
}

const PRESETS = ['small', 'medium', 'large'];

const EXPLICIT: Case[] = [
  { name: 'defaults (no values)', values: {} },
  ...PRESETS.map((p) => ({ name: `preset ${p}`, values: {}, files: [join(CHART_DIR, 'presets', `${p}.yaml`)] })),
  { name: 'ingress class gce (managed certificate)', values: { global: { hostname: HOST, ingressClassName: 'gce' } } },
  { name: 'ingress class alb (ACM found by host)', values: { global: { hostname: HOST, ingressClassName: 'alb' } } },
  { name: 'ingress class alb with a certificate ARN', values: { global: { hostname: HOST, ingressClassName: 'alb', tlsCertificate: 'arn:aws:acm:us-east-1:123456789012:certificate/abc' } } },
  { name: 'ingress class azure-application-gateway', values: { global: { hostname: HOST, ingressClassName: 'azure-application-gateway', tlsCertificate: 'capstan-cert' } } },
  { name: 'ingress class nginx (cert-manager)', values: { global: { hostname: HOST, ingressClassName: 'nginx' } } },
  { name: 'AppArmor localhost profile', values: { security: { appArmorProfile: 'localhost/capstan' } } },
  { name: 'AppArmor unconfined', values: { security: { appArmorProfile: 'unconfined' } } },
  // What helm template assumes without --kube-version (1.20 in a helm built without its version ldflags): still the field, never the deprecated annotation.
  { name: 'AppArmor rendered for helm template\'s default Kubernetes version', values: {}, kubeVersion: '1.20.0' },
  { name: 'AppArmor localhost profile for an old assumed version', values: { security: { appArmorProfile: 'localhost/capstan' } }, kubeVersion: '1.29.0' },
  { name: 'namespaced RBAC with writes and Secret namespaces', values: { tenantNamespaces: TENANTS, rbac: { clusterWide: false, allowWrites: true, secretsNamespaces: ['shop'] } } },
  { name: 'tenant namespaces with cluster-wide reads and writes', values: { tenantNamespaces: TENANTS, rbac: { allowWrites: true } } },
  { name: 'kubelet scrape via the API server proxy', values: { metrics: { kubeletScrape: { viaProxy: true } } } },
  { name: 'terminal sidecar', values: { terminal: { enabled: true, idleTimeoutSecs: 900 } } },
  { name: 'terminal sidecar with namespaced RBAC', values: { terminal: { enabled: true }, tenantNamespaces: TENANTS, rbac: { clusterWide: false } } },
  // With writes too: the admin sidecar, its volume, the writer account and its bindings.
  { name: 'terminal sidecars with writes', values: { terminal: { enabled: true }, rbac: { allowWrites: true } } },
  { name: 'terminal sidecars with writes and namespaced RBAC', values: { terminal: { enabled: true }, tenantNamespaces: TENANTS, rbac: { clusterWide: false, allowWrites: true } } },
  { name: 'license key alone (license Secret, no registry so no pull Secret)', values: { license: { key: 'lic-123' }, imagePullSecrets: [{ name: 'mine' }] } },
  { name: 'license key and registry (license and pull Secrets)', values: { license: { key: 'lic-123', registry: 'registry.example.com' } } },
  { name: 'PodDisruptionBudget minAvailable', values: { podDisruptionBudget: { enabled: true, minAvailable: 1 } } },
  { name: 'PodDisruptionBudget maxUnavailable percentage', values: { podDisruptionBudget: { enabled: true, maxUnavailable: '50%' } } },
  { name: 'dashboard NodePort', values: { ui: { service: { type: 'NodePort', nodePort: 30080 } } } },
  { name: 'images pinned by digest', values: { image: { digest: `sha256:${'a'.repeat(64)}` }, ui: { image: { tag: '9.9.9' } } } },
  { name: 'no persistence, two replicas', values: { persistence: { enabled: false }, replicaCount: 2 } },
  { name: 'ReadWriteMany volume, two replicas', values: { persistence: { accessMode: 'ReadWriteMany' }, replicaCount: 2 } },
  {
    name: 'every credential supplied',
    values: {
      security: { adminPassword: 'correct horse', viewerPassword: 'viewer-pass', encryptionKey: 'k'.repeat(32), trustedProxyCidrs: '10.0.0.0/8, fd00::/8', ipAllowlist: '192.168.0.0/16', ipDenylist: '192.168.6.6' },
      audit: { webhookUrl: 'https://audit.example.com/in', webhookToken: 'tok' },
      alerting: { chatWebhookUrl: 'https://chat.example.com/hook/1', webhookUrl: 'https://alerts.example.com', pagerRoutingKey: 'rk' },
      agent: { providerApiKey: 'sk-1', investigationProviderApiKey: 'sk-2' },
      persistence: { replication: { enabled: true, bucket: 'b', credentialsSecret: 'repl-creds' } },
    },
  },
];

/** What holds in every rendered set, whatever the values. */
function checkInvariants(c: Case, objects: KubeObject[]): void {
  const values = merge(defaults, ...(c.files ?? []).map((f) => parse(readFileSync(f, 'utf8')) as Values), c.values);
  const all = grants(objects);
  assert.deepEqual(all.filter((g) => g.resource === 'secrets' && (g.verb === 'delete' || g.verb === 'deletecollection' || g.verb === '*')), [], 'Secret delete is never granted');
  assert.deepEqual(all.filter((g) => g.verb === '*' || g.resource === '*' || g.group === '*'), [], 'no wildcard');
  const viaProxy = lookupPath(values, 'metrics.kubeletScrape.viaProxy') === true && lookupPath(values, 'metrics.kubeletScrape.enabled') === true;
  assert.equal(all.some((g) => g.resource === 'nodes/proxy'), viaProxy, 'nodes/proxy exactly when metrics.kubeletScrape.viaProxy');
  if (lookupPath(values, 'rbac.allowWrites') !== true) {
    assert.deepEqual(all.filter((g) => isWrite(g) && !OWN_SECRETS(g) && !TERMINAL_TOKENS(g)).map(key), [], 'no write verb without rbac.allowWrites');
  }
  assert.equal(all.some((g) => g.group === 'aquasecurity.github.io'), lookupPath(values, 'security.scanning.enabled') === true, 'scanner reports readable exactly with security.scanning.enabled');
  if (lookupPath(values, 'security.scanning.enabled') === true) {
    // What the agent's report informers list and watch (runtime/kube/cluster-cache.ts), wherever the namespaced reads go.
    for (const resource of ['vulnerabilityreports', 'configauditreports']) {
      const verbs = all.filter((g) => g.group === 'aquasecurity.github.io' && g.resource === resource).map((g) => g.verb);
      for (const verb of ['get', 'list', 'watch']) assert.ok(verbs.includes(verb), `${resource}: ${verb}`);
    }
  }

  const appArmor = lookupPath(values, 'security.appArmorProfile');
  for (const name of ['capstan-agent', 'capstan-ui']) {
    const deployment = get(objects, 'Deployment', name, NAMESPACE) as Deployment;
    const pod = deployment.spec.template.spec;
    // AppArmor by the securityContext field only, whatever version helm assumed (the annotation is deprecated since 1.30).
    assert.deepEqual(Object.keys(deployment.spec.template.metadata.annotations ?? {}).filter((a) => a.startsWith('container.apparmor.security.beta.kubernetes.io/')), [], `${name}: no AppArmor annotation`);
    assert.equal(pod.securityContext?.appArmorProfile?.type, appArmor === 'unconfined' ? undefined : appArmor === 'runtime/default' ? 'RuntimeDefault' : 'Localhost', `${name}: the appArmorProfile field`);
    // Both pods hold the install's dashboard secret (the client address the dashboard vouches for).
    const proxyEnv = (pod.containers[0]?.env ?? []).find((e) => e.name === 'CAPSTAN_UI_PROXY_SECRET') as { valueFrom?: { secretKeyRef?: { name: string; key: string } } } | undefined;
    assert.deepEqual(proxyEnv?.valueFrom?.secretKeyRef, { name: 'capstan-ui-proxy', key: 'proxy-secret' }, `${name} reads capstan-ui-proxy`);
    assert.equal(pod.securityContext?.runAsNonRoot, true, `${name} runs as non-root`);
    assert.equal(pod.securityContext.seccompProfile?.type, 'RuntimeDefault', `${name} seccomp`);
    for (const container of pod.containers) {
      assert.equal(container.securityContext?.allowPrivilegeEscalation, false);
      assert.deepEqual(container.securityContext.capabilities?.drop, ['ALL']);
      assert.equal(container.securityContext.readOnlyRootFilesystem, true);
      assert.ok(container.volumeMounts?.some((m) => m.mountPath === '/tmp' && pod.volumes?.some((v) => v.name === m.name && v.emptyDir !== undefined)), `${name} has an emptyDir at /tmp`);
    }
  }
  assert.equal(find(objects, 'NetworkPolicy', 'capstan-block-imds', NAMESPACE) !== undefined, lookupPath(values, 'security.blockImds') === true, 'the IMDS NetworkPolicy follows security.blockImds');
  const ingress = find(objects, 'Ingress', 'capstan', NAMESPACE);
  assert.equal(ingress !== undefined, lookupPath(values, 'ingress.enabled') === true && lookupPath(values, 'global.hostname') !== '', 'an Ingress exactly with a hostname outside service-only mode');
  const tls = ingress !== undefined && lookupPath(values, 'global.tls') === true;
  const uiEnv = (get(objects, 'Deployment', 'capstan-ui', NAMESPACE) as Deployment).spec.template.spec.containers[0]?.env ?? [];
  assert.equal(uiEnv.find((e) => e.name === 'CAPSTAN_UI_HSTS')?.value, String(tls), 'HSTS exactly when the Ingress has TLS');
  const gceRedirect = tls && lookupPath(values, 'global.ingressClassName') === 'gce';
  assert.equal(find(objects, 'FrontendConfig', 'capstan-frontend', NAMESPACE) !== undefined, gceRedirect, 'the GKE HTTPS redirect exactly on gce with TLS');
  assert.equal(ingress?.metadata.annotations?.['networking.gke.io/v1beta1.FrontendConfig'], gceRedirect ? 'capstan-frontend' : undefined);
  const agent = get(objects, 'Deployment', 'capstan-agent', NAMESPACE) as Deployment;
  const exclusive = lookupPath(values, 'persistence.enabled') === true && lookupPath(values, 'persistence.accessMode') !== 'ReadWriteMany';
  const strategy = lookupPath(values, 'updateStrategy');
  assert.equal(agent.spec.strategy.type, strategy === '' ? (exclusive ? 'Recreate' : 'RollingUpdate') : strategy);
}

before(async () => {
  const { binDir } = testCluster();
  assert.ok(existsSync(join(binDir, 'helm')), `no helm in ${binDir}: scripts/build-control-plane.sh builds it`);
  // Another file (chart-install.test.ts) installs into the same namespace and leaves it
  // terminating; objects cannot be created in it until it is gone.
  await k(['delete', 'namespace', NAMESPACE, '--ignore-not-found', '--wait=true', '--timeout=100s']);
  await k(['create', 'namespace', NAMESPACE]);
  // GKE's ManagedCertificate kind, so the managed-certificate mode's object passes admission
  // here as on GKE; a stand-in that accepts any spec (the real one lives only on GKE).
  await k(['apply', '-f', '-'], JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'managedcertificates.networking.gke.io' },
    spec: {
      group: 'networking.gke.io',
      scope: 'Namespaced',
      names: { kind: 'ManagedCertificate', plural: 'managedcertificates', singular: 'managedcertificate', listKind: 'ManagedCertificateList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  }));
  // And GKE's FrontendConfig (the HTTPS redirect on the gce class), likewise a stand-in.
  await k(['apply', '-f', '-'], JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'frontendconfigs.networking.gke.io' },
    spec: {
      group: 'networking.gke.io',
      scope: 'Namespaced',
      names: { kind: 'FrontendConfig', plural: 'frontendconfigs', singular: 'frontendconfig', listKind: 'FrontendConfigList' },
      versions: [{ name: 'v1beta1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  }));
  await waitForCrdsEstablished(k, ['managedcertificates.networking.gke.io', 'frontendconfigs.networking.gke.io']);
  for (const ns of TENANTS) await k(['get', 'namespace', ns]);
});

after(async () => {
  await k(['delete', 'namespace', NAMESPACE, '--ignore-not-found', '--wait=true', '--timeout=100s']);
  await k(['delete', 'crd', 'managedcertificates.networking.gke.io', 'frontendconfigs.networking.gke.io', '--ignore-not-found']);
});

describe('helm lint', () => {
  it('passes for the defaults and each preset', async () => {
    // helm lint has no cluster either: it renders with the secrets given, as GitOps must.
    const secrets = ['-f', valuesFile(OFFLINE_SECRETS)];
    for (const files of [secrets, ...PRESETS.map((p) => [...secrets, '-f', join(CHART_DIR, 'presets', `${p}.yaml`)])]) {
      const result = await helm(['lint', '--strict', CHART_DIR, ...files]);
      assert.ok(result.ok, `helm lint ${files.join(' ')}: ${result.stdout}${result.stderr}`);
    }
  });
});

// The cases are independent (nothing is created: dry runs only) and each mostly waits on helm
// and the API server, so three run at once: the file's slowest part, a third of its old time.
describe('every rendered set passes the API server (dry-run=server)', { concurrency: 3 }, () => {
  const cases = [...EXPLICIT, ...matrix()];
  it('covers enum values of the schema', () => {
    const flips = matrix().map((c) => c.name);
    assert.ok(flips.includes('global.tlsProvider="manual"') && flips.includes('service.type="LoadBalancer"'));
  });
  for (const c of cases) {
    it(c.name, async () => {
      const objects = await render(c.values, c.files, { kubeVersion: c.kubeVersion });
      checkInvariants(c, objects);
      const warnings = await dryRunApply(objects);
      // Nothing the API server calls deprecated (the AppArmor annotation is, from 1.30), whatever
      // version helm assumed; but GKE's Ingress controller reads its class only from the
      // kubernetes.io/ingress.class annotation (it ignores spec.ingressClassName), so on gce
      // that one deprecation is the price of working.
      const GKE_CLASS_WARNING = /^Warning: annotation "kubernetes\.io\/ingress\.class" is deprecated, please use 'spec\.ingressClassName' instead$/;
      const unexpected = warnings.split('\n').filter((line) => line.trim() !== '' && !GKE_CLASS_WARNING.test(line.trim()));
      assert.deepEqual(unexpected, [], warnings);
    });
  }
});

describe('the schema refuses bad values, naming the field', () => {
  const BAD: [string, Values, string][] = [
    ['admin password under 8 characters', { security: { adminPassword: 'short' } }, "at '/security/adminPassword'"],
    ['nodePort below the range', { ui: { service: { type: 'NodePort', nodePort: 80 } } }, "at '/ui/service/nodePort'"],
    ['nodePort above the range', { ui: { service: { type: 'NodePort', nodePort: 40000 } } }, "at '/ui/service/nodePort'"],
    ['a CIDR with a /33', { security: { trustedProxyCidrs: '10.0.0.0/33' } }, "at '/security/trustedProxyCidrs'"],
    ['a word in a CIDR list', { security: { ipAllowlist: '10.0.0.0/8,office' } }, "at '/security/ipAllowlist'"],
    ['an octet over 255', { security: { ipDenylist: '300.1.1.1' } }, "at '/security/ipDenylist'"],
    ['a blocked tenant namespace', { tenantNamespaces: ['kube-system'] }, "at '/tenantNamespaces/0'"],
    ['a registry with a scheme', { license: { registry: 'https://registry.example.com' } }, "at '/license/registry'"],
    ['a license URL without a scheme', { license: { apiUrl: 'license.example.com' } }, "at '/license/apiUrl'"],
    ['a blocked namespace prefix', { tenantNamespaces: ['shop', 'gke-managed-x'] }, "at '/tenantNamespaces/1'"],
    ['an invalid namespace name', { tenantNamespaces: ['Shop_1'] }, "at '/tenantNamespaces/0'"],
    ['Capstan\'s own namespace for Secrets', { rbac: { secretsNamespaces: ['capstan-system'] } }, "at '/rbac/secretsNamespaces/0'"],
    ['an unknown TLS provider', { global: { tlsProvider: 'letsencrypt' } }, "at '/global/tlsProvider'"],
    ['a hostname with spaces', { global: { hostname: 'not a host' } }, "at '/global/hostname'"],
    ['cookieSecure yes', { security: { cookieSecure: 'yes' } }, "at '/security/cookieSecure'"],
    ['an AppArmor profile of no known form', { security: { appArmorProfile: 'strict' } }, "at '/security/appArmorProfile'"],
    ['a scanning mode', { security: { scanning: { mode: 'both' } } }, "at '/security/scanning/mode'"],
    ['an alert severity', { agent: { alertMinSeverity: 'low' } }, "at '/agent/alertMinSeverity'"],
    ['an AI rate of 0', { security: { aiRateLimitPerMin: 0 } }, "at '/security/aiRateLimitPerMin'"],
    ['a negative discovery rate', { security: { discoveryRateLimitPerMin: -1 } }, "at '/security/discoveryRateLimitPerMin'"],
    ['the core group as a custom resource group', { rbac: { customResourceGroups: [''] } }, "at '/rbac/customResourceGroups/0'"],
    ['a built-in group (apps) as a custom resource group', { rbac: { customResourceGroups: ['apps'] } }, "at '/rbac/customResourceGroups/0'"],
    ['a *.k8s.io group as a custom resource group', { rbac: { customResourceGroups: ['cert-manager.io', 'rbac.authorization.k8s.io'] } }, "at '/rbac/customResourceGroups/1'"],
    ['a wildcard custom resource group', { rbac: { customResourceGroups: ['*'] } }, "at '/rbac/customResourceGroups/0'"],
    ['a negative idle timeout', { security: { sessionIdleTimeout: -1 } }, "at '/security/sessionIdleTimeout'"],
    ['an idle timeout as text', { security: { sessionIdleTimeout: '8h' } }, "at '/security/sessionIdleTimeout'"],
    ['an encryption key of 10 bytes', { security: { encryptionKey: 'tooshort!!' } }, "at '/security/encryptionKey'"],
    ['a pull policy', { image: { pullPolicy: 'Sometimes' } }, "at '/image/pullPolicy'"],
    ['a digest that is not sha256', { image: { digest: 'sha256:xyz' } }, "at '/image/digest'"],
    ['an ExternalName agent Service', { service: { type: 'ExternalName' } }, "at '/service/type'"],
    ['a port over 65535', { service: { port: 70000 } }, "at '/service/port'"],
    ['an Ingress dashboard Service', { ui: { service: { type: 'Ingress' } } }, "at '/ui/service/type'"],
    ['zero replicas', { replicaCount: 0 }, "at '/replicaCount'"],
    ['an update strategy', { updateStrategy: 'BlueGreen' }, "at '/updateStrategy'"],
    ['a read-only access mode', { persistence: { accessMode: 'ReadOnlyMany' } }, "at '/persistence/accessMode'"],
    ['a volume size in words', { persistence: { size: 'lots' } }, "at '/persistence/size'"],
    ['a CPU request in words', { resources: { requests: { cpu: 'fast' } } }, "at '/resources/requests/cpu'"],
    ['a minAvailable in words', { podDisruptionBudget: { minAvailable: 'half' } }, "at '/podDisruptionBudget/minAvailable'"],
    ['an ftp Prometheus URL', { agent: { prometheusUrl: 'ftp://prom' } }, "at '/agent/prometheusUrl'"],
    ['an audit webhook that is no URL', { audit: { webhookUrl: 'collector' } }, "at '/audit/webhookUrl'"],
    ['a boolean as text', { rbac: { allowWrites: 'yes' } }, "at '/rbac/allowWrites'"],
    ['a misspelt top-level value', { securty: { blockImds: false } }, "'securty' not allowed"],
    ['a misspelt nested value', { security: { blockImd: false } }, "'blockImd' not allowed"],
  ];
  for (const [what, values, field] of BAD) {
    it(what, async () => {
      const error = await refusal(values);
      assert.match(error, /values don't meet the specifications of the schema/);
      assert.ok(error.includes(field), `names ${field}: ${error}`);
    });
  }
});

describe('values that contradict each other are refused with a message', () => {
  const REFUSED: [string, Values, RegExp][] = [
    ['service-only mode without trusted proxies', { ingress: { enabled: false } }, /service-only mode \(ingress\.enabled=false\) needs security\.trustedProxyCidrs/],
    ['namespaced RBAC without tenant namespaces', { rbac: { clusterWide: false } }, /rbac\.clusterWide=false needs tenantNamespaces/],
    ['custom resource groups in a namespaced install', { rbac: { clusterWide: false, customResourceGroups: ['cert-manager.io'] }, tenantNamespaces: ['shop'] }, /rbac\.customResourceGroups needs rbac\.clusterWide=true/],
    ['two replicas on a ReadWriteOnce volume', { replicaCount: 2 }, /replicaCount=2 needs persistence\.accessMode=ReadWriteMany/],
    ['manual TLS without a Secret', { global: { hostname: HOST, tlsProvider: 'manual' } }, /global\.tlsProvider=manual needs global\.tlsSecret/],
    ['a managed certificate on nginx', { global: { hostname: HOST, tlsProvider: 'managed-certificate', ingressClassName: 'nginx' } }, /managed-certificate works only with GKE's ingress/],
    ['certificate-manager on nginx', { global: { hostname: HOST, tlsProvider: 'certificate-manager', ingressClassName: 'nginx' } }, /certificate-manager works only with global\.ingressClassName alb/],
    ['Application Gateway without a certificate', { global: { hostname: HOST, ingressClassName: 'azure-application-gateway' } }, /needs global\.tlsCertificate/],
    ['replication without a bucket', { persistence: { replication: { enabled: true } } }, /persistence\.replication\.enabled=true needs persistence\.replication\.bucket/],
    ['WORM export without a bucket', { audit: { worm: { enabled: true } } }, /audit\.worm\.enabled=true needs audit\.worm\.bucket/],
  ];
  for (const [what, values, message] of REFUSED) {
    it(what, async () => assert.match(await refusal(values), message));
  }
  it('service-only mode with trusted proxies renders the two Services and no Ingress', async () => {
    const objects = await render({ ingress: { enabled: false }, global: { hostname: HOST }, security: { trustedProxyCidrs: '10.42.0.0/16' } });
    assert.deepEqual(objects.filter((o) => o.kind === 'Service').map((o) => o.metadata.name).sort(), ['capstan-agent', 'capstan-ui']);
    assert.equal(objects.filter((o) => o.kind === 'Ingress' || o.kind === 'ManagedCertificate').length, 0);
  });
});

describe('what the chart renders', () => {
  it('routes the terminal WebSocket to the agent and the rest to the dashboard, TLS by ingress class', async () => {
    type Ingress = KubeObject & { spec: { ingressClassName?: string; tls?: { hosts: string[]; secretName?: string }[]; rules: { host: string; http: { paths: { path: string; pathType: string; backend: { service: { name: string } } }[] } }[] } };
    const cert = get(await render({ global: { hostname: HOST, ingressClassName: 'nginx' } }), 'Ingress', 'capstan', NAMESPACE) as Ingress;
    assert.deepEqual(cert.spec.rules[0]?.http.paths.map((p) => `${p.path} ${p.pathType} ${p.backend.service.name}`), ['/api/agent/terminal/ws Prefix capstan-agent', '/ Prefix capstan-ui']);
    assert.equal(cert.metadata.annotations?.['cert-manager.io/cluster-issuer'], 'letsencrypt-prod');
    assert.deepEqual(cert.spec.tls, [{ hosts: [HOST], secretName: 'capstan-tls' }]);
    assert.equal(cert.spec.ingressClassName, 'nginx');

    const gce = await render({ global: { hostname: HOST, ingressClassName: 'gce' } });
    const gceIngress = get(gce, 'Ingress', 'capstan', NAMESPACE) as Ingress;
    assert.equal(gceIngress.metadata.annotations?.['networking.gke.io/managed-certificates'], 'capstan-certificate');
    assert.equal(gceIngress.metadata.annotations['kubernetes.io/ingress.class'], 'gce');
    assert.equal(gceIngress.spec.ingressClassName, undefined);
    assert.deepEqual((get(gce, 'ManagedCertificate', 'capstan-certificate', NAMESPACE) as KubeObject & { spec: { domains: string[] } }).spec.domains, [HOST]);

    const alb = get(await render({ global: { hostname: HOST, ingressClassName: 'alb' } }), 'Ingress', 'capstan', NAMESPACE) as Ingress;
    assert.deepEqual(alb.spec.tls, [{ hosts: [HOST] }], 'no secretName: the controller finds the ACM certificate by host');
    assert.equal(alb.metadata.annotations?.['alb.ingress.kubernetes.io/ssl-redirect'], '443');

    const agw = get(await render({ global: { hostname: HOST, ingressClassName: 'azure-application-gateway', tlsCertificate: 'capstan-cert' } }), 'Ingress', 'capstan', NAMESPACE) as Ingress;
    assert.equal(agw.metadata.annotations?.['appgw.ingress.kubernetes.io/appgw-ssl-certificate'], 'capstan-cert');
    assert.equal(agw.spec.tls, undefined);

    const plain = get(await render({ global: { hostname: HOST, tls: false } }), 'Ingress', 'capstan', NAMESPACE) as Ingress;
    assert.equal(plain.spec.tls, undefined);
    assert.equal(Object.keys(plain.metadata.annotations ?? {}).some((a) => a.startsWith('cert-manager.io/')), false);
  });

  it('configures the agent from the values: env from the ConfigMap and Secrets, images at appVersion, probes', async () => {
    const objects = await render({ global: { hostname: HOST }, security: { trustedProxyCidrs: '10.0.0.0/8', aiRateLimitPerMin: 20, discoveryRateLimitPerMin: 600, cookieSecure: true, sessionIdleTimeout: 0 }, metrics: { kubeletScrape: { viaProxy: true } }, alerting: { chatWebhookUrl: 'https://chat.example.com/h' } });
    const config = (get(objects, 'ConfigMap', 'capstan-agent-config', NAMESPACE) as WithData).data;
    const expected: Record<string, string> = { CAPSTAN_DATA_DIR: '/data/capstan', CAPSTAN_TRUSTED_PROXY_CIDRS: '10.0.0.0/8', CAPSTAN_RATE_LIMITS: 'ai=20,discovery=600', CAPSTAN_COOKIE_SECURE: 'true', CAPSTAN_SESSION_IDLE_TIMEOUT: '0', METRICS_KUBELET_SCRAPE: 'proxy', CAPSTAN_CORS_ORIGINS: `https://${HOST}`, CAPSTAN_TENANT_NAMESPACES: '' };
    for (const [name, value] of Object.entries(expected)) assert.equal(config[name], value, name);
    assert.equal(config.CAPSTAN_WATCH_SCOPE, undefined, 'cluster-wide RBAC: the agent watches cluster-wide');
    const env = (get(objects, 'Secret', 'capstan-agent-env', NAMESPACE) as WithData).data;
    assert.equal(Buffer.from(env.CAPSTAN_CHAT_WEBHOOK_URL ?? '', 'base64').toString(), 'https://chat.example.com/h');
    const chartVersion = (parse(readFileSync(`${CHART_DIR}Chart.yaml`, 'utf8')) as { appVersion: string }).appVersion;
    const agent = (get(objects, 'Deployment', 'capstan-agent', NAMESPACE) as Deployment).spec.template.spec;
    const container = agent.containers[0];
    assert.ok(container);
    assert.deepEqual(container.args, ['--listen', ':8080']);
    assert.equal(container.readinessProbe?.httpGet?.path, '/readyz');
    assert.equal(container.livenessProbe?.httpGet?.path, '/healthz');
    assert.equal(container.image, `capstan-agent:${chartVersion}`);
    assert.deepEqual((container.env ?? []).map((e) => e.name), ['CAPSTAN_ENCRYPTION_KEY', 'CAPSTAN_UI_PROXY_SECRET', 'CAPSTAN_ADMIN_PASSWORD', 'CAPSTAN_VIEWER_PASSWORD']);
    const ui = (get(objects, 'Deployment', 'capstan-ui', NAMESPACE) as Deployment).spec.template.spec;
    assert.equal(ui.automountServiceAccountToken, false);
    assert.deepEqual(ui.containers[0]?.env, [
      { name: 'CAPSTAN_AGENT_URL', value: `http://capstan-agent.${NAMESPACE}.svc:8080` },
      // The client address it vouches for to the agent (docs/install.md, "Client addresses").
      { name: 'CAPSTAN_UI_PROXY_SECRET', valueFrom: { secretKeyRef: { name: 'capstan-ui-proxy', key: 'proxy-secret' } } },
      { name: 'CAPSTAN_TRUSTED_PROXY_CIDRS', value: '10.0.0.0/8' },
      // With a trusted list the dashboard walks it, so it counts no hops itself.
      { name: 'CAPSTAN_UI_FORWARDED_HOPS', value: '0' },
      { name: 'CAPSTAN_UI_HSTS', value: 'true' },
    ]);
    assert.equal(agent.securityContext?.appArmorProfile?.type, 'RuntimeDefault');
  });

  it('renders the registry pull Secret only with both license.key and license.registry (neither host is published yet)', async () => {
    const pullSecrets = (objects: KubeObject[]) => ((get(objects, 'Deployment', 'capstan-agent', NAMESPACE) as Deployment).spec.template.spec as PodSpec & { imagePullSecrets?: { name: string }[] }).imagePullSecrets?.map((s) => s.name) ?? [];
    const defaults = await render({});
    assert.equal(find(defaults, 'Secret', 'capstan-registry'), undefined);
    assert.equal(find(defaults, 'Secret', 'capstan-license'), undefined);
    assert.deepEqual(pullSecrets(defaults), []);
    const keyOnly = await render({ license: { key: 'lic-123' } });
    assert.ok(find(keyOnly, 'Secret', 'capstan-license', NAMESPACE));
    assert.equal(find(keyOnly, 'Secret', 'capstan-registry'), undefined, 'no pull secret for an empty registry');
    assert.deepEqual(pullSecrets(keyOnly), []);
    const both = await render({ license: { key: 'lic-123', registry: 'registry.example.com' } });
    const config = JSON.parse(Buffer.from((get(both, 'Secret', 'capstan-registry', NAMESPACE) as WithData).data['.dockerconfigjson'] ?? '', 'base64').toString()) as { auths: Record<string, unknown> };
    assert.deepEqual(Object.keys(config.auths), ['registry.example.com']);
    assert.deepEqual(pullSecrets(both), ['capstan-registry']);
    assert.equal((get(both, 'ConfigMap', 'capstan-agent-config', NAMESPACE) as WithData).data.CAPSTAN_LICENSE_API_URL, '', 'no license service URL by default');
  });

  it('installs for real: the admin password and encryption key are kept on upgrade, both and the volume across uninstall', async () => {
    const secret = async (name: string, field: string) => Buffer.from((await kJson<{ data: Record<string, string> }>(['get', 'secret', name, '-n', NAMESPACE])).data[field] ?? '', 'base64').toString();
    const release = ['capstan', CHART_DIR, '-n', NAMESPACE];
    try {
      const installed = await helm(['install', ...release, '--set', 'global.hostname=' + HOST, '--set', 'security.trustedProxyCidrs=10.0.0.0/8']);
      assert.ok(installed.ok, installed.stderr);
      assert.match(installed.stdout, new RegExp(`https://${HOST}/api/agent/mcp`));
      assert.match(installed.stdout, /get secret capstan-admin -o jsonpath='\{\.data\.admin-password\}' \| base64 -d/);
      const password = await secret('capstan-admin', 'admin-password');
      const key = await secret('capstan-encryption-key', 'encryption-key');
      assert.equal(password.length, 24);
      assert.equal(Buffer.from(key, 'base64').length, 32, 'a random 256-bit key');

      const upgraded = await helm(['upgrade', ...release, '--reuse-values', '--set', 'security.adminPassword=a-new-password']);
      assert.ok(upgraded.ok, upgraded.stderr);
      assert.equal(await secret('capstan-admin', 'admin-password'), password, 'an admin password once set is never overwritten');
      assert.equal(await secret('capstan-encryption-key', 'encryption-key'), key);

      const removed = await helm(['uninstall', 'capstan', '-n', NAMESPACE, '--wait']);
      assert.ok(removed.ok, removed.stderr);
      assert.equal(await secret('capstan-encryption-key', 'encryption-key'), key, 'the key outlives the release');
      assert.equal((await k(['get', 'pvc', 'capstan-agent-data', '-n', NAMESPACE, '-o', 'name'])).trim(), 'persistentvolumeclaim/capstan-agent-data', 'so does the database volume');
      assert.equal(await secret('capstan-admin', 'admin-password'), password, 'the admin password the kept database knows outlives the release');

      const again = await helm(['install', ...release]);
      assert.ok(again.ok, again.stderr);
      assert.equal(await secret('capstan-encryption-key', 'encryption-key'), key, 'a reinstall opens what the old install sealed');
      assert.equal(await secret('capstan-admin', 'admin-password'), password, 'and NOTES points at the password the old database accepts');
    } finally {
      await helm(['uninstall', 'capstan', '-n', NAMESPACE, '--wait']);
      await k(['delete', 'secret', 'capstan-encryption-key', 'capstan-admin', '-n', NAMESPACE, '--ignore-not-found']);
      await k(['delete', 'pvc', 'capstan-agent-data', '-n', NAMESPACE, '--ignore-not-found', '--wait=false']);
    }
  });
});

describe('GitOps: rendering without a cluster (helm template, Argo CD) keeps no random secret', () => {
  const offline = async (values: Values) => helm(['template', 'capstan', CHART_DIR, '-n', NAMESPACE, '--kube-version', await kubeVersion(), '-f', valuesFile(values)]);

  it('refuses to render without the seeded secrets, naming each value still missing', async () => {
    const none = await offline({});
    assert.equal(none.ok, false, 'a new encryption key on every render would leave the sealed data unreadable');
    assert.match(none.stderr, /rendering without a cluster to read the seeded Secrets back \(helm template, helm lint, Argo CD, Flux\) needs security\.encryptionKey, security\.adminPassword, security\.uiProxySecret/);
    const keyOnly = await offline({ security: { encryptionKey: 'e'.repeat(32) } });
    assert.equal(keyOnly.ok, false);
    assert.match(keyOnly.stderr, /needs security\.adminPassword, security\.uiProxySecret:/);
  });

  it('with them, renders the same Secrets on every run, holding exactly the values', async () => {
    const first = await offline(OFFLINE_SECRETS);
    const second = await offline(OFFLINE_SECRETS);
    assert.ok(first.ok, first.stderr);
    assert.equal(first.stdout, second.stdout, 'nothing random: a GitOps tool sees no drift');
    const objects = parseAllDocuments(first.stdout).map((d) => d.toJS() as KubeObject | null).filter((o): o is KubeObject => o !== null);
    const data = (name: string, key: string) => Buffer.from((get(objects, 'Secret', name, NAMESPACE) as WithData).data[key] ?? '', 'base64').toString();
    assert.equal(data('capstan-encryption-key', 'encryption-key'), 'e'.repeat(32));
    assert.equal(data('capstan-admin', 'admin-password'), 'gitops-admin-password');
    assert.equal(data('capstan-ui-proxy', 'proxy-secret'), 'u'.repeat(40));
  });

  it('helm install --dry-run=server, which can read the cluster, still renders without them (the normal install)', async () => {
    const result = await helm(['install', 'capstan', CHART_DIR, '-n', NAMESPACE, '--dry-run=server']);
    assert.ok(result.ok, result.stderr);
    const objects = parseAllDocuments(result.stdout.slice(result.stdout.indexOf('---'), result.stdout.indexOf('NOTES:'))).map((d) => d.toJS() as KubeObject | null).filter((o): o is KubeObject => o !== null);
    const proxySecret = Buffer.from((get(objects, 'Secret', 'capstan-ui-proxy', NAMESPACE) as WithData).data['proxy-secret'] ?? '', 'base64').toString();
    assert.match(proxySecret, /^[A-Za-z0-9]{48}$/, 'a random secret, seeded once');
    // The Secret holds the key as base64 text (sprig's randBytes is base64 already), which the agent decodes: 32 bytes.
    const keyText = Buffer.from((get(objects, 'Secret', 'capstan-encryption-key', NAMESPACE) as WithData).data['encryption-key'] ?? '', 'base64').toString();
    assert.equal(Buffer.from(keyText, 'base64').length, 32, keyText);
  });
});

describe('the HTTPS redirect and HSTS', () => {
  it('gce with TLS: a FrontendConfig redirecting to https, named by the Ingress; the dashboard sends HSTS', async () => {
    const objects = await render({ global: { hostname: HOST, ingressClassName: 'gce' } });
    const frontend = get(objects, 'FrontendConfig', 'capstan-frontend', NAMESPACE) as KubeObject & { spec: { redirectToHttps: { enabled: boolean; responseCodeName: string } } };
    assert.deepEqual(frontend.spec.redirectToHttps, { enabled: true, responseCodeName: 'MOVED_PERMANENTLY_DEFAULT' });
    assert.equal(frontend.apiVersion, 'networking.gke.io/v1beta1');
    assert.equal(get(objects, 'Ingress', 'capstan', NAMESPACE).metadata.annotations?.['networking.gke.io/v1beta1.FrontendConfig'], 'capstan-frontend');
    const ui = (get(objects, 'Deployment', 'capstan-ui', NAMESPACE) as Deployment).spec.template.spec.containers[0]?.env ?? [];
    assert.deepEqual(ui.filter((e) => e.name === 'CAPSTAN_UI_HSTS' || e.name === 'CAPSTAN_UI_FORWARDED_HOPS').map((e) => `${e.name}=${e.value ?? ''}`), ['CAPSTAN_UI_FORWARDED_HOPS=2', 'CAPSTAN_UI_HSTS=true']);
  });

  it('gce without TLS: no redirect (nothing to redirect to), no HSTS; other classes: one forwarding hop', async () => {
    const plain = await render({ global: { hostname: HOST, ingressClassName: 'gce', tls: false } });
    assert.equal(find(plain, 'FrontendConfig', 'capstan-frontend'), undefined);
    const env = (objects: KubeObject[]) => Object.fromEntries(((get(objects, 'Deployment', 'capstan-ui', NAMESPACE) as Deployment).spec.template.spec.containers[0]?.env ?? []).map((e) => [e.name, e.value]));
    assert.equal(env(plain).CAPSTAN_UI_HSTS, 'false');
    assert.equal(env(await render({ global: { hostname: HOST, ingressClassName: 'nginx' } })).CAPSTAN_UI_FORWARDED_HOPS, '1');
    const listed = env(await render({ global: { hostname: HOST }, security: { trustedProxyCidrs: '10.0.0.0/8' } }));
    assert.deepEqual([listed.CAPSTAN_UI_FORWARDED_HOPS, listed.CAPSTAN_TRUSTED_PROXY_CIDRS], ['0', '10.0.0.0/8'], 'with a trusted list, the dashboard walks it instead');
    assert.equal(env(await render({})).CAPSTAN_UI_FORWARDED_HOPS, '0', 'no Ingress (port-forward): the socket peer');
  });
});

describe('Pod Security Admission (docs/install.md: the namespace labels)', () => {
  const PSA_NAMESPACE = 'capstan-psa';
  after(async () => {
    await k(['delete', 'namespace', PSA_NAMESPACE, '--ignore-not-found', '--wait=false']);
  });

  it('the chart\'s pods pass the restricted level enforced on their namespace, with no warning', async () => {
    await k(['create', 'namespace', PSA_NAMESPACE]);
    await k(['label', 'namespace', PSA_NAMESPACE, 'pod-security.kubernetes.io/enforce=restricted', 'pod-security.kubernetes.io/warn=restricted', 'pod-security.kubernetes.io/audit=restricted']);
    // With both terminal sidecars (the admin one comes with rbac.allowWrites): their containers meet the level too.
    const result = await helm(['template', 'capstan', CHART_DIR, '-n', PSA_NAMESPACE, '--kube-version', await kubeVersion(), '-f', valuesFile(OFFLINE_SECRETS), '-f', valuesFile({ global: { hostname: HOST }, terminal: { enabled: true }, rbac: { allowWrites: true } })]);
    assert.ok(result.ok, result.stderr);
    const objects = parseAllDocuments(result.stdout).map((d) => d.toJS() as KubeObject | null).filter((o): o is KubeObject => o !== null);
    const deployments = objects.filter((o): o is Deployment => o.kind === 'Deployment');
    assert.equal(deployments.length, 2);
    assert.deepEqual((get(objects, 'Deployment', 'capstan-agent', PSA_NAMESPACE) as Deployment).spec.template.spec.containers.map((c) => c.name), ['agent', 'terminal', 'terminal-admin']);
    // A pod names its ServiceAccount, which admission looks up: create the chart's for real.
    const accounts = objects.filter((o) => o.kind === 'ServiceAccount').map((o) => ({ ...o, metadata: { ...o.metadata, namespace: PSA_NAMESPACE } }));
    assert.ok(accounts.length > 0);
    const created = await kubectlWithWarnings(['apply', '-f', '-'], toManifest(accounts));
    assert.ok(created.ok, created.stderr);
    // Deployments get the warn level's verdict; the pods themselves meet enforce.
    const pods = deployments.map((d) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: d.metadata.name, namespace: PSA_NAMESPACE, annotations: d.spec.template.metadata.annotations ?? {} }, spec: d.spec.template.spec }));
    for (const set of [deployments, pods]) {
      const applied = await kubectlWithWarnings(['apply', '--dry-run=server', '-f', '-'], toManifest(set));
      assert.ok(applied.ok, applied.stderr);
      assert.doesNotMatch(applied.stderr, /Warning:/, applied.stderr);
    }
    // And the level means something here: a privileged pod is refused.
    const privileged = { ...pods[0], metadata: { name: 'privileged', namespace: PSA_NAMESPACE }, spec: { containers: [{ name: 'x', image: 'busybox', securityContext: { privileged: true } }] } };
    const refused = await kubectlWithWarnings(['apply', '--dry-run=server', '-f', '-'], JSON.stringify(privileged));
    assert.equal(refused.ok, false);
    assert.match(refused.stderr, /violates PodSecurity "restricted/);
  });
});
