// The diagnosis scenario harness: applies every scenario to one real control plane at once,
// keeps their unmanaged nodes alive (or lets them die), writes the statuses no simulator
// produces, polls the agent's /diagnosis until each scenario's expected answer appears or its
// deadline passes, scores it, and cleans up. Format and rules: tests/diagnosis/README.md.
import { isNodeKind, nodeId } from '../../domain/cluster/node-id.ts';
import type { Diagnosis } from '../../schema/diagnosis.ts';
import { kubectl } from '../../dev/localcluster/kubectl.ts';
import { createKube, type ApiObject, type Kube } from './kube.ts';
import { nameMatches, resolveTimes, rfc3339, SCENARIO_PREFIX, type Scenario, type StatusPatch, type UnmanagedNode } from './scenario.ts';
import { scenarioRoots, scoreAnswer, type Score } from './score.ts';
import { disagreements, type Surfaces } from './agreement.ts';

/** `null`: the whole cluster; otherwise `GET /diagnosis?namespace=`. */
export type Diagnose = (namespace: string | null) => Promise<Diagnosis>;

export interface HarnessOptions {
  kubeconfig: string;
  binDir: string;
  diagnose: Diagnose;
  log?: (line: string) => void;
  /** How often each scenario's answer is fetched (3 s). */
  pollIntervalMs?: number;
  /** How often heartbeating unmanaged nodes renew their Lease (5 s of its 80 s). */
  leaseRenewMs?: number;
  /**
   * Called once per scenario as it is done (diagnosed right, or its deadline passed) while its
   * objects are still applied, with the score of its last answer (null when none came): to
   * measure something else on the very state that was diagnosed (`npm run bench:copilot`).
   * A failure is logged, not the scenario's.
   */
  onDone?: (scenario: Scenario, score: Score | null) => Promise<void>;
  /** Reads `/incidents` and `/diagnosis` for a namespace: when given, each scenario ends with their agreement checked (agreement.ts). */
  surfaces?: (namespace: string) => Promise<Surfaces>;
}

export interface ScenarioResult {
  name: string;
  description: string;
  /** The expected root cause's code, or `history` for a notes-only scenario. */
  code: string;
  expected: string | null;
  /** How many effects the scenario expects (also when there is no answer to score). */
  effectsExpected: number;
  /** Null when no answer came (the route failed throughout). */
  score: Score | null;
  /** Seconds from the scenario's objects being applied to the first answer whose top root cause was right. */
  secondsToDiagnosis: number | null;
  deadlineSeconds: number;
  /** Setup or polling failed (the last error); the scenario then does not pass. */
  error: string | null;
  /** Where `/incidents` disagreed with `/diagnosis` at the end (agreement.ts); null when not checked. */
  incidentDisagreements: string[] | null;
}

/** Every node the harness creates carries these; the taint keeps other scenarios' pods off it. */
export const UNMANAGED_LABEL = 'diagnosis.capstan.dev/scenario';
export const UNMANAGED_TAINT = 'diagnosis.capstan.dev/unmanaged';
const FIELD_MANAGER = 'capstan-diagnosis';
/**
 * As long as the local cluster's own KWOK nodes' Leases (heartbeat factor 2, docs/local-cluster.md):
 * renewed every 5 s, a live node then stays fresh through a 75 s stall of a starved machine,
 * and a silent one goes stale as the controller's 80 s grace runs out.
 */
const LEASE_SECONDS = 80;

const SETUP_CONCURRENCY = 6;

/** Runs `task` over `items`, at most `size` at once. */
async function inPool<T>(items: readonly T[], size: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await task(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, worker));
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function unmanagedNodeManifest(scenario: string, node: UnmanagedNode): object {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: node.name,
      // Deliberately no kwok.x-k8s.io/node annotation: KWOK leaves this node alone.
      labels: { ...node.labels, 'kubernetes.io/hostname': node.name, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', [UNMANAGED_LABEL]: scenario },
    },
    spec: {
      unschedulable: node.unschedulable,
      taints: [{ key: UNMANAGED_TAINT, value: 'true', effect: 'NoSchedule' }, ...node.taints],
    },
  };
}

