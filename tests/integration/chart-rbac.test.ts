// The chart's RBAC, rendered (tests/support/chart-render.ts): the reads and writes the spec
// allows and nothing more, per mode, and the terminal sidecar's hardening facts and its
// account. Split from chart.test.ts, which proves the rendered sets against the API server.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CLUSTER_SCOPED, get, grants, isWrite, key, NAMESPACE, OWN_SECRETS, render, SPEC_WRITES, TENANTS, type Deployment, type KubeObject, type WithData } from '../support/chart-render.ts';

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

describe('the terminal sidecar (terminal.enabled; docs/terminal.md)', () => {
  interface Container {
    name: string;
    command?: string[];
    env?: { name: string; value?: string; valueFrom?: object }[];
    envFrom?: object[];
    securityContext?: { runAsUser?: number; readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean; capabilities?: { drop?: string[] } };
    volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
  }
  const podOf = (objects: KubeObject[]) => (get(objects, 'Deployment', 'capstan-agent', NAMESPACE) as Deployment).spec.template.spec as unknown as { automountServiceAccountToken?: boolean; shareProcessNamespace?: boolean; securityContext: { runAsUser?: number }; containers: Container[]; volumes: { name: string; projected?: { sources: { serviceAccountToken?: object }[] } }[] };

  it('off by default: one container, the token mounted as before', async () => {
    const pod = podOf(await render({}));
    assert.deepEqual(pod.containers.map((c) => c.name), ['agent']);
    assert.equal(pod.automountServiceAccountToken, true);
  });

  it('renders the hardening facts: its own user, no token, no agent data, no Secret, loopback only', async () => {
    const objects = await render({ terminal: { enabled: true, idleTimeoutSecs: 900 } });
    const pod = podOf(objects);
    const agent = pod.containers.find((c) => c.name === 'agent');
    const terminal = pod.containers.find((c) => c.name === 'terminal');
    assert.ok(agent && terminal);
    assert.equal(pod.automountServiceAccountToken, false, 'no token mounted into every container');
    assert.notEqual(pod.shareProcessNamespace, true, 'each container its own process namespace');
    const tokenVolumes = pod.volumes.filter((v) => v.projected?.sources.some((s) => s.serviceAccountToken !== undefined)).map((v) => v.name);
    assert.deepEqual(tokenVolumes, ['agent-token']);
    assert.ok((agent.volumeMounts ?? []).some((m) => m.name === 'agent-token' && m.mountPath === '/var/run/secrets/kubernetes.io/serviceaccount'), 'the agent keeps its token');
    assert.deepEqual((terminal.volumeMounts ?? []).map((m) => m.name).sort(), ['terminal-home', 'terminal-key', 'terminal-tmp'], 'only its home, the key and /tmp: no agent data, no token');
    assert.equal((terminal.volumeMounts ?? []).find((m) => m.name === 'terminal-key')?.readOnly, true);
    assert.deepEqual(terminal.envFrom ?? [], [], 'none of the agent\'s ConfigMap or Secret');
    assert.deepEqual((terminal.env ?? []).filter((e) => e.valueFrom !== undefined), [], 'no value from a Secret');
    const env = Object.fromEntries((terminal.env ?? []).map((e) => [e.name, e.value]));
    assert.equal(env.CAPSTAN_TERMINAL_LISTEN, '127.0.0.1:7682');
    assert.equal(env.CAPSTAN_TERMINAL_IDLE_TIMEOUT_SECS, '900');
    assert.deepEqual(terminal.command, ['/usr/local/bin/node', '/app/bin/capstan.js', 'terminal']);
    assert.notEqual(terminal.securityContext?.runAsUser, pod.securityContext.runAsUser, 'a user other than the agent\'s');
    assert.equal(terminal.securityContext?.readOnlyRootFilesystem, true);
    assert.equal(terminal.securityContext.allowPrivilegeEscalation, false);
    assert.deepEqual(terminal.securityContext.capabilities?.drop, ['ALL']);
    const agentEnv = Object.fromEntries((agent.env ?? []).map((e) => [e.name, e.value]));
    assert.equal(agentEnv.CAPSTAN_TERMINAL_URL, 'ws://127.0.0.1:7682');
    assert.equal(agentEnv.CAPSTAN_TERMINAL_SERVICE_ACCOUNT, `${NAMESPACE}/capstan-terminal`);
    assert.equal((await render({ terminal: { enabled: true, readOnlyRootFilesystem: false } })).length > 0, true);
  });

  it('the agent may mint tokens for the terminal account only; the account reads, never writes', async () => {
    const all = grants(await render({ terminal: { enabled: true } }));
    const minting = all.filter((g) => g.resource === 'serviceaccounts/token');
    assert.deepEqual(minting.map((g) => `${g.role} ${g.namespace} ${g.verb} ${(g.resourceNames ?? []).join(',')}`), [`Role/capstan-terminal-tokens ${NAMESPACE} create capstan-terminal`]);
    const objects = await render({ terminal: { enabled: true } });
    const binding = get(objects, 'ClusterRoleBinding', 'capstan-terminal-view') as KubeObject & { roleRef: { name: string }; subjects: { name: string }[] };
    assert.equal(binding.roleRef.name, 'view');
    assert.deepEqual(binding.subjects.map((s) => s.name), ['capstan-terminal']);
    const namespaced = await render({ terminal: { enabled: true }, tenantNamespaces: TENANTS, rbac: { clusterWide: false } });
    assert.equal(namespaced.filter((o) => o.kind === 'ClusterRoleBinding' && o.metadata.name === 'capstan-terminal-view').length, 0);
    assert.deepEqual(namespaced.filter((o) => o.kind === 'RoleBinding' && o.metadata.name === 'capstan-terminal-view').map((o) => o.metadata.namespace).sort(), [...TENANTS].sort());
  });
});
