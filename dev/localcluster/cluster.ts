import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ensureControlPlaneBinaries } from './binaries.ts';
import { kwokConfig, nodeManifests, planLogs, type LogGroup } from './kwok-config.ts';
import { kubectl, waitFor, waitForNodesReady } from './kubectl.ts';
import { defaultScenarioSpec, loadScenario, type ScenarioSpec } from './scenario.ts';

const CLUSTER_NAME = 'capstan';
/** Scenario objects per `kubectl apply`. */
const APPLY_BATCH = 1000;

export interface UpOptions {
  dir: string;
  nodes?: number;
  scenario?: string;
  metricsServer?: boolean;
  /**
   * How often metrics-server scrapes every node (its --metric-resolution; kwokctl's default is
   * 15s). KWOK computes each scrape's answer for every pod of the node, so at tens of
   * thousands of pods a slower cadence leaves it the CPU to bring the pods up.
   */
  metricsResolution?: string;
  progress?: (line: string) => void;
  /** Container logs KWOK serves to the pods of some namespaces only (the diagnosis scenarios'), beside the scenario's own. */
  namespacedLogs?: readonly LogGroup[];
}

export interface LocalCluster {
  dir: string;
  kubeconfig: string;
  binDir: string;
  alreadyRunning: boolean;
}

export interface ComponentStatus {
  component: string;
  pid: number;
  alive: boolean;
}

/** The API server's audit log of a local cluster started in `dir` (kwok/audit-policy.yaml says what it records). */
export function auditLogPath(dir: string): string {
  return join(paths(dir).clusterDir, 'logs', 'audit.log');
}

function paths(dir: string) {
  const root = resolve(dir);
  const workdir = join(root, 'kwok');
  const clusterDir = join(workdir, 'clusters', CLUSTER_NAME);
  return {
    root,
    workdir,
    clusterDir,
    pidDir: join(clusterDir, 'pids'),
    kubeconfig: join(root, 'kubeconfig'),
    config: join(root, 'kwok-config.yaml'),
    logDir: join(root, 'container-logs'),
    kwokctlLog: join(root, 'kwokctl.log'),
    binDirFile: join(root, 'bin-dir'),
  };
}

/** The processes kwokctl started for this dir, from its pid files. */
export function status(dir: string): ComponentStatus[] {
  const { pidDir } = paths(dir);
  if (!existsSync(pidDir)) return [];
  return readdirSync(pidDir)
    .filter((f) => f.endsWith('.pid'))
    .map((f) => {
      const pid = Number(readFileSync(join(pidDir, f), 'utf8').trim());
      return { component: f.replace(/\.pid$/, ''), pid, alive: isAlive(pid) };
    });
}

export function isRunning(dir: string): boolean {
  const components = status(dir);
  return components.length > 0 && components.every((c) => c.alive);
}

