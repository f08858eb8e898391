// Helm for the agent's handlers (docs/helm.md): the release list from the expert pod's watch
// (asked at most every few seconds, one call in flight), one release's values, the dry run's
// diff, and the writes. A write is a Task: it starts at once and ends when the expert pod
// answers; an agent that dies mid-run leaves it running in the store, and the next start marks
// it stopped reporting (runtime/tasks/store.ts), never finished.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../domain/clock.ts';
import { groupReleases, type HelmListAnswer, type HelmReleaseSource, type HelmRevision } from '../../domain/helm/release.ts';
import type { HelmService, HelmWrite } from '../../handlers/helm/service.ts';
import { fail, ok, type AppError } from '../../handlers/result.ts';
import type { TaskRecorder } from '../../handlers/tasks/service.ts';
import type { TaskOutcome } from '../../domain/tasks/task.ts';
import type { WireOperation, WireRevision } from '../../schema/expert.ts';
import type { Logger } from '../log.ts';
import type { OutboundClient } from '../outbound/client.ts';
import { fetchChart, resolveSource } from './chart-fetch.ts';
import type { RuntimeHelmConfigs } from './config-store.ts';
import type { ChartSource } from '../../schema/helm.ts';
import { ExpertRefusal, type ExpertHop } from './expert-client.ts';

/** How long one release list from the expert pod is reused. */
const LIST_TTL_MS = 3000;

const revisionOf = (w: WireRevision): HelmRevision => ({
  name: w.name,
  namespace: w.namespace,
  revision: w.revision,
  status: w.status,
  chart: w.chart,
  chartVersion: w.chart_version,
  appVersion: w.app_version,
  updated: w.updated === null ? null : new Date(w.updated),
  description: w.description,
});

const NOT_PROVISIONED: AppError = { code: 'expert_not_installed', message: 'the expert pod is not installed: set expertMode.enabled=true in the chart' };

/** A refusal of the expert pod (or no answer) as the API's error. */
function hopError(err: unknown): AppError {
  if (err instanceof ExpertRefusal) {
    if (err.code === 'conflict') return { code: 'conflict', field: 'name', message: err.message };
    if (err.code === 'overloaded') return { code: 'overloaded', message: err.message, retryAfterSecs: 30 };
    if (err.code === 'invalid_input') return { code: 'invalid_input', field: 'body', message: err.message };
    return { code: 'expert_unavailable', message: `the expert pod refused: ${err.message}` };
  }
  return { code: 'expert_unavailable', message: `the expert pod did not answer: ${err instanceof Error ? err.message : String(err)}` };
}

export interface HelmRuntime {
  releases: HelmReleaseSource;
  service: HelmService;
  /** The agent is stopping: waits for running operations are abandoned, and their Tasks left running for the next start to mark. */
  close(): void;
}

