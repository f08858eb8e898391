// A real OCI registry (Debian's docker-registry, the CNCF distribution server) on loopback behind
// htpasswd basic authentication, with Helm charts pushed into it by the real helm: the registry
// the saved-config tests pull from. scripts/ensure-registry.sh installs the package (make test
// runs it); the package's own service is never used.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import bcrypt from 'bcryptjs';
import { freeLoopbackPort } from './ports.ts';

const run = promisify(execFile);

export interface RunningRegistry {
  /** `127.0.0.1:<port>` */
  host: string;
  close(): Promise<void>;
}

/** `user` null: an open registry (anyone pulls and pushes), as the self-scan test's images are. */
export async function startRegistry(user: { username: string; password: string } | null): Promise<RunningRegistry> {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-registry-'));
  const port = await freeLoopbackPort();
  if (user) writeFileSync(join(dir, 'htpasswd'), `${user.username}:${bcrypt.hashSync(user.password, 4)}\n`);
  writeFileSync(
    join(dir, 'config.yml'),
    [
      'version: 0.1',
      'log: {level: warn, accesslog: {disabled: true}}',
      `storage: {filesystem: {rootdirectory: ${join(dir, 'data')}}}`,
      `http: {addr: "127.0.0.1:${String(port)}", secret: "${bcrypt.genSaltSync(4)}"}`,
      ...(user ? [`auth: {htpasswd: {realm: capstan-test, path: ${join(dir, 'htpasswd')}}}`] : []),
      '',
    ].join('\n'),
  );
  const child = spawn('docker-registry', ['serve', join(dir, 'config.yml')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const host = `127.0.0.1:${String(port)}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`docker-registry exited ${String(child.exitCode)}: ${log}`);
    try {
      // Up: 401 without credentials when it asks for them, 200 when open.
      if ((await fetch(`http://${host}/v2/`)).status === (user ? 401 : 200)) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`docker-registry did not start: ${log}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    host,
    close: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Packages `chartDir` at `version` and pushes it to `oci://<host>/<path>` with helm (plain HTTP, basic auth). */
export async function pushChart(helm: string, chartDir: string, version: string, target: { host: string; path: string; username: string; password: string }): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-push-'));
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, HELM_CACHE_HOME: join(dir, 'cache'), HELM_CONFIG_HOME: join(dir, 'config'), HELM_DATA_HOME: join(dir, 'data') };
  await run(helm, ['package', chartDir, '--version', version, '--destination', dir], { env });
  const name = /^name:\s*(\S+)/m.exec((await run('sh', ['-c', `cat "${join(chartDir, 'Chart.yaml')}"`])).stdout)?.[1] ?? 'chart';
  await run(helm, ['push', join(dir, `${name}-${version}.tgz`), `oci://${target.host}/${target.path}`, '--plain-http', '--username', target.username, '--password', target.password], { env });
}
