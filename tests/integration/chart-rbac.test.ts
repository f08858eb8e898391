// The chart's RBAC, rendered (tests/support/chart-render.ts): the reads and writes the spec
// allows and nothing more, per mode (the terminal sidecars and their accounts:
// chart-terminal.test.ts). Split from chart.test.ts, which proves the rendered sets against
// the API server.
// Expert mode (the expert-exec pod, the only holder of cluster-admin) is proven here whole:
// rendered, then its set and its admission guard against the API server in a namespace of
// its own.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { k, waitFor } from '../support/cluster.ts';
import { CLUSTER_SCOPED, dryRunApply, find, get, grants, isWrite, key, kubectlWithWarnings, NAMESPACE, OWN_SECRETS, refusal, render, SPEC_WRITES, TENANTS, toManifest, type KubeObject, type Values, type WithData } from '../support/chart-render.ts';

describe('RBAC', () => {
  it('default: spec §5\'s reads, no write verb on workloads, Secret writes only in its own namespace', async () => {
    const all = grants(await render({}));
    const reads = new Set(all.filter((g) => g.role === 'ClusterRole/capstan-reader').map((g) => `${g.group}/${g.resource}`));
    for (const r of ['/pods', '/pods/log', '/services', '/configmaps', '/events', 'apps/deployments', 'apps/statefulsets', 'apps/daemonsets', 'networking.k8s.io/ingresses', 'batch/jobs', 'batch/cronjobs', '/nodes', '/namespaces']) {
      assert.ok(reads.has(r), `capstan-reader reads ${r}`);
    }
    // Every informer's resource (runtime/kube/cluster-cache.ts) and the metrics poller's.
    for (const r of ['/persistentvolumes', '/persistentvolumeclaims', 'apps/replicasets', '/resourcequotas', '/limitranges', 'discovery.k8s.io/endpointslices', 'networking.k8s.io/ingressclasses', 'storage.k8s.io/storageclasses', 'autoscaling/horizontalpodautoscalers', 'policy/poddisruptionbudgets', 'metrics.k8s.io/pods']) {
      assert.ok(reads.has(r), `capstan-reader reads ${r}`);
    }
    assert.deepEqual(all.filter((g) => g.role === 'Role/capstan-node-leases').map((g) => `${g.namespace} ${key(g)}`), ['kube-node-lease coordination.k8s.io/leases:get', 'kube-node-lease coordination.k8s.io/leases:list', 'kube-node-lease coordination.k8s.io/leases:watch']);
    assert.deepEqual(all.filter(isWrite).map((g) => `${g.role} ${g.namespace} ${key(g)}`), [`Role/capstan-own-namespace ${NAMESPACE} /secrets:create`, `Role/capstan-own-namespace ${NAMESPACE} /secrets:update`, `Role/capstan-own-namespace ${NAMESPACE} /secrets:patch`]);
    assert.deepEqual(all.filter((g) => g.resource === 'secrets' && !OWN_SECRETS(g)).map((g) => `${g.role} ${g.verb}`), ['ClusterRole/capstan-secrets-reader get', 'ClusterRole/capstan-secrets-reader list', 'ClusterRole/capstan-secrets-reader watch']);
    assert.ok(all.some((g) => g.resource === 'nodes/metrics'), 'the direct kubelet scrape (on by default) reads nodes/metrics');
  });

  it('allowWrites: exactly the spec\'s writes, cluster-wide', async () => {
    const writes = grants(await render({ rbac: { allowWrites: true } })).filter((g) => isWrite(g) && !OWN_SECRETS(g));
    assert.deepEqual(writes.map(key).sort(), SPEC_WRITES);
    assert.ok(writes.every((g) => g.role === 'ClusterRole/capstan-writer'));
  });

  it('allowWrites with tenant namespaces: the namespaced writes as a Role in each, namespace create cluster-wide', async () => {
    const writes = grants(await render({ rbac: { allowWrites: true }, tenantNamespaces: TENANTS })).filter((g) => isWrite(g) && !OWN_SECRETS(g));
    assert.deepEqual(writes.filter((g) => g.namespace === null).map((g) => `${g.role} ${key(g)}`), ['ClusterRole/capstan-writer /namespaces:create']);
    for (const ns of TENANTS) {
      assert.deepEqual(writes.filter((g) => g.namespace === ns).map(key).sort(), SPEC_WRITES.filter((w) => w !== '/namespaces:create'));
    }
  });

  it('clusterWide=false: a reader Role per tenant namespace, a ClusterRole with cluster-scoped reads only, the agent told to watch per namespace', async () => {
    const objects = await render({ rbac: { clusterWide: false }, tenantNamespaces: TENANTS });
    const all = grants(objects);
    const clusterReads = all.filter((g) => g.role === 'ClusterRole/capstan-reader');
    const namespacedInCluster = clusterReads.filter((g) => !CLUSTER_SCOPED.has(`${g.group}/${g.resource}`) && g.group !== 'aquasecurity.github.io');
    assert.deepEqual(namespacedInCluster.map(key), [], 'no namespaced workload read left in the ClusterRole');
    assert.ok(!clusterReads.some((g) => g.group === 'aquasecurity.github.io' && !g.resource.startsWith('cluster')), 'namespaced scanner reports moved too');
    assert.ok(!all.some((g) => g.role.startsWith('ClusterRole/') && g.resource === 'secrets'), 'no cluster-wide Secret read');
    for (const ns of TENANTS) {
      const role = new Set(all.filter((g) => g.role === 'Role/capstan-reader' && g.namespace === ns).map((g) => `${g.group}/${g.resource}`));
      for (const r of ['/pods', '/pods/log', '/configmaps', '/events', 'apps/deployments', 'apps/replicasets', 'batch/jobs', 'metrics.k8s.io/pods']) assert.ok(role.has(r), `Role capstan-reader in ${ns} reads ${r}`);
      assert.ok(all.some((g) => g.role === 'Role/capstan-secrets-reader' && g.namespace === ns && g.verb === 'list'), `Secrets readable in ${ns}`);
      get(objects, 'RoleBinding', 'capstan-reader', ns);
    }
    const config = (get(objects, 'ConfigMap', 'capstan-agent-config', NAMESPACE) as WithData).data;
    assert.equal(config.CAPSTAN_WATCH_SCOPE, 'namespaces');
    assert.equal(config.CAPSTAN_TENANT_NAMESPACES, TENANTS.join(','));
  });

  it('viaProxy alone adds nodes/proxy (and drops the direct scrape\'s nodes/metrics)', async () => {
    const before = new Set(grants(await render({})).map((g) => `${g.role} ${key(g)}`));
    const after = new Set(grants(await render({ metrics: { kubeletScrape: { viaProxy: true } } })).map((g) => `${g.role} ${key(g)}`));
    assert.deepEqual([...after].filter((g) => !before.has(g)), ['ClusterRole/capstan-reader /nodes/proxy:get']);
    assert.deepEqual([...before].filter((g) => !after.has(g)), ['ClusterRole/capstan-reader /nodes/metrics:get']);
  });

  it('customResourceGroups: get/list/watch on every resource of exactly those groups, nothing else', async () => {
    const before = new Set(grants(await render({})).map((g) => `${g.role} ${key(g)}`));
    const after = grants(await render({ rbac: { customResourceGroups: ['cert-manager.io', 'example.com'] } })).map((g) => `${g.role} ${key(g)}`);
    const added = after.filter((g) => !before.has(g)).sort();
    assert.deepEqual(added, ['cert-manager.io', 'example.com'].flatMap((group) => ['get', 'list', 'watch'].map((verb) => `ClusterRole/capstan-reader ${group}/*:${verb}`)).sort());
    assert.ok(before.has('ClusterRole/capstan-reader apiextensions.k8s.io/customresourcedefinitions:list'), 'which custom kinds exist is read in every install');
  });

  it('readSecrets=false withholds every Secret read but its own namespace\'s; secretsNamespaces narrows it', async () => {
    const none = grants(await render({ rbac: { readSecrets: false } }));
    assert.deepEqual(none.filter((g) => g.resource === 'secrets' && !OWN_SECRETS(g)), []);
    const scoped = grants(await render({ rbac: { secretsNamespaces: ['shop'] } }));
    assert.deepEqual([...new Set(scoped.filter((g) => g.resource === 'secrets' && !OWN_SECRETS(g)).map((g) => `${g.role} ${g.namespace}`))], ['Role/capstan-secrets-reader shop']);
  });
});