export async function up(options: UpOptions): Promise<LocalCluster> {
  const p = paths(options.dir);
  const say = options.progress ?? (() => undefined);
  if (isRunning(options.dir)) {
    return { dir: p.root, kubeconfig: p.kubeconfig, binDir: readFileSync(p.binDirFile, 'utf8').trim(), alreadyRunning: true };
  }
  if (status(options.dir).length > 0) {
    say('a previous cluster in this dir is partly down; removing it first');
    await down(options.dir);
  }

  const binDir = await ensureControlPlaneBinaries();
  const scenario = options.scenario ? loadScenario(options.scenario) : null;
  const spec = scenario?.spec ?? defaultScenarioSpec();
  const nodeCount = options.nodes ?? spec.nodes;

  mkdirSync(p.logDir, { recursive: true });
  writeFileSync(p.binDirFile, binDir + '\n');
  const logs = planLogs([{ logs: spec.logs }, ...(options.namespacedLogs ?? [])], p.logDir, new Date());
  for (const [file, content] of logs.files) writeFileSync(file, content);
  writeFileSync(p.config, kwokConfig(binDir, logs.clusterLogs));

  say(`starting etcd, kube-apiserver, controller-manager, scheduler, KWOK${options.metricsServer === false ? '' : ', metrics-server'}`);
  const args = [
    '--name', CLUSTER_NAME,
    '-c', p.config,
    'create', 'cluster',
    '--runtime', 'binary',
    '--kubeconfig', '',
    '--etcd-binary', join(binDir, 'etcd'),
    '--kube-apiserver-binary', join(binDir, 'kube-apiserver'),
    '--kube-controller-manager-binary', join(binDir, 'kube-controller-manager'),
    '--kube-scheduler-binary', join(binDir, 'kube-scheduler'),
    '--kwok-controller-binary', join(binDir, 'kwok'),
    '--extra-args', 'kwok-controller=node-ip=127.0.0.1',
    // The apiserver's default /24 holds 254 Services; scale scenarios need more.
    '--extra-args', 'kube-apiserver=service-cluster-ip-range=10.96.0.0/16',
    '--disable-qps-limits',
    '--wait', '120s',
  ];
  if (options.metricsServer !== false) args.push('--enable', 'metrics-server', '--metrics-server-binary', join(binDir, 'metrics-server'));
  if (options.metricsServer !== false && options.metricsResolution !== undefined) args.push('--extra-args', `metrics-server=metric-resolution=${options.metricsResolution}`);
  await runKwokctl(binDir, p, args);
  copyFileSync(join(p.clusterDir, 'kubeconfig.yaml'), p.kubeconfig);
  const k = { binDir, kubeconfig: p.kubeconfig };

  await waitFor('kube-apiserver /readyz', async () => (await kubectl(['get', '--raw', '/readyz'], k)).trim() === 'ok', 120_000);
  say(`creating ${nodeCount} KWOK nodes`);
  await applyNodes(k, nodeCount, spec.nodeCapacity);
  // Pods need their namespace's default ServiceAccount, which the controller-manager creates.
  await waitFor('the default ServiceAccount', async () => (await kubectl(['get', 'serviceaccount', 'default', '-o', 'name'], k)).trim() !== '', 60_000);

  if (options.metricsServer !== false) await ensureMetricsApi(options.dir, binDir, k, say);

  if (scenario && scenario.objectCount > 0) {
    say(`applying scenario "${scenario.name}" (${scenario.objectCount} objects)`);
    await applyObjects(k, scenario.documents, say);
  }
  return { dir: p.root, kubeconfig: p.kubeconfig, binDir, alreadyRunning: false };
}

type Kubectl = { binDir: string; kubeconfig: string };

/** Nodes kwok-node-1..count (existing ones unchanged), once all are Ready. */
async function applyNodes(k: Kubectl, count: number, capacity: ScenarioSpec['nodeCapacity']): Promise<void> {
  const version = JSON.parse(await kubectl(['version', '-o', 'json'], k)) as { serverVersion?: { gitVersion?: string } };
  await kubectl(['apply', '-f', '-'], { ...k, input: nodeManifests(count, capacity, version.serverVersion?.gitVersion ?? 'v0.0.0') });
  await waitForNodesReady((args) => kubectl(args, k), count);
}

/**
 * Applies scenario objects in batches, each with its own bound: on two cores the API server
 * takes objects at a few a second while it also creates their pods, so scale-20000's 8000
 * objects (20000 pods) outlast any one bound that is still short enough to catch a hung
 * apply. Order is kept, so a Namespace is applied before the objects in it.
 */
async function applyObjects(k: Kubectl, documents: readonly string[], say: (line: string) => void): Promise<void> {
  for (let at = 0; at < documents.length; at += APPLY_BATCH) {
    const batch = documents.slice(at, at + APPLY_BATCH);
    await kubectl(['apply', '--server-side', '--field-manager=capstan-localcluster', '-f', '-'], { ...k, input: batch.join('---\n'), timeoutMs: 600_000 });
    if (documents.length > APPLY_BATCH) say(`applied ${Math.min(at + APPLY_BATCH, documents.length)} of ${documents.length} objects`);
  }
}

