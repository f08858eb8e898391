// Helm operations in the expert pod: each runs the real `helm` binary in a private directory
// made for it (mode 0700 under the work dir) holding an ephemeral kubeconfig with the pod's
// cluster-admin credential, the chart package the agent sent, the values, and Helm's cache,
// config and data homes; the directory is deleted when the operation ends, whatever happened.
// helm's environment is built from nothing but those paths: no variable of the pod reaches it.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { hideSecretData, manifestDiff } from '../../domain/helm/manifest.ts';
import { redactText } from '../../domain/redaction/redact.ts';
import type { WireOperation, WireOperationResult } from '../../schema/expert.ts';
import type { KubeAccess } from '../kube/client.ts';
import { ephemeralKubeconfig } from '../kube/ephemeral-kubeconfig.ts';

export interface HelmRunnerOptions {
  kc: KubeAccess;
  /** The helm binary. */
  helm: string;
  /** Where each operation's private directory is made (an in-memory emptyDir in the chart). */
  workDir: string;
}

/** Longest text of helm's own words passed back (its error, redacted). */
const MAX_MESSAGE_CHARS = 2000;
/** How long past the operation's own --timeout helm may take before it is killed. */
const GRACE_MS = 30_000;

interface HelmExit {
  ok: boolean;
  stdout: string;
  stderr: string;
  killed: boolean;
}

function runHelm(helm: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<HelmExit> {
  return new Promise((resolve) => {
    execFile(helm, args, { env, timeout: timeoutMs, maxBuffer: 32 * 1024 * 1024, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      const killed = err !== null && 'killed' in err && err.killed === true;
      resolve({ ok: err === null, stdout, stderr: err !== null && stderr === '' ? err.message : stderr, killed });
    });
  });
}

/** helm's error line as the agent may show it: secrets cut out, Helm's "Error: " prefix dropped, bounded. */
function helmMessage(stderr: string): string {
  const text = redactText(stderr.trim().replace(/^Error: /m, ''));
  return text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS)}…` : text;
}

/** Helm's words for an operation that ran out of its --timeout. */
const TIMED_OUT = /context deadline exceeded|timed out waiting/i;

export function helmRunner(options: HelmRunnerOptions): { run(op: WireOperation): Promise<WireOperationResult> } {
  const withWorkspace = async <T,>(namespace: string, fn: (dir: string, env: NodeJS.ProcessEnv) => Promise<T>): Promise<T> => {
    const dir = await mkdtemp(join(options.workDir, 'helm-op-'));
    try {
      await writeFile(join(dir, 'kubeconfig'), await ephemeralKubeconfig(options.kc, namespace), { mode: 0o600 });
      const env: NodeJS.ProcessEnv = {
        HOME: dir,
        KUBECONFIG: join(dir, 'kubeconfig'),
        HELM_CACHE_HOME: join(dir, 'cache'),
        HELM_CONFIG_HOME: join(dir, 'config'),
        HELM_DATA_HOME: join(dir, 'data'),
        HELM_NAMESPACE: namespace,
      };
      return await fn(dir, env);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };

  const writeChart = async (dir: string, op: { package: string; values: Record<string, unknown> }): Promise<{ chart: string; values: string }> => {
    const chart = join(dir, 'chart.tgz');
    const values = join(dir, 'values.json');
    await writeFile(chart, Buffer.from(op.package, 'base64'), { mode: 0o600 });
    // JSON is YAML: helm reads the values file as given, no conversion of ours in between.
    await writeFile(values, JSON.stringify(op.values), { mode: 0o600 });
    return { chart, values };
  };

  const failure = (exit: HelmExit): WireOperationResult => ({ ok: false, timed_out: exit.killed || TIMED_OUT.test(exit.stderr), message: helmMessage(exit.stderr) || 'helm failed without saying why' });

  const currentManifest = async (env: NodeJS.ProcessEnv, op: { namespace: string; name: string }): Promise<string | null> => {
    const exit = await runHelm(options.helm, ['get', 'manifest', op.name, '--namespace', op.namespace], env, 60_000);
    if (exit.ok) return exit.stdout;
    if (/not found/i.test(exit.stderr)) return null;
    throw new Error(helmMessage(exit.stderr));
  };

  return {
    run(op) {
      return withWorkspace(op.namespace, async (dir, env) => {
        const common = ['--namespace', op.namespace];
        const timing = (t: { wait: boolean; timeout_secs: number }): string[] => ['--timeout', `${String(t.timeout_secs)}s`, ...(t.wait ? ['--wait'] : [])];
        const limit = (t: { timeout_secs: number }): number => t.timeout_secs * 1000 + GRACE_MS;
        switch (op.operation) {
          case 'install':
          case 'upgrade': {
            const files = await writeChart(dir, op);
            const exit = await runHelm(options.helm, [op.operation, op.name, files.chart, ...common, '--values', files.values, ...timing(op), '--output', 'json'], env, limit(op));
            if (!exit.ok) return failure(exit);
            const release = JSON.parse(exit.stdout) as { version?: number; info?: { status?: string } };
            return { ok: true, summary: `${op.operation === 'install' ? 'Installed' : 'Upgraded'} ${op.namespace}/${op.name}: revision ${String(release.version ?? '?')}, ${release.info?.status ?? 'unknown'}.` };
          }
          case 'rollback': {
            const exit = await runHelm(options.helm, ['rollback', op.name, String(op.revision), ...common, ...timing(op)], env, limit(op));
            return exit.ok ? { ok: true, summary: `Rolled ${op.namespace}/${op.name} back to revision ${String(op.revision)}.` } : failure(exit);
          }
          case 'uninstall': {
            const exit = await runHelm(options.helm, ['uninstall', op.name, ...common, ...timing(op)], env, limit(op));
            return exit.ok ? { ok: true, summary: `Uninstalled ${op.namespace}/${op.name}.` } : failure(exit);
          }
          case 'diff': {
            const files = await writeChart(dir, op);
            const before = await currentManifest(env, op);
            const verb = before === null ? 'install' : 'upgrade';
            const exit = await runHelm(options.helm, [verb, op.name, files.chart, ...common, '--values', files.values, '--dry-run=server', '--output', 'json'], env, 120_000);
            if (!exit.ok) return failure(exit);
            const after = (JSON.parse(exit.stdout) as { manifest?: string }).manifest ?? '';
            const diff = manifestDiff(hideSecretData(before ?? ''), hideSecretData(after), `${op.namespace}/${op.name}`);
            return { ok: true, summary: `A dry run of ${verb} ${op.namespace}/${op.name}.`, diff: { installed: before !== null, ...diff } };
          }
        }
      });
    },
  };
}
