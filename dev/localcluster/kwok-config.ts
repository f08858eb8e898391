import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { CONTAINER_METRICS_PATH_ANNOTATION } from '../../runtime/kube/slim.ts';
import type { ScenarioSpec } from './scenario.ts';

const STAGES = fileURLToPath(new URL('./kwok/stages.yaml', import.meta.url));
/** kwokctl hands Metric objects to KWOK only with metrics-server enabled; without it there is no usage and no network. */
const METRICS = fileURLToPath(new URL('./kwok/metrics.yaml', import.meta.url));
/** Every client write, at Metadata level: tests prove Capstan's writes by it (auditLogPath). */
const AUDIT_POLICY = fileURLToPath(new URL('./kwok/audit-policy.yaml', import.meta.url));

/** The annotation KWOK selects the nodes it plays by; a node without it is nobody's (docs/local-cluster.md). */
export const MANAGED_NODE_ANNOTATION = 'kwok.x-k8s.io/node';
export const MANAGED_NODE_VALUE = 'fake';

export interface LogFile {
  containers?: string[];
  logsFile: string;
  previousLogsFile?: string;
}

/** Text → KWOK's CRI log format (`<RFC3339Nano> stdout F <line>`), lines one second apart ending at `end`. */
export function toCriLog(text: string, end: Date): string {
  const lines = text.replace(/\n$/, '').split('\n');
  return lines
    .map((line, i) => {
      const ts = new Date(end.getTime() - (lines.length - 1 - i) * 1000).toISOString().replace('Z', '000000Z');
      return `${ts} stdout F ${line}\n`;
    })
    .join('');
}

/** Logs for the pods of some namespaces only (a diagnosis scenario's), or of every namespace when `namespaces` is absent. */
export interface LogGroup {
  namespaces?: readonly string[];
  logs: ScenarioSpec['logs'];
}

/** `all` for the scenario's own logs, else the namespaces the group is for: `dq-dep-log-0-current.log`. */
export const logFilePrefix = (group: Pick<LogGroup, 'namespaces'>): string => group.namespaces?.join('+') ?? 'all';

export interface ClusterLogsPlan {
  selector: { matchNamespaces?: string[] };
  logs: LogFile[];
}

/**
 * Writes nothing: returns the log files to create (path → content) and one ClusterLogs per
 * group naming them. KWOK serves a pod from the first ClusterLogs whose selector matches it and
 * that has an entry for the container (or a catch-all entry), so groups limited to namespaces
 * go first and a catch-all group cannot shadow them.
 */
export function planLogs(groups: readonly LogGroup[], logDir: string, now: Date): { files: Map<string, string>; clusterLogs: ClusterLogsPlan[] } {
  const files = new Map<string, string>();
  const ordered = [...groups].sort((a, b) => Number(a.namespaces === undefined) - Number(b.namespaces === undefined));
  const clusterLogs = ordered.map((group): ClusterLogsPlan => {
    // Files are named by their group and place, so a test can append to the one its pods read.
    const prefix = logFilePrefix(group);
    const entries = group.logs.map((log, i) => {
      const current = join(logDir, `${prefix}-${i}-current.log`);
      files.set(current, toCriLog(log.current, now));
      const entry: LogFile = { logsFile: current };
      if (log.containers) entry.containers = log.containers;
      if (log.previous !== undefined) {
        entry.previousLogsFile = join(logDir, `${prefix}-${i}-previous.log`);
        files.set(entry.previousLogsFile, toCriLog(log.previous, new Date(now.getTime() - 60_000)));
      }
      return entry;
    });
    // KWOK uses the first entry without `containers` as the fallback, so specific ones go first.
    entries.sort((a, b) => Number(a.containers === undefined) - Number(b.containers === undefined));
    return { selector: group.namespaces ? { matchNamespaces: [...group.namespaces] } : {}, logs: entries };
  });
  return { files, clusterLogs: clusterLogs.filter((c) => c.logs.length > 0) };
}

/** Namespaces whose pods answer exec with a local shell (the pod-exec tests create them). */
export const POD_EXEC_NAMESPACES = ['it-pod-exec', 'e2e-pod-exec'] as const;

/**
 * The `-c` file handed to kwokctl: loopback-only binary runtime, our stages, the metrics
 * endpoint (resource usage for metrics-server and container network for the kubelet scrape, in
 * one Metric),
 * and the logs KWOK serves for `kubectl logs` (and `--previous`).
 */
