import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BUILD_SCRIPT = fileURLToPath(new URL('../../scripts/build-control-plane.sh', import.meta.url));

/**
 * Returns the directory holding every control-plane binary, building what is missing first
 * (scripts/build-control-plane.sh; its progress lines go to our stderr).
 */
export function ensureControlPlaneBinaries(): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [BUILD_SCRIPT], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const dir = out.trim().split('\n').pop() ?? '';
      if (code === 0 && dir !== '') resolve(dir);
      else reject(new Error(`control-plane build failed (exit ${code ?? 'signal'}); see the lines above`));
    });
  });
}
