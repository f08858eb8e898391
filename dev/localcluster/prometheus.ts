// Debian's prometheus (scripts/ensure-prometheus.sh; dev-only, like the rest of dev/) on a free loopback port, scraping every 2 s
// with the admin kubeconfig's client certificate: the test control plane's kube-apiserver
// `/metrics` (real apiserver_request_total and request-duration series, as a cluster's own
// Prometheus has them), and KWOK node kwok-node-1's container metrics from its kubelet endpoint
// (container_cpu_usage_seconds_total and the rest, labelled by namespace and pod). Not through
// the API server's node proxy, as the generated scrape config does: the API server refuses to
// proxy to a loopback node address ("address not allowed"), and KWOK's nodes are on loopback.
// Its storage is a temporary directory, removed when it stops. The tests start it through
// tests/support/prometheus.ts; the observability benchmark (scripts/bench-observability.ts) too.
import { execFile, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';

const run = promisify(execFile);

export interface RunningPrometheus {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** An instant query's result, straight to Prometheus (no guard). */
  query(promql: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
  close(): Promise<void>;
}

interface FlatConfig {
  clusters: { cluster: { server: string; 'certificate-authority-data'?: string; 'insecure-skip-tls-verify'?: boolean } }[];
  users: { user: { 'client-certificate-data'?: string; 'client-key-data'?: string; token?: string } }[];
}

/** A free TCP port on loopback (asked of the kernel, then released for Prometheus to take). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** `extraJobs`: more scrape_configs entries (a test's own target, Capstan's own metrics). */
export async function startPrometheus(local: { kubeconfig: string; binDir: string }, options: { scrapeIntervalSecs?: number; extraJobs?: object[] } = {}): Promise<RunningPrometheus> {
  const { kubeconfig, binDir } = local;
  const dir = mkdtempSync(join(tmpdir(), 'capstan-prometheus-'));
  const flat = JSON.parse((await run(join(binDir, 'kubectl'), ['--kubeconfig', kubeconfig, 'config', 'view', '--raw', '--minify', '--flatten', '-o', 'json'])).stdout) as FlatConfig;
  const cluster = flat.clusters[0]?.cluster;
  const user = flat.users[0]?.user;
  if (!cluster || !user) throw new Error('the test kubeconfig names no cluster or user');
  const file = (name: string, base64: string | undefined): string | undefined => {
    if (base64 === undefined) return undefined;
    writeFileSync(join(dir, name), Buffer.from(base64, 'base64'), { mode: 0o600 });
    return join(dir, name);
  };
  const ca = file('ca.crt', cluster['certificate-authority-data']);
  const cert = file('client.crt', user['client-certificate-data']);
  const key = file('client.key', user['client-key-data']);
  if (user.token !== undefined) writeFileSync(join(dir, 'token'), user.token, { mode: 0o600 });
  const server = new URL(cluster.server);
  const interval = `${String(options.scrapeIntervalSecs ?? 2)}s`;
  const tls = { ...(ca ? { ca_file: ca } : { insecure_skip_verify: true }), ...(cert && key ? { cert_file: cert, key_file: key } : {}) };
  const authorization = user.token !== undefined ? { authorization: { credentials_file: join(dir, 'token') } } : {};
  const node = 'kwok-node-1';
  const kubeletPort = (await run(join(binDir, 'kubectl'), ['--kubeconfig', kubeconfig, 'get', 'node', node, '-o', 'jsonpath={.status.daemonEndpoints.kubeletEndpoint.Port}'])).stdout.trim();
  writeFileSync(
    join(dir, 'prometheus.yml'),
    stringify({
      global: { scrape_interval: interval, evaluation_interval: interval },
      scrape_configs: [
        {
          job_name: 'apiserver',
          scheme: server.protocol.replace(':', ''),
          static_configs: [{ targets: [server.host] }],
          tls_config: tls,
          ...authorization,
        },
        {
          job_name: 'kwok-node',
          scheme: 'https',
          metrics_path: `/metrics/nodes/${node}/metrics/resource`,
          static_configs: [{ targets: [`127.0.0.1:${kubeletPort}`] }],
          // KWOK's kubelet endpoint serves a self-signed certificate, as metrics-server finds it.
          tls_config: { insecure_skip_verify: true },
        },
        ...(options.extraJobs ?? []),
      ],
    }),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${String(port)}`;
  const child = spawn('prometheus', [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${String(port)}`, '--log.level=warn'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-8000)));
  const query = async (promql: string) => {
    const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`);
    const body = (await res.json()) as { status: string; data?: { result?: { metric: Record<string, string>; value: [number, string] }[] }; error?: string };
    if (body.status !== 'success') throw new Error(`prometheus: ${body.error ?? String(res.status)}`);
    return body.data?.result ?? [];
  };
  const deadline = Date.now() + 60_000;
  // Ready, and the API server scraped twice (a rate over the window needs two samples).
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prometheus exited ${String(child.exitCode)}: ${log}`);
    try {
      if ((await fetch(`${url}/-/ready`)).ok && (await query('count_over_time(up{job="apiserver"}[1m]) >= 2 and up{job="apiserver"} == 1')).length > 0) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`prometheus did not scrape the API server within a minute: ${log}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    url,
    query,
    close: () =>
      new Promise((resolve) => {
        const done = () => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        };
        if (child.exitCode !== null) return done();
        child.once('exit', done);
        child.kill('SIGTERM');
      }),
  };
}
