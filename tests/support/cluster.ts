// Access to the suite's shared control plane, started by tests/run.ts.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { startAgent, type AgentOptions, type RunningAgent } from '../../runtime/agent.ts';
import { kubectl, waitFor } from '../../runtime/localcluster/kubectl.ts';
import { silentLogger } from '../../runtime/log.ts';

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