export function unmanagedNodeStatus(node: UnmanagedNode, now: string): object {
  const defaults = [
    { type: 'MemoryPressure', status: 'False', reason: 'KubeletHasSufficientMemory', message: 'kubelet has sufficient memory available' },
    { type: 'DiskPressure', status: 'False', reason: 'KubeletHasNoDiskPressure', message: 'kubelet has no disk pressure' },
    { type: 'PIDPressure', status: 'False', reason: 'KubeletHasSufficientPID', message: 'kubelet has sufficient PID available' },
    { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' },
  ];
  const conditions = [...defaults.filter((d) => !node.conditions.some((c) => c.type === d.type)), ...node.conditions].map((c) => ({
    ...c,
    lastHeartbeatTime: now,
    lastTransitionTime: now,
  }));
  const resources = { cpu: String(node.capacity.cpu), memory: String(node.capacity.memory), pods: String(node.capacity.pods) };
  return {
    capacity: resources,
    allocatable: resources,
    conditions,
    nodeInfo: { architecture: 'amd64', operatingSystem: 'linux', kubeletVersion: 'v1.34.4', containerRuntimeVersion: 'containerd://2.0.0', kernelVersion: '6.1.0', osImage: 'Capstan scenario node', kubeProxyVersion: '', bootID: '', machineID: '', systemUUID: '' },
  };
}

/** `renewTime` is a MicroTime. */
const microTime = (ms: number) => new Date(ms).toISOString().replace('Z', '000Z');

/**
 * The order a scenario's objects are applied in: its ResourceQuotas first, on their own, then
 * everything else once they count. ResourceQuota admission restricts only the resources in a
 * quota's `status.hard` (k8s.io/apiserver admission/plugin/resourcequota), which the quota
 * controller writes shortly after the quota is created; a pod created in that window is
 * admitted uncounted. Under load that window let a Job's pod in beside the pod that should have
 * filled the quota, so nothing was ever refused (quota-full-blocks-job, twice in fresh-clone CI).
 * An administrator's quota is in place long before the workloads it limits; so is ours.
 */
export function applyStages<T extends { kind: string }>(objects: readonly T[]): T[][] {
  const quotas = objects.filter((o) => o.kind === 'ResourceQuota');
  const rest = objects.filter((o) => o.kind !== 'ResourceQuota');
  return [quotas, rest].filter((stage) => stage.length > 0);
}

/** Whether a quota's status shows usage for every resource it limits: admission then counts against it. */
export function quotaCounting(status: unknown): boolean {
  if (typeof status !== 'object' || status === null) return false;
  const { hard, used } = status as { hard?: Record<string, unknown>; used?: Record<string, unknown> };
  const limited = Object.keys(hard ?? {});
  return limited.length > 0 && limited.every((resource) => used?.[resource] !== undefined);
}

/** True when every field of `patch` is in `actual` (arrays element by element, same length). */
export function holds(patch: unknown, actual: unknown): boolean {
  if (Array.isArray(patch)) return Array.isArray(actual) && actual.length === patch.length && patch.every((p, i) => holds(p, actual[i]));
  if (patch !== null && typeof patch === 'object') {
    if (actual === null || typeof actual !== 'object') return false;
    return Object.entries(patch).every(([k, val]) => holds(val, (actual as Record<string, unknown>)[k]));
  }
  return patch === actual;
}

class ScenarioRun {
  /** Object uids (per status patch) whose patch has held once; after that the cluster owns it. */
  private readonly held = new Map<StatusPatch, Set<string>>();
  private readonly deleted = new Set<string>();
  private readonly clusterScoped: { kind: string; name: string }[] = [];
  /** Nodes whose Lease exists: only those are renewed (the renewal timer starts before setup ends). */
  private readonly leased = new Set<string>();
  appliedAt = 0;
  done = false;
  lastScore: Score | null = null;
  /** Where `/incidents` and `/diagnosis` told different stories when the scenario ended (null: not checked). */
  incidentDisagreements: string[] | null = null;
  firstTop1: number | null = null;
  error: string | null = null;
  /** A resolved copy of every status patch, fixed at first use so `holds` compares like with like. */
  private readonly patches: { patch: StatusPatch; status: Record<string, unknown> }[] = [];

  /** Patch attempts per object that did not hold yet: a patch that never holds is re-applied forever, so say so. */
  private readonly attempts = new Map<string, number>();

  constructor(
    readonly scenario: Scenario,
    private readonly kube: Kube,
    private readonly k: { kubeconfig: string; binDir: string },
    private readonly log: (line: string) => void,
  ) {}

  get ns(): string {
    return this.scenario.spec.namespace;
  }

  /** The node ids of the cluster-scoped objects this scenario made: its unmanaged nodes, its volumes and classes. */
  get ownedClusterIds(): string[] {
    return [
      ...this.scenario.spec.unmanagedNodes.map((n) => nodeId('Node', null, n.name)),
      ...this.clusterScoped.flatMap((o) => (isNodeKind(o.kind) ? [nodeId(o.kind, null, o.name)] : [])),
    ];
  }

  get deadline(): number {
    return this.appliedAt + this.scenario.deadlineSeconds * 1000;
  }

  async setUp(): Promise<void> {
    const { spec, name } = this.scenario;
    if (await this.kube.get('Namespace', null, this.ns)) throw new Error(`namespace ${this.ns} already exists (a previous run's leftovers?)`);
    await this.kube.create('Namespace', null, { metadata: { name: this.ns, labels: { [UNMANAGED_LABEL]: name } } });
    for (const node of spec.unmanagedNodes) {
      await this.kube.create('Node', null, unmanagedNodeManifest(name, node));
      await this.kube.patch('Node', null, node.name, { status: unmanagedNodeStatus(node, rfc3339(Date.now())) }, 'status');
      // A silent node gets one Lease, as a kubelet that died right after registering would leave.
      await this.kube.create('Lease', 'kube-node-lease', {
        metadata: { name: node.name, namespace: 'kube-node-lease', labels: { [UNMANAGED_LABEL]: name } },
        spec: { holderIdentity: node.name, leaseDurationSeconds: LEASE_SECONDS, renewTime: microTime(Date.now()) },
      });
      this.leased.add(node.name);
    }
    // Pods need the namespace's default ServiceAccount, which the controller-manager creates.
    await this.until('the default ServiceAccount', async () => (await this.kube.get('ServiceAccount', this.ns, 'default')) !== null, 60_000);
    const now = Date.now();
    const objects = resolveTimes(this.scenario.objects, now);
    for (const p of spec.statusPatches) this.patches.push({ patch: p, status: resolveTimes(p.status, now) });
    const stages = applyStages(objects);
    for (const [i, stage] of stages.entries()) {
      await this.apply(stage);
      if (i < stages.length - 1) {
        for (const quota of stage) {
          await this.until(`quota ${quota.metadata.name} to count`, async () => quotaCounting((await this.kube.get('ResourceQuota', this.ns, quota.metadata.name))?.status), 60_000);
        }
      }
    }
    this.appliedAt = Date.now();
  }

  private async apply(objects: readonly object[]): Promise<void> {
    const manifests = objects.map((o) => JSON.stringify(o)).join('\n');
    const out = await kubectl(['apply', '--server-side', '--force-conflicts', `--field-manager=${FIELD_MANAGER}`, '-n', this.ns, '-o', 'json', '-f', '-'], { ...this.k, input: manifests, timeoutMs: 120_000 });
    const applied = JSON.parse(out) as ApiObject & { kind?: string; items?: (ApiObject & { kind: string })[] };
    for (const o of applied.items ?? [applied as ApiObject & { kind: string }]) {
      if (o.metadata.namespace === undefined) this.clusterScoped.push({ kind: o.kind, name: o.metadata.name });
    }
  }

  /** One round of status patches and deletions; each patch is re-applied until it holds once. */
  async drive(): Promise<void> {
    for (const { patch, status } of this.patches) {
      const held = this.held.get(patch) ?? new Set<string>();
      this.held.set(patch, held);
      for (const target of await this.targets(patch.kind, patch.name)) {
        const uid = target.metadata.uid ?? target.metadata.name;
        if (held.has(uid) || target.metadata.deletionTimestamp) continue;
        if (holds(status, target.status)) {
          held.add(uid);
          continue;
        }
        const after = await this.kube.patch(patch.kind, this.namespaceOf(patch.kind), target.metadata.name, { status }, 'status');
        if (holds(status, after.status)) {
          held.add(uid);
          continue;
        }
        const tries = (this.attempts.get(uid) ?? 0) + 1;
        this.attempts.set(uid, tries);
        if (tries === 3) this.log(`${this.scenario.name}: the status patch of ${patch.kind} ${target.metadata.name} does not hold (the server or a controller changes it): ${JSON.stringify(after.status).slice(0, 400)}`);
      }
    }
    for (const d of this.scenario.spec.deletions) {
      const key = `${d.kind}/${d.name}`;
      if (this.deleted.has(key)) continue;
      const target = await this.kube.get(d.kind, this.namespaceOf(d.kind), d.name);
      if (!target) continue;
      const uid = target.metadata.uid ?? d.name;
      const waiting = this.patches.some(({ patch }) => patch.kind === d.kind && nameMatches(patch.name, d.name) && !this.held.get(patch)?.has(uid));
      if (waiting) continue;
      await this.kube.delete(d.kind, this.namespaceOf(d.kind), d.name, d.gracePeriodSeconds);
      this.deleted.add(key);
    }
  }

  /** Every status patch has matched something and held on all it matched. */
  allPatchesHeld(): boolean {
    return this.patches.every(({ patch }) => (this.held.get(patch)?.size ?? 0) > 0);
  }

  private namespaceOf(kind: string): string | null {
    return kind === 'Node' || kind === 'PersistentVolume' ? null : this.ns;
  }

  private async targets(kind: string, pattern: string): Promise<ApiObject[]> {
    if (!pattern.endsWith('*')) {
      const one = await this.kube.get(kind, this.namespaceOf(kind), pattern);
      return one ? [one] : [];
    }
    return (await this.kube.list(kind, this.namespaceOf(kind))).filter((o) => nameMatches(pattern, o.metadata.name));
  }

  async renewLeases(): Promise<void> {
    for (const node of this.scenario.spec.unmanagedNodes) {
      if (!node.heartbeat || !this.leased.has(node.name)) continue;
      await this.kube.patch('Lease', 'kube-node-lease', node.name, { spec: { renewTime: microTime(Date.now()), holderIdentity: node.name } });
    }
  }

  observe(namespaceAnswer: Diagnosis, clusterAnswer: Diagnosis | null): void {
    const roots = scenarioRoots(namespaceAnswer, clusterAnswer, this.ownedClusterIds);
    this.lastScore = scoreAnswer(this.scenario.spec.expect, roots, namespaceAnswer.notes);
    this.error = null;
    if (this.lastScore.top1 && this.firstTop1 === null) this.firstTop1 = Date.now();
    if (this.lastScore.pass) this.done = true;
  }

  result(): ScenarioResult {
    const { expect } = this.scenario.spec;
    return {
      name: this.scenario.name,
      description: this.scenario.spec.description,
      code: expect.rootCause?.code ?? 'history',
      expected: expect.rootCause?.object ?? null,
      effectsExpected: expect.effects.length,
      score: this.lastScore,
      secondsToDiagnosis: this.firstTop1 === null ? null : Math.round((this.firstTop1 - this.appliedAt) / 100) / 10,
      deadlineSeconds: this.scenario.deadlineSeconds,
      error: this.error,
      incidentDisagreements: this.incidentDisagreements,
    };
  }

  /** Asks for everything the scenario made to be deleted: its namespace, nodes, Leases and cluster-scoped objects. */
  async startCleanUp(): Promise<void> {
    await this.kube.delete('Namespace', null, this.ns).catch(() => false);
    for (const node of this.scenario.spec.unmanagedNodes) {
      await this.kube.delete('Node', null, node.name);
      await this.kube.delete('Lease', 'kube-node-lease', node.name);
    }
    for (const o of this.clusterScoped) {
      await kubectl(['delete', o.kind, o.name, '--ignore-not-found', '--wait=false'], this.k);
    }
  }

  /** Waits for the namespace to be gone, force-deleting the pods no kubelet will ever finish (those on its unmanaged nodes). */
  async finishCleanUp(): Promise<void> {
    await this.until(`namespace ${this.ns} to be deleted`, async () => {
      for (const pod of await this.kube.list('Pod', this.ns)) {
        if (pod.metadata.finalizers?.length) await this.kube.patch('Pod', this.ns, pod.metadata.name, { metadata: { finalizers: null } }).catch(() => undefined);
        await this.kube.delete('Pod', this.ns, pod.metadata.name, 0).catch(() => false);
      }
      return (await this.kube.get('Namespace', null, this.ns)) === null;
    }, 120_000, 2000);
  }

  private async until(what: string, probe: () => Promise<boolean>, timeoutMs: number, intervalMs = 500): Promise<void> {
    const end = Date.now() + timeoutMs;
    let last = '';
    while (Date.now() < end) {
      try {
        if (await probe()) return;
      } catch (err) {
        last = errorText(err);
      }
      await sleep(intervalMs);
    }
    throw new Error(`${this.scenario.name}: timed out waiting for ${what}${last ? `: ${last}` : ''}`);
  }
}

/** Leftovers of an interrupted run (namespaces and nodes named dq-*, labelled by the harness). */
export async function removeLeftovers(kube: Kube): Promise<string[]> {
  const removed: string[] = [];
  for (const node of await kube.list('Node', null, UNMANAGED_LABEL)) {
    if (!node.metadata.name.startsWith(SCENARIO_PREFIX)) continue;
    await kube.delete('Node', null, node.metadata.name);
    await kube.delete('Lease', 'kube-node-lease', node.metadata.name);
    removed.push(`node/${node.metadata.name}`);
  }
  for (const ns of await kube.list('Namespace', null, UNMANAGED_LABEL)) {
    if (!ns.metadata.name.startsWith(SCENARIO_PREFIX)) continue;
    for (const pod of await kube.list('Pod', ns.metadata.name)) {
      if (pod.metadata.finalizers?.length) await kube.patch('Pod', ns.metadata.name, pod.metadata.name, { metadata: { finalizers: null } });
      await kube.delete('Pod', ns.metadata.name, pod.metadata.name, 0);
    }
    await kube.delete('Namespace', null, ns.metadata.name);
    removed.push(`namespace/${ns.metadata.name}`);
  }
  return removed;
}

/**
 * Runs every scenario concurrently on one control plane and returns one result per scenario,
 * in the order given. Always cleans up what it created.
 */
export async function runScenarios(scenarios: readonly Scenario[], options: HarnessOptions): Promise<ScenarioResult[]> {
  return withScenarios(scenarios, options, async (runs) => {
    const log = options.log ?? (() => undefined);
    const pollMs = options.pollIntervalMs ?? 3000;
    while (runs.some((r) => !r.done)) {
      const round = Date.now();
      const active = runs.filter((r) => !r.done);
      await Promise.all(active.map((r) => r.drive().catch((err: unknown) => log(`${r.scenario.name}: status patches: ${errorText(err)}`))));
      let clusterAnswer: Diagnosis | null = null;
      if (active.some((r) => r.ownedClusterIds.length > 0)) clusterAnswer = await options.diagnose(null).catch(() => null);
      await Promise.all(
        active.map(async (r) => {
          try {
            r.observe(await options.diagnose(r.ns), clusterAnswer);
          } catch (err) {
            r.error = `diagnosis: ${errorText(err)}`;
          }
          if (r.done) log(`${r.scenario.name}: diagnosed in ${r.result().secondsToDiagnosis ?? '?'} s`);
          else if (Date.now() > r.deadline) {
            r.done = true;
            log(`${r.scenario.name}: deadline (${r.scenario.deadlineSeconds} s) passed`);
          }
          if (r.done && options.surfaces) r.incidentDisagreements = await agreementOf(r.ns, options.surfaces).catch((err: unknown) => [`reading the surfaces: ${errorText(err)}`]);
          if (r.done && options.onDone) await options.onDone(r.scenario, r.lastScore).catch((err: unknown) => log(`${r.scenario.name}: onDone: ${errorText(err)}`));
        }),
      );
      await sleep(Math.max(0, pollMs - (Date.now() - round)));
    }
    return runs.map((r) => r.result());
  });
}

/**
 * The surfaces' disagreements for a namespace that persist over three reads 2 s apart: the two
 * answers are read one after the other, and a diagnosis recomputed between them is no conflict.
 */
async function agreementOf(namespace: string, read: (namespace: string) => Promise<Surfaces>): Promise<string[]> {
  let found: string[] = [];
  for (let attempt = 0; attempt < 3; attempt++) {
    found = disagreements(namespace, await read(namespace));
    if (found.length === 0) return found;
    await sleep(2000);
  }
  return found;
}

/**
 * Applies the scenarios and keeps them alive (Leases, status patches, deletions) until `until`
 * resolves, then cleans up: for checking with kubectl that a scenario reaches the state it
 * means, with or without an agent (`npm run bench:diagnosis -- --hold`).
 */
export async function holdScenarios(scenarios: readonly Scenario[], options: Omit<HarnessOptions, 'diagnose'>, until: Promise<void>): Promise<void> {
  await withScenarios(scenarios, options, async (runs) => {
    const log = options.log ?? (() => undefined);
    const hold = { released: false };
    void until.then(() => {
      hold.released = true;
    });
    const settled = new Set<ScenarioRun>();
    while (!hold.released) {
      await Promise.all(runs.filter((r) => r.error === null).map((r) => r.drive().catch((err: unknown) => log(`${r.scenario.name}: status patches: ${errorText(err)}`))));
      for (const r of runs) {
        if (r.error !== null || settled.has(r) || !r.allPatchesHeld()) continue;
        settled.add(r);
        log(`${r.scenario.name}: every status patch holds`);
      }
      await sleep(options.pollIntervalMs ?? 3000);
    }
  });
}

async function withScenarios<T>(scenarios: readonly Scenario[], options: Omit<HarnessOptions, 'diagnose'>, body: (runs: ScenarioRun[]) => Promise<T>): Promise<T> {
  const log = options.log ?? (() => undefined);
  const kube = createKube(options.kubeconfig);
  const k = { kubeconfig: options.kubeconfig, binDir: options.binDir };
  const runs = scenarios.map((s) => new ScenarioRun(s, kube, k, log));
  const state = { stopped: false };

  // Leases on their own timers, one per scenario: neither a slow poll round nor another
  // scenario's slow request may let a live node go silent.
  const leaseLoops = runs.map(async (r) => {
    while (!state.stopped) {
      await r.renewLeases().catch((err: unknown) => log(`${r.scenario.name}: lease renewal failed: ${errorText(err)}`));
      await sleep(options.leaseRenewMs ?? 5000);
    }
  });

  try {
    // A few at a time: forty kubectl processes at once would starve the control plane they feed.
    await inPool(runs, SETUP_CONCURRENCY, async (r) => {
      try {
        await r.setUp();
        log(`${r.scenario.name}: applied`);
      } catch (err) {
        r.error = `setup: ${errorText(err)}`;
        r.done = true;
        log(`${r.scenario.name}: ${r.error}`);
      }
    });
    return await body(runs);
  } finally {
    state.stopped = true;
    await Promise.all(leaseLoops);
    // Every deletion asked first, then all the namespaces awaited together: the namespace
    // controller empties them side by side, where one scenario at a time took a minute more.
    await inPool(runs, SETUP_CONCURRENCY, (r) => r.startCleanUp().catch((err: unknown) => log(`${r.scenario.name}: cleanup: ${errorText(err)}`)));
    await Promise.all(runs.map((r) => r.finishCleanUp().catch((err: unknown) => log(`${r.scenario.name}: cleanup: ${errorText(err)}`))));
    log('cleaned up');
  }
}