/**
 * Takes the running cluster in `dir` to `scenario`'s node count and applies the scenario's
 * objects from `fromObject` on: a benchmark grows one control plane through scenarios that
 * each begin with the one before, instead of creating every pod again on a new one.
 */
export async function extend(dir: string, scenarioName: string, fromObject: number, progress: (line: string) => void = () => undefined): Promise<LocalCluster> {
  const p = paths(dir);
  // Only the API server must be up: a component that exited (metrics-server does when starved) is no reason to lose the cluster.
  if (!status(dir).some((c) => c.component === API_SERVER && c.alive)) throw new Error(`no running cluster in ${dir} to extend`);
  const binDir = readFileSync(p.binDirFile, 'utf8').trim();
  const k = { binDir, kubeconfig: p.kubeconfig };
  const dead = status(dir).filter((c) => !c.alive);
  if (dead.length > 0) {
    progress(`restarting ${dead.map((c) => c.component).join(', ')}, which exited`);
    await restartDeadComponents(dir, binDir);
  }
  const scenario = loadScenario(scenarioName);
  progress(`growing to ${scenario.spec.nodes} KWOK nodes`);
  await applyNodes(k, scenario.spec.nodes, scenario.spec.nodeCapacity);
  const documents = scenario.documents.slice(fromObject);
  progress(`applying scenario "${scenario.name}" from object ${fromObject + 1} (${documents.length} objects)`);
  await applyObjects(k, documents, progress);
  return { dir: p.root, kubeconfig: p.kubeconfig, binDir, alreadyRunning: true };
}

/** Stops every process `up` started (kwokctl SIGKILLs them) and removes the cluster state. */
export async function down(dir: string): Promise<{ stopped: ComponentStatus[] }> {
  const p = paths(dir);
  const before = status(dir);
  if (before.length === 0 && !existsSync(p.clusterDir)) return { stopped: [] };
  const binDir = existsSync(p.binDirFile) ? readFileSync(p.binDirFile, 'utf8').trim() : await ensureControlPlaneBinaries();
  // A path that does not exist: kwokctl then leaves every real kubeconfig alone.
  await runKwokctl(binDir, p, ['--name', CLUSTER_NAME, 'delete', 'cluster', '--kubeconfig', join(p.root, 'no-such-kubeconfig')]);
  for (const c of before) {
    if (isAlive(c.pid)) process.kill(c.pid, 'SIGKILL');
  }
  await waitFor('control-plane processes to exit', async () => Promise.resolve(before.every((c) => !isAlive(c.pid))), 10_000, 100);
  rmSync(p.kubeconfig, { force: true });
  return { stopped: before };
}

const API_SERVER = 'kube-apiserver';

/**
 * Fault injection for tests: SIGKILLs the kube-apiserver of the running cluster in `dir`
 * (the pid kwokctl recorded) and waits until the process is gone. Every other component,
 * etcd included, keeps running; `startApiServer` brings it back.
 */
export async function stopApiServer(dir: string): Promise<{ pid: number }> {
  const apiServer = status(dir).find((c) => c.component === API_SERVER);
  if (!apiServer) throw new Error(`no ${API_SERVER} pid file under ${paths(dir).pidDir}: is a cluster running in ${dir}?`);
  if (isAlive(apiServer.pid)) {
    try {
      process.kill(apiServer.pid, 'SIGKILL');
    } catch (err) {
      // Exited between the check and the kill: that is what we wanted.
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
    }
  }
  await waitFor(`${API_SERVER} (pid ${String(apiServer.pid)}) to exit`, () => Promise.resolve(!isAlive(apiServer.pid)), 10_000, 50);
  return { pid: apiServer.pid };
}

