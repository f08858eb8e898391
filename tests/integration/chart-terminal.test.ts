// The terminal sidecars in the rendered chart (tests/support/chart-render.ts; docs/terminal.md,
// "The chart"): the viewer sidecar's hardening facts and its read-only account, and with
// rbac.allowWrites the admin sidecar (another user, port, key, home and /tmp, none of them
// mounted into the viewer's) and its writer account, bound exactly where the agent's writes
// are. Split from chart-rbac.test.ts; chart.test.ts has the API server accept these sets and
// admit the pod under the restricted Pod Security level.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { find, get, grants, key, NAMESPACE, render, SPEC_WRITES, TENANTS, type Deployment, type KubeObject, type Values } from '../support/chart-render.ts';

describe('the terminal sidecar (terminal.enabled; docs/terminal.md)', () => {
  interface Container {
    name: string;
    image?: string;
    command?: string[];
    env?: { name: string; value?: string; valueFrom?: object }[];
    envFrom?: object[];
    securityContext?: { runAsUser?: number; runAsGroup?: number; readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean; capabilities?: { drop?: string[] } };
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

  it('runs capstan-terminal at terminal.image.tag, then image.tag, then appVersion, or at its own digest; never the agent\'s digest', async () => {
    const version = ((await render({})).find((o) => o.kind === 'Deployment')?.metadata.labels ?? {})['app.kubernetes.io/version'];
    assert.ok(version);
    const image = async (terminalImage: Values, values: Values = {}) => podOf(await render({ ...values, terminal: { enabled: true, image: terminalImage } })).containers.find((c) => c.name === 'terminal')?.image;
    assert.equal(await image({}), `capstan-terminal:${version}`, 'the image make images builds (bash, kubectl, helm), by default');
    assert.equal(await image({}, { image: { tag: '1.2.3' } }), 'capstan-terminal:1.2.3');
    assert.equal(await image({ tag: '2.0.0' }, { image: { tag: '1.2.3' } }), 'capstan-terminal:2.0.0');
    const digest = `sha256:${'c'.repeat(64)}`;
    assert.equal(await image({}, { image: { digest } }), `capstan-terminal:${version}`, 'image.digest pins the agent\'s image only');
    assert.equal(await image({ repository: 'registry.example.com/capstan-terminal', digest }), `registry.example.com/capstan-terminal@${digest}`);
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

  // Sessions separated by privilege: admins' sessions with rbac.allowWrites run in their own sidecar.
  const BOTH: Values = { terminal: { enabled: true }, rbac: { allowWrites: true } };

  it('renders the admin sidecar only with terminal.enabled and rbac.allowWrites', async () => {
    for (const values of [{}, { terminal: { enabled: true } }, { rbac: { allowWrites: true } }, BOTH]) {
      const objects = await render(values);
      const both = values === BOTH;
      assert.equal(podOf(objects).containers.some((c) => c.name === 'terminal-admin'), both, JSON.stringify(values));
      assert.equal(find(objects, 'ServiceAccount', 'capstan-terminal-admin', NAMESPACE) !== undefined, both);
      assert.equal(find(objects, 'PersistentVolumeClaim', 'capstan-agent-terminal-admin-home', NAMESPACE) !== undefined, both);
      const agentEnv = (podOf(objects).containers.find((c) => c.name === 'agent')?.env ?? []).map((e) => e.name);
      assert.equal(agentEnv.includes('CAPSTAN_TERMINAL_ADMIN_URL'), both);
    }
  });

  it('the admin sidecar: the same command and hardening, another user, port, key, home and /tmp; the viewer sidecar mounts nothing of it', async () => {
    const pod = podOf(await render(BOTH));
    const agent = pod.containers.find((c) => c.name === 'agent');
    const viewer = pod.containers.find((c) => c.name === 'terminal');
    const admin = pod.containers.find((c) => c.name === 'terminal-admin');
    assert.ok(agent && viewer && admin);
    assert.deepEqual(admin.command, viewer.command);
    assert.equal(admin.image, viewer.image);
    const { runAsUser: adminUser, runAsGroup: adminGroup, ...adminHardening } = admin.securityContext ?? {};
    const { runAsUser: viewerUser, runAsGroup: viewerGroup, ...viewerHardening } = viewer.securityContext ?? {};
    assert.deepEqual(adminHardening, viewerHardening, 'read-only root, no escalation, every capability dropped, as the viewer\'s');
    assert.equal(viewerUser, 65533, 'the viewer sidecar keeps its user');
    assert.ok(typeof adminUser === 'number' && adminUser > 0);
    assert.notEqual(adminUser, viewerUser, 'the viewer\'s shells cannot read the admin\'s files');
    assert.notEqual(adminUser, pod.securityContext.runAsUser, 'nor is it the agent\'s user');
    assert.deepEqual([adminGroup, viewerGroup], [adminUser, viewerUser], 'each its own group');
    const mounts = (c: Container) => (c.volumeMounts ?? []).map((m) => m.name).sort();
    assert.deepEqual(mounts(admin), ['terminal-admin-home', 'terminal-admin-key', 'terminal-admin-tmp'], 'only its own home, key and /tmp');
    assert.deepEqual(mounts(viewer), ['terminal-home', 'terminal-key', 'terminal-tmp'], 'the viewer sidecar mounts nothing of the admin\'s');
    assert.ok(mounts(agent).includes('terminal-key') && mounts(agent).includes('terminal-admin-key'), 'the agent writes both keys');
    assert.equal((admin.volumeMounts ?? []).find((m) => m.name === 'terminal-admin-key')?.readOnly, true);
    const mountingAdminKey = pod.containers.filter((c) => mounts(c).includes('terminal-admin-key')).map((c) => c.name).sort();
    assert.deepEqual(mountingAdminKey, ['agent', 'terminal-admin']);
    const volume = (name: string) => pod.volumes.find((v) => v.name === name) as { emptyDir?: { medium?: string }; persistentVolumeClaim?: { claimName: string } } | undefined;
    assert.equal(volume('terminal-admin-key')?.emptyDir?.medium, 'Memory', 'the admin key: memory, written by the agent at each start');
    assert.equal(volume('terminal-admin-home')?.persistentVolumeClaim?.claimName, 'capstan-agent-terminal-admin-home', 'a volume of its own, not part of the one `terminal` mounts');
    assert.ok(volume('terminal-admin-tmp')?.emptyDir);
    assert.deepEqual(admin.envFrom ?? [], []);
    assert.deepEqual((admin.env ?? []).filter((e) => e.valueFrom !== undefined), []);
    const env = Object.fromEntries((admin.env ?? []).map((e) => [e.name, e.value]));
    const viewerEnv = Object.fromEntries((viewer.env ?? []).map((e) => [e.name, e.value]));
    assert.equal(env.CAPSTAN_TERMINAL_LISTEN, '127.0.0.1:7683');
    assert.equal(viewerEnv.CAPSTAN_TERMINAL_LISTEN, '127.0.0.1:7682');
    assert.equal(env.CAPSTAN_TERMINAL_KEY_FILE, '/run/capstan-terminal-admin/key');
    const agentEnv = Object.fromEntries((agent.env ?? []).map((e) => [e.name, e.value]));
    assert.deepEqual([agentEnv.CAPSTAN_TERMINAL_ADMIN_URL, agentEnv.CAPSTAN_TERMINAL_ADMIN_KEY_FILE, agentEnv.CAPSTAN_TERMINAL_ADMIN_SERVICE_ACCOUNT], ['ws://127.0.0.1:7683', env.CAPSTAN_TERMINAL_KEY_FILE, `${NAMESPACE}/capstan-terminal-admin`]);
    assert.equal(agentEnv.CAPSTAN_TERMINAL_KEY_MAKE, 'true', 'the agent makes both keys at each start');
    assert.equal(agentEnv.CAPSTAN_TERMINAL_SERVICE_ACCOUNT, `${NAMESPACE}/capstan-terminal`);
  });

  it('the writer account: automount off, view as the viewer\'s, and exactly the agent\'s write verbs, bound where the agent\'s are; the agent may mint its tokens', async () => {
    interface Binding extends KubeObject { roleRef: { kind: string; name: string }; subjects?: { kind: string; name: string; namespace?: string }[] }
    /** What one ServiceAccount of the release may do: every rule of every role bound to it, where it applies. */
    const grantsOf = (objects: KubeObject[], account: string): string[] => {
      const bound = objects.filter((o): o is Binding => (o.kind === 'ClusterRoleBinding' || o.kind === 'RoleBinding') && ((o as Binding).subjects ?? []).some((s) => s.kind === 'ServiceAccount' && s.name === account && s.namespace === NAMESPACE));
      const all = grants(objects);
      return bound
        .flatMap((b) => {
          const where = b.kind === 'RoleBinding' ? (b.metadata.namespace ?? null) : null;
          if (b.roleRef.name === 'view') return [`${where ?? '*'} view`];
          return all.filter((g) => g.role === `${b.roleRef.kind}/${b.roleRef.name}` && (b.roleRef.kind === 'ClusterRole' || g.namespace === where)).map((g) => `${where ?? g.namespace ?? '*'} ${key(g)}`);
        })
        .sort();
    };
    for (const values of [BOTH, { ...BOTH, tenantNamespaces: TENANTS }, { ...BOTH, tenantNamespaces: TENANTS, rbac: { allowWrites: true, clusterWide: false } }]) {
      const objects = await render(values);
      const what = JSON.stringify(values);
      const account = get(objects, 'ServiceAccount', 'capstan-terminal-admin', NAMESPACE) as KubeObject & { automountServiceAccountToken?: boolean };
      assert.equal(account.automountServiceAccountToken, false);
      const admin = grantsOf(objects, 'capstan-terminal-admin');
      const viewer = grantsOf(objects, 'capstan-terminal');
      const agentWrites = grantsOf(objects, 'capstan').filter((g) => !g.endsWith(' view') && SPEC_WRITES.includes(g.split(' ')[1] ?? '') && !g.startsWith(`${NAMESPACE} /secrets:`));
      assert.ok(agentWrites.length > 0, what);
      assert.deepEqual(admin.filter((g) => !g.endsWith(' view')), agentWrites, `${what}: the agent's write verbs, where the agent has them`);
      assert.deepEqual(admin.filter((g) => g.endsWith(' view')), viewer, `${what}: reads as the viewer's account`);
      assert.ok(viewer.every((g) => g.endsWith(' view')), `${what}: the viewer's account still only reads`);
      const minting = grants(objects).filter((g) => g.resource === 'serviceaccounts/token');
      assert.deepEqual(minting.map((g) => `${g.role} ${g.namespace} ${g.verb} ${(g.resourceNames ?? []).join(',')}`), [`Role/capstan-terminal-tokens ${NAMESPACE} create capstan-terminal,capstan-terminal-admin`]);
    }
  });
});