export function kwokConfig(binDir: string, clusterLogs: readonly ClusterLogsPlan[]): string {
  const kwokctl = {
    apiVersion: 'config.kwok.x-k8s.io/v1alpha1',
    kind: 'KwokctlConfiguration',
    options: {
      runtime: 'binary',
      bindAddress: '127.0.0.1',
      kubectlBinary: join(binDir, 'kubectl'),
      kubeAuditPolicy: AUDIT_POLICY,
      // kwokctl multiplies every heartbeat setting by this (default 5: a silent node turns
      // Unknown only after 200 s, checked every 25 s). 2 makes it 80 s, checked every 10 s, with
      // KWOK renewing its nodes' 80 s Leases every 20 s: a node-lifecycle scenario resolves in
      // about a minute and a half, and a machine starved for half a minute (scale-5000 starting
      // on two shared cores) still does not flap every KWOK node to Unknown, as a kubelet's 40 s
      // would risk.
      heartbeatFactor: 2,
    },
    componentsPatches: [
      {
        name: 'kwok-controller',
        // kwokctl's binary runtime always passes --manage-all-nodes=true, and a flag beats the
        // KwokConfiguration option it defaults, so the flag itself is overridden: KWOK then plays
        // only nodes carrying its annotation (ours do), and a node without it has no kubelet at all.
        extraArgs: [
          { key: 'manage-all-nodes', value: 'false', override: true },
          { key: 'manage-nodes-with-annotation-selector', value: `${MANAGED_NODE_ANNOTATION}=${MANAGED_NODE_VALUE}` },
        ],
      },
    ],
  };
  const docs: string[] = [stringify(kwokctl), readFileSync(STAGES, 'utf8'), readFileSync(METRICS, 'utf8')];
  // `kubectl exec` (and Capstan's pod exec) into a pod of these namespaces runs the command on
  // this machine, in a PTY when asked: KWOK has no containers, and a shell here stands for one.
  docs.push(stringify({ apiVersion: 'kwok.x-k8s.io/v1alpha1', kind: 'ClusterExec', metadata: { name: 'pod-exec-tests' }, spec: { selector: { matchNamespaces: [...POD_EXEC_NAMESPACES] }, execs: [{ local: { workDir: '/tmp', envs: [{ name: 'TERM', value: 'xterm-256color' }] } }] } }));
  clusterLogs.forEach((c, i) => {
    docs.push(stringify({ apiVersion: 'kwok.x-k8s.io/v1alpha1', kind: 'ClusterLogs', metadata: { name: `scenario-logs-${i}` }, spec: c }));
  });
  return docs.map((d) => d.replace(/^---\n/, '')).join('\n---\n');
}

export function nodeManifests(count: number, capacity: ScenarioSpec['nodeCapacity'], kubeletVersion: string): string {
  const zones = ['zone-a', 'zone-b', 'zone-c'];
  const nodes = Array.from({ length: count }, (_, i) => {
    const name = `kwok-node-${i + 1}`;
    const resources = { cpu: String(capacity.cpu), memory: String(capacity.memory), pods: String(capacity.pods) };
    return {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name,
        annotations: {
          [MANAGED_NODE_ANNOTATION]: MANAGED_NODE_VALUE,
          'node.alpha.kubernetes.io/ttl': '0',
          // metrics-server ≥ 0.7 scrapes this path; KWOK's Metric object serves it per node.
          'metrics.k8s.io/resource-metrics-path': `/metrics/nodes/${name}/metrics/resource`,
          // KWOK serves every node on one port, so its container metrics carry the node in the
          // path; the same Metric as the resource metrics (kwok/metrics.yaml says why).
          [CONTAINER_METRICS_PATH_ANNOTATION]: `/metrics/nodes/${name}/metrics/resource`,
        },
        labels: {
          'kubernetes.io/hostname': name,
          'kubernetes.io/os': 'linux',
          'kubernetes.io/arch': 'amd64',
          'topology.kubernetes.io/zone': zones[i % zones.length] ?? 'zone-a',
          type: 'kwok',
        },
      },
      // Per-node pod CIDRs keep pod IPs unique (KWOK's default pool is one /24 for all nodes).
      spec: { podCIDR: `10.244.${i}.0/24` },
      // No conditions or addresses: KWOK's node-initialize stage sets them, pointing logs at itself.
      status: {
        capacity: resources,
        allocatable: resources,
        nodeInfo: { architecture: 'amd64', operatingSystem: 'linux', kubeletVersion },
      },
    };
  });
  return nodes.map((n) => stringify(n)).join('---\n');
}