/**
 * Starts the kube-apiserver again after `stopApiServer`, exactly as kwokctl first did:
 * `kwokctl start cluster` re-runs each component recorded in the cluster's `kwok.yaml`
 * (binary, args, workdir, log file) whose pid file names no live process: the API server,
 * plus any component that exited during the outage (the controller-manager and scheduler
 * do once they lose their lease); running ones keep their pids. Resolves once /readyz is ok.
 */
export async function startApiServer(dir: string, timeoutMs = 60_000): Promise<{ pid: number }> {
  const p = paths(dir);
  if (!existsSync(join(p.clusterDir, 'kwok.yaml'))) throw new Error(`no kwokctl cluster in ${dir}`);
  const binDir = readFileSync(p.binDirFile, 'utf8').trim();
  await restartDeadComponents(dir, binDir);
  const apiServer = status(dir).find((c) => c.component === API_SERVER);
  if (!apiServer?.alive) throw new Error(`kwokctl start cluster did not bring ${API_SERVER} back; see ${p.kwokctlLog} and ${join(p.clusterDir, 'logs', `${API_SERVER}.log`)}`);
  const k = { binDir, kubeconfig: p.kubeconfig, timeoutMs: 10_000 };
  await waitFor('kube-apiserver /readyz', async () => (await kubectl(['get', '--raw', '/readyz'], k)).trim() === 'ok', timeoutMs, 500);
  return { pid: apiServer.pid };
}

/** `kwokctl start cluster` starts every recorded component whose process is gone. */
async function restartDeadComponents(dir: string, binDir: string): Promise<void> {
  const p = paths(dir);
  // kwokctl takes a pid that answers kill(0) for a running component, and a killed process
  // not yet reaped (a zombie) still does: drop the stale pid files, as `kwokctl stop` would.
  for (const c of status(dir)) if (!c.alive) rmSync(join(p.pidDir, `${c.component}.pid`), { force: true });
  await runKwokctl(binDir, p, ['--name', CLUSTER_NAME, 'start', 'cluster']);
}

/**
 * metrics-server exits at once when it starts before the API server answers (kwokctl starts
 * them together), and an unavailable aggregated API also stalls namespace deletion. So `up`
 * returns only once metrics.k8s.io is Available, restarting metrics-server when it died.
 */
async function ensureMetricsApi(dir: string, binDir: string, k: { binDir: string; kubeconfig: string }, say: (line: string) => void): Promise<void> {
  const available = async () =>
    (await kubectl(['get', 'apiservice', 'v1beta1.metrics.k8s.io', '-o', 'jsonpath={.status.conditions[?(@.type=="Available")].status}'], k).catch(() => '')).trim() === 'True';
  for (let attempt = 1; attempt <= 3; attempt++) {
    if (status(dir).some((c) => c.component === 'metrics-server' && !c.alive)) {
      say('metrics-server exited early; starting it again');
      await restartDeadComponents(dir, binDir);
    }
    try {
      await waitFor('metrics.k8s.io to be available', available, 45_000, 1000);
      return;
    } catch (err) {
      if (attempt === 3) throw err;
    }
  }
}

function runKwokctl(binDir: string, p: ReturnType<typeof paths>, args: string[]): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    execFile(
      join(binDir, 'kwokctl'),
      args,
      {
        // kubectl on PATH keeps kwokctl from ever downloading one; KWOK_WORKDIR keeps state in our dir.
        env: { ...process.env, KWOK_WORKDIR: p.workdir, PATH: `${binDir}:${process.env.PATH ?? ''}` },
        timeout: 300_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (err, stdout, stderr) => {
        writeFileSync(p.kwokctlLog, `$ kwokctl ${args.join(' ')}\n${stdout}${stderr}\n`, { flag: 'a' });
        if (err) reject(new Error(`kwokctl ${args[2] ?? ''} failed; see ${p.kwokctlLog}`));
        else resolvePromise();
      },
    );
  });
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie still answers kill(0); it is gone for our purposes.
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}
