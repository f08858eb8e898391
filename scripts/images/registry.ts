// The registry the images are assembled in: crane's own, on loopback, for the length of the
// build (crane appends layers and sets configs only against a registry).
import { spawn, type ChildProcess } from 'node:child_process';

/** `crane registry serve` on a loopback port it picks; resolves once it says which. */
export function serveRegistry(crane: string): Promise<{ host: string; stop: () => void }> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(crane, ['registry', 'serve', '--address', '127.0.0.1:0'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    const stop = () => { if (child.exitCode === null) child.kill('SIGTERM'); };
    child.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      const port = /serving on port (\d+)/.exec(err)?.[1];
      if (port) resolve({ host: `127.0.0.1:${port}`, stop });
    });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`crane registry serve exited (${code ?? 'signal'}): ${err}`)));
  });
}