describe('expert mode (expertMode.enabled; docs/expert-mode.md, "The chart")', () => {
  const EXPERT = 'capstan-expert-exec';
  const EXPERT_SA = 'capstan-expert';
  const TOKEN_DIR = '/var/run/secrets/capstan/expert';
  const ON: Values = { expertMode: { enabled: true } };
  interface Container {
    name: string;
    image: string;
    imagePullPolicy?: string;
    command?: string[];
    args?: string[];
    env?: { name: string; value?: string; valueFrom?: object }[];
    envFrom?: object[];
    ports?: { name?: string; containerPort: number; protocol?: string }[];
    resources?: object;
    readinessProbe?: { httpGet?: { path: string; port: number | string } };
    livenessProbe?: { httpGet?: { path: string; port: number | string } };
    securityContext?: { runAsNonRoot?: boolean; runAsUser?: number; privileged?: boolean; readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean; capabilities?: { add?: string[]; drop?: string[] } };
    volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
  }
  interface Volume {
    name: string;
    emptyDir?: { medium?: string; sizeLimit?: string };
    projected?: { sources: { serviceAccountToken?: { audience?: string; expirationSeconds?: number; path: string } }[] };
  }
  interface Pod {
    serviceAccountName?: string;
    automountServiceAccountToken?: boolean;
    hostNetwork?: boolean;
    hostPID?: boolean;
    hostIPC?: boolean;
    securityContext: { runAsNonRoot?: boolean; runAsUser?: number; seccompProfile?: { type: string } };
    initContainers?: Container[];
    containers: Container[];
    volumes?: Volume[];
  }
  interface Workload extends KubeObject {
    spec: { replicas: number; selector: { matchLabels: Record<string, string> }; template: { metadata: { labels: Record<string, string> }; spec: Pod } };
  }
  interface Binding extends KubeObject {
    roleRef: { kind: string; name: string };
    subjects?: { kind: string; name: string; namespace?: string }[];
  }
  interface LabelSelector {
    matchLabels?: Record<string, string>;
    matchExpressions?: object[];
  }
  interface NetworkPolicy extends KubeObject {
    spec: { podSelector: LabelSelector; policyTypes: string[]; ingress?: { from?: { podSelector?: LabelSelector; namespaceSelector?: object; ipBlock?: object }[]; ports?: { protocol?: string; port: number | string }[] }[]; egress?: object[] };
  }
  const workload = (objects: KubeObject[], name: string) => get(objects, 'Deployment', name, NAMESPACE) as Workload;
  const expertOf = (objects: KubeObject[]) => workload(objects, EXPERT).spec.template.spec;
  const agentOf = (objects: KubeObject[]) => workload(objects, 'capstan-agent').spec.template.spec;
  const container = (pod: Pod, name: string) => {
    const found = pod.containers.find((c) => c.name === name);
    assert.ok(found, `container ${name}`);
    return found;
  };
  const envOf = (c: Container) => Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value]));
  /** Whether a selector's matchLabels (and nothing else) select a pod with these labels. */
  const selects = (selector: LabelSelector | undefined, labels: Record<string, string>) => selector !== undefined && selector.matchExpressions === undefined && Object.keys(selector.matchLabels ?? {}).length > 0 && Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
  const EXPERT_KINDS = ['ServiceAccount', 'ClusterRoleBinding', 'Deployment', 'Service', 'NetworkPolicy', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding'];
  const appVersion = async () => ((await render({})).find((o) => o.kind === 'Deployment')?.metadata.labels ?? {})['app.kubernetes.io/version'];

  it('off by default: no expert object, no cluster-admin, no expert env or token on the agent', async () => {
    const objects = await render({});
    assert.deepEqual(objects.filter((o) => /expert/.test(o.metadata.name)).map((o) => `${o.kind}/${o.metadata.name}`), []);
    assert.deepEqual(objects.filter((o) => o.kind.endsWith('Binding') && (o as Binding).roleRef.name === 'cluster-admin').map((o) => o.metadata.name), []);
    for (const values of [{}, { terminal: { enabled: true } }]) {
      const pod = agentOf(await render(values));
      for (const c of [...pod.containers, ...(pod.initContainers ?? [])]) {
        assert.deepEqual((c.env ?? []).filter((e) => e.name.startsWith('CAPSTAN_EXPERT')), [], `${c.name}: no expert env`);
        assert.ok(!(c.volumeMounts ?? []).some((m) => m.mountPath.startsWith(TOKEN_DIR)), `${c.name}: no expert token`);
      }
      assert.ok(!(pod.volumes ?? []).some((v) => v.projected?.sources.some((s) => s.serviceAccountToken?.audience !== undefined)), 'no token minted for another audience');
    }
  });

  it('on: the account, the Deployment running `capstan expert`, its Service and NetworkPolicy, and the agent told where it is', async () => {
    const objects = await render(ON);
    assert.deepEqual(objects.filter((o) => /expert/.test(o.metadata.name)).map((o) => o.kind).sort(), [...EXPERT_KINDS].sort());
    const account = get(objects, 'ServiceAccount', EXPERT_SA, NAMESPACE) as KubeObject & { automountServiceAccountToken?: boolean };
    assert.equal(account.automountServiceAccountToken, false, 'no pod gets its token without asking');
    const deployment = workload(objects, EXPERT);
    assert.equal(deployment.spec.replicas, 1);
    const pod = deployment.spec.template.spec;
    assert.equal(pod.serviceAccountName, EXPERT_SA);
    assert.equal(pod.automountServiceAccountToken, true, 'the projected default token, on this pod only');
    assert.deepEqual(pod.containers.map((c) => c.name), ['expert']);
    const expert = container(pod, 'expert');
    const agent = container(agentOf(objects), 'agent');
    assert.equal(expert.image, `capstan-expert:${await appVersion()}`, 'the expert image (the agent\'s plus helm) by default');
    assert.equal(expert.imagePullPolicy, agent.imagePullPolicy);
    assert.deepEqual(expert.command, ['/usr/local/bin/node', '/app/bin/capstan.js', 'expert'], 'the image\'s node and CLI, as the terminal sidecar is started');
    assert.equal(expert.args, undefined);
    assert.deepEqual(envOf(expert), {
      CAPSTAN_EXPERT_LISTEN: '0.0.0.0:7690',
      CAPSTAN_EXPERT_AUDIENCE: 'capstan-expert',
      CAPSTAN_EXPERT_AGENT_SERVICE_ACCOUNT: `${NAMESPACE}:capstan`,
      CAPSTAN_EXPERT_WORK_DIR: '/tmp',
      // The self-scan Job's settings (docs/security-posture.md, "Self-scan"): scanning on, mode auto.
      CAPSTAN_EXPERT_NAMESPACE: NAMESPACE,
      CAPSTAN_SELF_SCAN_IMAGE: 'docker.io/aquasec/trivy:0.74.0',
      CAPSTAN_SELF_SCAN_CACHE_CLAIM: 'capstan-agent-scan-cache',
      CAPSTAN_SELF_SCAN_RESOURCES: JSON.stringify({ limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '250m', memory: '256Mi' } }),
      CAPSTAN_SELF_SCAN_OFFLINE: 'false',
      CAPSTAN_SELF_SCAN_TIMEOUT_SECS: '1800',
    });
    const pvc = get(objects, 'PersistentVolumeClaim', 'capstan-agent-scan-cache', NAMESPACE) as KubeObject & { spec: { resources: { requests: { storage: string } } } };
    assert.equal(pvc.spec.resources.requests.storage, '2Gi', 'the scanner cache, security.scanning.selfScan.cache.size');
    // The chart's operator mode hard-disables self-scan: no settings, no cache.
    const operator = await render({ ...ON, security: { scanning: { mode: 'operator' } } });
    assert.deepEqual(Object.keys(envOf(container(expertOf(operator), 'expert'))).filter((n) => /SELF_SCAN|EXPERT_NAMESPACE/.test(n)), []);
    assert.equal(find(operator, 'PersistentVolumeClaim', 'capstan-agent-scan-cache', NAMESPACE), undefined);
    const noCache = await render({ ...ON, security: { scanning: { selfScan: { cache: { enabled: false } } } } });
    assert.equal(envOf(container(expertOf(noCache), 'expert')).CAPSTAN_SELF_SCAN_CACHE_CLAIM, undefined);
    assert.equal(find(noCache, 'PersistentVolumeClaim', 'capstan-agent-scan-cache', NAMESPACE), undefined);
    assert.equal(get(objects, 'ServiceAccount', 'capstan', NAMESPACE).metadata.name, agentOf(objects).serviceAccountName, 'the caller it serves is the agent\'s account');
    assert.deepEqual(expert.ports, [{ name: 'http', containerPort: 7690, protocol: 'TCP' }]);
    for (const probe of [expert.readinessProbe, expert.livenessProbe]) assert.deepEqual(probe?.httpGet, { path: '/healthz', port: 'http' });
    assert.deepEqual(expert.resources, { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '256Mi' } });

    const service = get(objects, 'Service', EXPERT, NAMESPACE) as KubeObject & { spec: { type: string; selector: Record<string, string>; ports: { port: number; targetPort: string | number; protocol: string }[] } };
    assert.equal(service.spec.type, 'ClusterIP');
    assert.deepEqual(service.spec.ports.map((p) => [p.port, p.targetPort, p.protocol]), [[7690, 'http', 'TCP']]);
    const podLabels = (name: string) => workload(objects, name).spec.template.metadata.labels;
    assert.ok(selects({ matchLabels: service.spec.selector }, podLabels(EXPERT)), 'the Service selects the expert pod');
    for (const other of ['capstan-agent', 'capstan-ui']) assert.ok(!selects({ matchLabels: service.spec.selector }, podLabels(other)), `and not ${other}`);
    assert.deepEqual(deployment.spec.selector.matchLabels, service.spec.selector);

    const env = envOf(agent);
    assert.equal(env.CAPSTAN_EXPERT_URL, `http://${EXPERT}.${NAMESPACE}.svc:7690`);
    assert.equal(env.CAPSTAN_EXPERT_TOKEN_FILE, `${TOKEN_DIR}/token`);
  });

  it('runs capstan-expert at image.tag, then appVersion, unless expertMode.image or expertMode.tag says otherwise; never the agent\'s digest', async () => {
    const version = await appVersion();
    const image = async (expertMode: Values, values: Values = {}) => container(expertOf(await render({ ...values, expertMode: { enabled: true, ...expertMode } })), 'expert').image;
    assert.equal(await image({}), `capstan-expert:${version}`);
    assert.equal(await image({}, { image: { tag: '1.2.3' } }), 'capstan-expert:1.2.3');
    assert.equal(await image({ tag: '2.0.0' }, { image: { tag: '1.2.3' } }), 'capstan-expert:2.0.0');
    // image.digest pins the agent's image; the expert image has a digest of its own.
    const digest = `sha256:${'b'.repeat(64)}`;
    const pinned = await render({ image: { digest }, expertMode: { enabled: true } });
    assert.equal(container(agentOf(pinned), 'agent').image, `capstan-agent@${digest}`);
    assert.equal(container(expertOf(pinned), 'expert').image, `capstan-expert:${version}`);
    assert.equal(await image({ image: 'registry.example.com:5000/capstan-expert' }), `registry.example.com:5000/capstan-expert:${version}`);
    assert.equal(await image({ image: 'registry.example.com/capstan-expert', tag: '3.1.0' }), 'registry.example.com/capstan-expert:3.1.0');
    const limits = container(expertOf(await render({ expertMode: { enabled: true, resources: { limits: { cpu: '1', memory: '512Mi' } } } })), 'expert').resources;
    assert.deepEqual(limits, { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '512Mi' } });
  });

  it('binds cluster-admin to capstan-expert alone: never the agent\'s account, and no other grant changes', async () => {
    const variants: Values[] = [{}, { rbac: { allowWrites: true } }, { terminal: { enabled: true } }, { rbac: { clusterWide: false, allowWrites: true }, tenantNamespaces: TENANTS, terminal: { enabled: true } }];
    for (const variant of variants) {
      const off = await render(variant);
      const objects = await render({ ...variant, ...ON });
      const bindings = objects.filter((o): o is Binding => o.kind === 'ClusterRoleBinding' || o.kind === 'RoleBinding');
      const toClusterAdmin = bindings.filter((b) => b.roleRef.name === 'cluster-admin');
      assert.deepEqual(toClusterAdmin.map((b) => ({ kind: b.kind, name: b.metadata.name, roleRef: b.roleRef.kind, subjects: b.subjects })), [{ kind: 'ClusterRoleBinding', name: 'capstan-expert-cluster-admin', roleRef: 'ClusterRole', subjects: [{ kind: 'ServiceAccount', name: EXPERT_SA, namespace: NAMESPACE }] }], JSON.stringify(variant));
      // capstan-expert is named by that binding alone, and the agent's account by none of the built-in roles.
      assert.deepEqual(bindings.filter((b) => (b.subjects ?? []).some((s) => s.name === EXPERT_SA)).map((b) => b.metadata.name), ['capstan-expert-cluster-admin']);
      for (const b of bindings) {
        if ((b.subjects ?? []).some((s) => s.kind !== 'ServiceAccount' || s.name !== EXPERT_SA)) {
          assert.ok(!['cluster-admin', 'admin', 'edit'].includes(b.roleRef.name), `${b.kind}/${b.metadata.name} gives ${b.roleRef.name} to another subject`);
        }
      }
      // Expert mode adds no Role or ClusterRole rule: the agent's grants are what they were.
      assert.deepEqual(grants(objects).map((g) => `${g.role} ${g.namespace} ${key(g)} ${(g.resourceNames ?? []).join(',')}`).sort(), grants(off).map((g) => `${g.role} ${g.namespace} ${key(g)} ${(g.resourceNames ?? []).join(',')}`).sort());
      // Nor may the agent mint capstan-expert's tokens, bind, escalate or impersonate.
      assert.deepEqual(grants(objects).filter((g) => g.resource === 'serviceaccounts/token' && !(g.resourceNames !== undefined && g.resourceNames.every((n) => n === 'capstan-terminal' || n === 'capstan-terminal-admin'))).map(key), []);
      assert.deepEqual(grants(objects).filter((g) => ['bind', 'escalate', 'impersonate', '*'].includes(g.verb)).map(key), []);
      // Only the expert pod runs as capstan-expert.
      const runAs = objects.filter((o): o is Workload => o.kind === 'Deployment').map((d) => `${d.metadata.name}=${d.spec.template.spec.serviceAccountName ?? 'default'}`).sort();
      assert.deepEqual(runAs.filter((r) => r.endsWith(`=${EXPERT_SA}`)), [`${EXPERT}=${EXPERT_SA}`]);
      assert.ok(runAs.includes('capstan-agent=capstan'));
    }
  });

  it('renders the expert container\'s hardening facts: non-root fixed uid, read-only root, no escalation, no capability, seccomp, /tmp in memory', async () => {
    const pod = expertOf(await render(ON));
    assert.equal(pod.securityContext.runAsNonRoot, true);
    assert.ok(typeof pod.securityContext.runAsUser === 'number' && pod.securityContext.runAsUser > 0, 'a fixed non-root uid');
    assert.equal(pod.securityContext.runAsUser, agentOf(await render(ON)).securityContext.runAsUser, 'the images\' user, as the agent');
    assert.equal(pod.securityContext.seccompProfile?.type, 'RuntimeDefault');
    assert.ok(!pod.hostNetwork && !pod.hostPID && !pod.hostIPC, 'no host namespace');
    assert.equal(pod.initContainers, undefined);
    const expert = container(pod, 'expert');
    assert.deepEqual(expert.securityContext, { allowPrivilegeEscalation: false, privileged: false, readOnlyRootFilesystem: true, runAsNonRoot: true, capabilities: { drop: ['ALL'] } });
    assert.deepEqual(expert.volumeMounts, [{ name: 'tmp', mountPath: '/tmp' }], 'only /tmp: the ephemeral kubeconfigs and helm homes');
    assert.deepEqual(pod.volumes, [{ name: 'tmp', emptyDir: { medium: 'Memory', sizeLimit: '64Mi' } }]);
    assert.deepEqual(expert.envFrom ?? [], [], 'none of the agent\'s ConfigMap or Secrets');
    assert.deepEqual((expert.env ?? []).filter((e) => e.valueFrom !== undefined), [], 'no value from a Secret');
  });

  it('mounts the expert token (audience capstan-expert, an hour) in the agent container only, and leaves the agent pod\'s own token as it was', async () => {
    for (const terminal of [false, true]) {
      const before = agentOf(await render({ terminal: { enabled: terminal } }));
      const pod = agentOf(await render({ terminal: { enabled: terminal }, ...ON }));
      assert.equal(pod.automountServiceAccountToken, before.automountServiceAccountToken, `terminal.enabled=${terminal}: automountServiceAccountToken unchanged`);
      assert.equal(pod.serviceAccountName, 'capstan');
      const expertVolumes = (pod.volumes ?? []).filter((v) => v.projected?.sources.some((s) => s.serviceAccountToken?.audience !== undefined));
      assert.deepEqual(expertVolumes, [{ name: 'expert-token', projected: { sources: [{ serviceAccountToken: { audience: 'capstan-expert', expirationSeconds: 3600, path: 'token' } }] } }]);
      const mounting = [...pod.containers, ...(pod.initContainers ?? [])].filter((c) => (c.volumeMounts ?? []).some((m) => m.name === 'expert-token'));
      assert.deepEqual(mounting.map((c) => c.name), ['agent'], `terminal.enabled=${terminal}: the agent container alone`);
      assert.deepEqual(container(pod, 'agent').volumeMounts?.find((m) => m.name === 'expert-token'), { name: 'expert-token', mountPath: TOKEN_DIR, readOnly: true });
      for (const c of pod.containers.filter((c) => c.name !== 'agent')) {
        assert.deepEqual(c, before.containers.find((b) => b.name === c.name), `${c.name} is unchanged`);
      }
      // The terminal sidecar's default token stays off: no container but the agent holds any token.
      if (terminal) assert.equal(pod.automountServiceAccountToken, false);
    }
  });

  it('the NetworkPolicy admits only the agent pods, on TCP 7690', async () => {
    const objects = await render(ON);
    const policy = get(objects, 'NetworkPolicy', EXPERT, NAMESPACE) as NetworkPolicy;
    const labels = (name: string) => workload(objects, name).spec.template.metadata.labels;
    assert.ok(selects(policy.spec.podSelector, labels(EXPERT)), 'it applies to the expert pod');
    for (const other of ['capstan-agent', 'capstan-ui']) assert.ok(!selects(policy.spec.podSelector, labels(other)), `and not to ${other}`);
    assert.deepEqual(policy.spec.policyTypes, ['Ingress']);
    const rules = policy.spec.ingress ?? [];
    assert.equal(rules.length, 1, 'one rule');
    const peers = rules[0]?.from ?? [];
    assert.equal(peers.length, 1, 'one peer');
    const peer = peers[0];
    assert.deepEqual(Object.keys(peer ?? {}), ['podSelector'], 'pods of this namespace only: no namespaceSelector, no ipBlock');
    assert.ok(selects(peer?.podSelector, labels('capstan-agent')), 'the agent pods');
    for (const other of [EXPERT, 'capstan-ui']) assert.ok(!selects(peer?.podSelector, labels(other)), `not ${other}`);
    assert.deepEqual(rules[0]?.ports, [{ protocol: 'TCP', port: 7690 }]);
  });

  it('the schema refuses bad expertMode values, naming the field', async () => {
    const BAD: [Values, string][] = [
      [{ expertMode: { enabled: true, replicas: 2 } }, "'replicas' not allowed"],
      [{ expertMode: { enabled: 'yes' } }, "at '/expertMode/enabled'"],
      [{ expertMode: { enabled: true, image: 'capstan agent' } }, "at '/expertMode/image'"],
      [{ expertMode: { enabled: true, image: '' } }, "at '/expertMode/image'"],
      [{ expertMode: { enabled: true, tag: 'v1 beta' } }, "at '/expertMode/tag'"],
      [{ expertMode: { enabled: true, resources: { limits: { cpu: 'fast' } } } }, "at '/expertMode/resources/limits/cpu'"],
      [{ expertMode: { enabled: true, resources: { limit: { cpu: '1' } } } }, "'limit' not allowed"],
    ];
    for (const [values, field] of BAD) {
      const error = await refusal(values);
      assert.match(error, /values don't meet the specifications of the schema/);
      assert.ok(error.includes(field), `names ${field}: ${error}`);
    }
  });

  describe('against the API server', () => {
    // Its own namespace, at the restricted Pod Security level; deleted at the end, with the
    // guard (cluster-scoped). Nothing cluster-scoped but the guard is created for real.
    const NS = 'capstan-expert-check';
    const AGENT = `system:serviceaccount:${NS}:capstan`;
    let objects: KubeObject[] = [];
    const inNs = (o: KubeObject) => o.metadata.namespace === NS;
    before(async () => {
      // Whatever an interrupted run left behind.
      await k(['delete', 'validatingadmissionpolicybinding,validatingadmissionpolicy', 'capstan-expert-guard', '--ignore-not-found']);
      await k(['delete', 'namespace', NS, '--ignore-not-found', '--wait=true', '--timeout=100s']);
      await k(['create', 'namespace', NS]);
      await k(['label', 'namespace', NS, 'pod-security.kubernetes.io/enforce=restricted', 'pod-security.kubernetes.io/warn=restricted']);
      // Namespaced RBAC with writes, this namespace its own tenant: every grant the agent needs
      // here is a Role in it (created for real below, nothing cluster-scoped), and the guard has
      // something to refuse.
      objects = await render({ ...ON, rbac: { allowWrites: true, clusterWide: false }, tenantNamespaces: [NS] }, [], { namespace: NS });
    });
    after(async () => {
      await k(['delete', 'validatingadmissionpolicybinding', 'capstan-expert-guard', '--ignore-not-found']);
      await k(['delete', 'validatingadmissionpolicy', 'capstan-expert-guard', '--ignore-not-found']);
      await k(['delete', 'namespace', NS, '--ignore-not-found', '--wait=false']);
    });

    it('accepts the rendered set (dry-run=server), and the expert pod meets the restricted level with no warning', async () => {
      const warnings = await dryRunApply(objects);
      assert.doesNotMatch(warnings, /Warning:/, warnings);
      // A pod's ServiceAccount must exist for it to be admitted: create the two for real.
      const accounts = objects.filter((o) => o.kind === 'ServiceAccount' && inNs(o));
      const created = await kubectlWithWarnings(['apply', '-f', '-'], toManifest(accounts));
      assert.ok(created.ok, created.stderr);
      const deployment = get(objects, 'Deployment', EXPERT, NS) as Workload;
      const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'expert-check', namespace: NS, labels: deployment.spec.template.metadata.labels }, spec: deployment.spec.template.spec };
      const applied = await kubectlWithWarnings(['apply', '--dry-run=server', '-f', '-'], JSON.stringify(pod));
      assert.ok(applied.ok, applied.stderr);
      assert.doesNotMatch(applied.stderr, /Warning:/, applied.stderr);
    });

    it('the guard refuses the agent\'s account every other way to capstan-expert\'s credentials, and nothing else', async () => {
      // For real: the accounts, the agent's Roles in this namespace, the guard, and the two
      // Deployments scaled to nothing (so there is something to patch).
      const zero = (o: KubeObject) => (o.kind === 'Deployment' ? { ...o, spec: { ...(o as Workload).spec, replicas: 0 } } : o);
      const real = objects.filter((o) => (['ServiceAccount', 'Role', 'RoleBinding', 'Deployment'].includes(o.kind) && inNs(o)) || o.kind.startsWith('ValidatingAdmissionPolicy')).map(zero);
      for (const role of ['capstan-reader', 'capstan-writer', 'capstan-own-namespace']) assert.ok(real.some((o) => o.kind === 'Role' && o.metadata.name === role), `Role ${role} here`);
      const created = await kubectlWithWarnings(['apply', '-f', '-'], toManifest(real));
      assert.ok(created.ok, created.stderr);

      const asAgent = (args: string[], input?: string) => kubectlWithWarnings(['--as', AGENT, '-n', NS, ...args], input ?? '');
      const dryCreate = (object: object) => asAgent(['create', '--dry-run=server', '-f', '-'], JSON.stringify(object));
      const tokenSecret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'expert-token', namespace: NS, annotations: { 'kubernetes.io/service-account.name': EXPERT_SA } }, type: 'kubernetes.io/service-account-token' };
      // The binding takes effect a moment after it is created.
      let refused = { ok: true, stdout: '', stderr: '' };
      await waitFor('the guard in force', async () => {
        refused = await dryCreate(tokenSecret);
        return !refused.ok;
      }, 30_000, 500);
      assert.match(refused.stderr, /may not create a service-account token Secret/);
      const plain = await dryCreate({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'plain', namespace: NS }, stringData: { a: 'b' } });
      assert.ok(plain.ok, `an ordinary Secret is the agent's to write: ${plain.stderr}`);

      const pod = (serviceAccountName: string, name = 'probe') => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: NS }, spec: { ...(get(objects, 'Deployment', EXPERT, NS) as Workload).spec.template.spec, serviceAccountName } });
      const asExpert = await dryCreate(pod(EXPERT_SA));
      assert.equal(asExpert.ok, false);
      assert.match(asExpert.stderr, /may not run a pod as capstan-expert/);
      const asItself = await dryCreate(pod('capstan'));
      assert.ok(asItself.ok, `a pod as its own account is allowed (rbac.allowWrites): ${asItself.stderr}`);

      const patch = (name: string, body: object) => asAgent(['patch', 'deployment', name, '--dry-run=server', '--type=merge', '-p', JSON.stringify(body)]);
      const annotate = { spec: { template: { metadata: { annotations: { 'capstan.io/restartedAt': '2024-01-01T00:00:00Z' } } } } };
      const expertRestart = await patch(EXPERT, annotate);
      assert.equal(expertRestart.ok, false);
      assert.match(expertRestart.stderr, /expert mode: Capstan's agent may not/);
      // Even one that would no longer run as capstan-expert (the Deployment is refused by name).
      const expertRepoint = await patch(EXPERT, { spec: { template: { spec: { serviceAccountName: 'capstan' } } } });
      assert.equal(expertRepoint.ok, false);
      assert.match(expertRepoint.stderr, /may not change the expert pod or its Deployment/);
      const hijack = await patch('capstan-agent', { spec: { template: { spec: { serviceAccountName: EXPERT_SA } } } });
      assert.equal(hijack.ok, false);
      assert.match(hijack.stderr, /may not run a pod as capstan-expert/);
      const restart = await patch('capstan-agent', annotate);
      assert.ok(restart.ok, `a restart of another Deployment is allowed: ${restart.stderr}`);

      // An exec is a CONNECT, admitted before the pod is even looked up (kubectl exec would
      // look it up first): the expert pod's name is refused, another's is merely not found.
      const exec = (pod: string) => asAgent(['create', '--raw', `/api/v1/namespaces/${NS}/pods/${pod}/exec?command=true&stdout=true`, '-f', '-'], '{}');
      const intoExpert = await exec(`${EXPERT}-5d4f8b7c9-x2x2x`);
      assert.equal(intoExpert.ok, false);
      assert.match(intoExpert.stderr, /may not exec, attach or port-forward into the expert pod/);
      const intoOther = await exec('someone-else');
      assert.equal(intoOther.ok, false);
      assert.doesNotMatch(intoOther.stderr, /expert mode/);
      assert.match(intoOther.stderr, /not found/i);
    });
  });
});