export function helmRuntime(options: { hop: ExpertHop | null; outbound: OutboundClient; configs: RuntimeHelmConfigs; tasks: TaskRecorder; clock: Clock; log: Logger }): HelmRuntime {
  const { hop, clock, log } = options;
  let cached: { at: number; answer: HelmListAnswer } | null = null;
  let inFlight: Promise<HelmListAnswer> | null = null;
  let closed = false;
  const waiting = new Set<AbortController>();

  const fetchList = async (): Promise<HelmListAnswer> => {
    if (hop === null) return { ok: false, reason: NOT_PROVISIONED.message, notInstalled: true };
    try {
      const wire = await hop.releases();
      return { ok: true, releases: groupReleases(wire.revisions.map(revisionOf)), truncated: wire.truncated };
    } catch (err) {
      return { ok: false, reason: hopError(err).message, notInstalled: false };
    }
  };

  const releases: HelmReleaseSource = {
    list() {
      const now = clock.now().getTime();
      if (cached !== null && now - cached.at < LIST_TTL_MS) return Promise.resolve(cached.answer);
      inFlight ??= fetchList().then((answer) => {
        cached = { at: clock.now().getTime(), answer };
        inFlight = null;
        return answer;
      });
      return inFlight;
    },
  };

  const withChart = async (write: { chart: ChartSource }): Promise<{ ok: true; name: string; version: string; packageBase64: string } | { ok: false; error: AppError }> => {
    const source = await resolveSource(write.chart, (id) => options.configs.credentialsOf(id));
    if (source === null) return { ok: false, error: { code: 'invalid_input', field: 'chart.config_id', message: `no Helm config ${String(write.chart.config_id)}` } };
    const chart = await fetchChart(options.outbound, source);
    return chart.ok ? chart : { ok: false, error: { code: 'invalid_input', field: chart.field, message: chart.message } };
  };

  const describe = (write: HelmWrite, chart: { name: string; version: string } | null): string => {
    const release = `${write.namespace}/${write.name}`;
    switch (write.operation) {
      case 'install':
        return `Install chart ${chart?.name ?? ''} ${chart?.version ?? ''} as release ${release}.`;
      case 'upgrade':
        return `Upgrade release ${release} to chart ${chart?.name ?? ''} ${chart?.version ?? ''}.`;
      case 'rollback':
        return `Roll release ${release} back to revision ${String(write.revision)}.`;
      case 'uninstall':
        return `Uninstall release ${release}.`;
    }
  };

  const outcomeOf = async (op: WireOperation, timeoutSecs: number, signal: AbortSignal): Promise<TaskOutcome> => {
    const release = `${op.namespace}/${op.name}`;
    try {
      if (hop === null) throw new Error(NOT_PROVISIONED.message);
      const result = await hop.run(op, signal);
      if (result.ok) return { kind: 'success', detail: result.summary };
      if (result.timed_out) return { kind: 'timeout', afterSecs: timeoutSecs, consequence: `Helm stopped waiting; release ${release} is as Helm left it (see its history).` };
      return { kind: 'error', reason: 'HelmFailed', detail: result.message, consequence: `Release ${release} is as Helm left it (see its history).` };
    } catch (err) {
      const message = hopError(err).message;
      // The expert pod refused before running anything (busy with this release, or full): nothing changed.
      if (err instanceof ExpertRefusal && (err.code === 'conflict' || err.code === 'overloaded')) return { kind: 'error', reason: 'ExpertBusy', detail: err.message, consequence: `Nothing was changed: try again when the running operation ends.` };
      if (!closed) log.warn('a helm operation ended without an answer', { release, error: message });
      return { kind: 'error', reason: 'ExpertUnreachable', detail: message, consequence: `Whether ${release} changed is unknown: check its history.` };
    }
  };

  const run = async (taskId: string, op: WireOperation, timeoutSecs: number): Promise<void> => {
    const controller = new AbortController();
    waiting.add(controller);
    try {
      const outcome = await outcomeOf(op, timeoutSecs, controller.signal);
      cached = null;
      // A stopping agent records nothing: the Task stays running in the store, and the next
      // start marks it stopped reporting, since nobody here saw how it ended.
      if (!closed) await options.tasks.finish(taskId, outcome);
    } catch (err) {
      log.error('a helm task could not be recorded', { task: taskId, error: err instanceof Error ? err.message : String(err) });
    } finally {
      waiting.delete(controller);
    }
  };

  const service: HelmService = {
    provisioned: hop !== null,
    async values(namespace, name) {
      if (hop === null) return fail(NOT_PROVISIONED);
      try {
        const answer = await hop.values(namespace, name);
        return answer === null ? fail({ code: 'not_found', message: `no release ${namespace}/${name}` }) : ok(answer.values);
      } catch (err) {
        return fail(hopError(err));
      }
    },
    async diff(input) {
      if (hop === null) return fail(NOT_PROVISIONED);
      const chart = await withChart(input);
      if (!chart.ok) return fail(chart.error);
      try {
        const result = await hop.run({ operation: 'diff', namespace: input.namespace, name: input.name, package: chart.packageBase64, values: input.values });
        if (!result.ok) return fail({ code: 'invalid_input', field: 'chart', message: `the dry run failed: ${result.message}` });
        const diff = result.diff ?? { installed: false, diff: '', added: 0, removed: 0 };
        return ok({ ...diff, chart: chart.name, chart_version: chart.version });
      } catch (err) {
        return fail(hopError(err));
      }
    },
    async start(write, actor) {
      if (hop === null) return fail(NOT_PROVISIONED);
      let op: WireOperation;
      let chart: { name: string; version: string } | null = null;
      if (write.operation === 'install' || write.operation === 'upgrade') {
        const fetched = await withChart(write);
        if (!fetched.ok) return fail(fetched.error);
        chart = fetched;
        op = { operation: write.operation, namespace: write.namespace, name: write.name, package: fetched.packageBase64, values: write.values, wait: write.wait, timeout_secs: write.timeout_secs };
      } else if (write.operation === 'rollback') {
        op = { operation: 'rollback', namespace: write.namespace, name: write.name, revision: write.revision, wait: false, timeout_secs: 300 };
      } else {
        op = { operation: 'uninstall', namespace: write.namespace, name: write.name, wait: false, timeout_secs: 300 };
      }
      const taskId = randomUUID();
      await options.tasks.start({ id: taskId, kind: `helm_${write.operation}`, actor, detail: describe(write, chart) });
      void run(taskId, op, 'timeout_secs' in op ? op.timeout_secs : 300);
      return ok({ taskId });
    },
  };
  return {
    releases,
    service,
    close() {
      closed = true;
      for (const controller of waiting) controller.abort();
    },
  };
}
