// Access to the suite's shared control plane, started by tests/run.ts.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { CHART_DIR } from '../../scripts/generate-chart-readme.ts';
import { startAgent, type AgentOptions, type RunningAgent } from '../../runtime/agent.ts';
import { kubectl, waitFor } from '../../dev/localcluster/kubectl.ts';
import { silentLogger } from '../../runtime/log.ts';
import { TEST_PASSWORDS } from './passwords.ts';

export interface TestCluster {
  kubeconfig: string;
  binDir: string;
  dir: string;
}

export function testCluster(): TestCluster {
  const kubeconfig = process.env.CAPSTAN_TEST_KUBECONFIG;
  const binDir = process.env.CAPSTAN_TEST_BIN_DIR;
  const dir = process.env.CAPSTAN_TEST_CLUSTER_DIR;
  if (!kubeconfig || !binDir || !dir) {
    throw new Error('no test cluster: run the suite through `npm test` (tests/run.ts), which starts one');
  }
  return { kubeconfig, binDir, dir };
}

export function k(args: string[], input?: string): Promise<string> {
  const { kubeconfig, binDir } = testCluster();
  return kubectl(args, { kubeconfig, binDir, input });
}

export async function kJson<T>(args: string[]): Promise<T> {
  return JSON.parse(await k([...args, '-o', 'json'])) as T;
}

export { waitFor };

/** RBAC verbs that change something or widen access: what a read-only grant must hold none of. */
export const WRITE_VERBS: ReadonlySet<string> = new Set(['create', 'update', 'patch', 'delete', 'deletecollection', 'escalate', 'bind', 'impersonate', '*']);

/** The Helm chart's directory (absolute, so no test depends on its working directory). */
export { CHART_DIR };

let helmHome: string | undefined;

/**
 * `helm` from the suite's bin directory against its API server, never failing: what it
 * printed and whether it exited 0. Its cache, config and data go to one temporary directory
 * per process, so a test writes nothing into $HOME.
 */
export function helmResult(args: string[]): Promise<{ ok: boolean; stdout: string; stderr: string }> {
  const { binDir, kubeconfig } = testCluster();
  if (helmHome === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'capstan-helm-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    helmHome = dir;
  }
  const home = helmHome;
  const env = { ...process.env, KUBECONFIG: kubeconfig, HELM_CACHE_HOME: join(home, 'cache'), HELM_CONFIG_HOME: join(home, 'config'), HELM_DATA_HOME: join(home, 'data') };
  return new Promise((resolve) => {
    execFile(join(binDir, 'helm'), args, { env, maxBuffer: 64 * 1024 * 1024, timeout: 300_000 }, (err, stdout, stderr) => {
      resolve({ ok: err === null, stdout, stderr: err !== null && stderr === '' ? err.message : stderr });
    });
  });
}

/** `helm`, as helmResult, resolving with its stdout; rejects with its stderr when it fails. */
export async function helm(args: string[]): Promise<string> {
  const result = await helmResult(args);
  if (!result.ok) throw new Error(`helm ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

/** Minimal shapes of the API objects the tests read. */
export interface PodList {
  items: {
    metadata: { name: string; namespace: string; labels?: Record<string, string> };
    status: {
      phase?: string;
      conditions?: { type: string; status: string }[];
      containerStatuses?: {
        name: string;
        restartCount: number;
        ready: boolean;
        state?: { waiting?: { reason?: string }; running?: object };
        lastState?: { terminated?: { exitCode: number; reason?: string } };
      }[];
    };
  }[];
}

/** A real agent against the suite's cluster, on a free loopback port with a fresh data dir; `options` override. */
export async function startTestAgent(name: string, options: Partial<AgentOptions>): Promise<RunningAgent> {
  const agent = await startAgent({
    kubeconfig: testCluster().kubeconfig,
    listen: '127.0.0.1:0',
    dataDir: mkdtempSync(join(tmpdir(), `capstan-${name}-`)),
    settings: { tenantNamespaces: [] },
    validateOutput: true,
    log: silentLogger,
    passwords: TEST_PASSWORDS,
    ...options,
  });
  await agent.ready;
  return agent;
}

/**
 * A kubeconfig for the suite's API server that authenticates as a ServiceAccount, with a token
 * minted through the TokenRequest API (`kubectl create token`): an agent run with it has
 * exactly the RBAC the test granted that account.
 */
export async function serviceAccountKubeconfig(serviceAccount: string, namespace: string): Promise<string> {
  const token = (await k(['create', 'token', serviceAccount, '-n', namespace, '--duration=1h'])).trim();
  const admin = parse(readFileSync(testCluster().kubeconfig, 'utf8')) as { clusters: { name: string; cluster: Record<string, unknown> }[]; 'current-context': string; contexts: { name: string; context: { cluster: string } }[] };
  const clusterName = admin.contexts.find((c) => c.name === admin['current-context'])?.context.cluster;
  const cluster = admin.clusters.find((c) => c.name === clusterName);
  if (!cluster) throw new Error('the admin kubeconfig names no current cluster');
  const path = join(mkdtempSync(join(tmpdir(), `capstan-${serviceAccount}-`)), 'kubeconfig');
  writeFileSync(
    path,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [cluster],
      users: [{ name: serviceAccount, user: { token } }],
      contexts: [{ name: serviceAccount, context: { cluster: cluster.name, user: serviceAccount } }],
      'current-context': serviceAccount,
    }),
  );
  return path;
}
