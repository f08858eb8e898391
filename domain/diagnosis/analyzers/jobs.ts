// Jobs and CronJobs: a Job that failed (with the pods that failed it), a CronJob whose last
// finished run failed, one that missed its schedule, and suspended ones (history notes).
//
// Now versus history: a completed Job is healthy; a failed Job of a CronJob whose later run
// completed is history (JobFailedPreviously, a note), since the CronJob has recovered.
//
// A CronJob missed its schedule when, MISSED_SCHEDULE_TOLERANCE_SECS before now, a scheduled
// time had come that is later than its lastScheduleTime (or than its creation when it never
// ran: the controller owes no run at the creation instant itself). The tolerance absorbs the
// controller's own delay. A run due exactly the tolerance ago counts as missed. Schedules are
// read in UTC unless they name a zone (CRON_TZ=...), see ../cron.ts; a schedule the evaluator
// cannot read (e.g. `@every`) is not checked. `spec.timeZone` sets the zone, and
// `spec.startingDeadlineSeconds` adds to the tolerance (until it passes, a late run may still start).
//
// A running Job is a suspect of a missed schedule: under concurrencyPolicy Forbid the
// controller skips runs while one is active, so a Job stuck on its pods holds the CronJob back.
import type { Condition, ControllerObject, ContainerStatus, PodObject } from '../../cluster/model.ts';
import { nodeId } from '../../cluster/node-id.ts';
import { redactText } from '../../redaction/redact.ts';
import type { Evidence } from '../../../schema/diagnosis.ts';
import type { CodeSpec } from '../codes.ts';
import { nextRun, parseCron, previousRun } from '../cron.ts';
import { ownerKey, type Analyzer, type DiagnosisInput, type DraftFinding } from '../input.ts';

export const MISSED_SCHEDULE_TOLERANCE_SECS = 60;
/** Pods shown as a failed Job's evidence; the rest are counted. */
const MAX_POD_EVIDENCE = 5;
/** Missed runs counted one by one; past this the count says "at least". (The controller itself gives up at 100.) */
const MAX_MISSED_COUNT = 100;

export const JOB_CODES: readonly CodeSpec[] = [
  { code: 'JobFailed', kind: 'Job', severity: 'critical', rule: "The Job's Failed condition is True (BackoffLimitExceeded, DeadlineExceeded, PodFailurePolicy...) and no later run of its CronJob has completed." },
  { code: 'JobFailedPreviously', kind: 'Job', severity: 'info', rule: "The Job failed, but a later Job of the same CronJob completed: history." },
  { code: 'JobSuspended', kind: 'Job', severity: 'info', rule: 'The Job is suspended (spec.suspend): it runs no pod until resumed.' },
  { code: 'CronJobLastRunFailed', kind: 'CronJob', severity: 'warning', rule: "The CronJob's most recent finished Job failed." },
  {
    code: 'CronJobMissedSchedule',
    kind: 'CronJob',
    severity: 'warning',
    rule: `The CronJob is not suspended and a scheduled time at least ${MISSED_SCHEDULE_TOLERANCE_SECS} s ago is later than its last scheduled run (or its creation when it never ran).`,
  },
  { code: 'CronJobSuspended', kind: 'CronJob', severity: 'info', rule: 'The CronJob is suspended (spec.suspend): it starts no Job until resumed.' },
];

/** Whole-second ISO time, as the API writes its own timestamps. */
const iso = (d: Date): string => d.toISOString().replace(/\.000Z$/, 'Z');

const isTrue = (c: readonly Condition[], type: string): Condition | undefined => c.find((x) => x.type === type && x.status === 'True');
const completed = (job: ControllerObject): boolean => isTrue(job.conditions, 'Complete') !== undefined;
const failed = (job: ControllerObject): Condition | undefined => isTrue(job.conditions, 'Failed');
const finished = (job: ControllerObject): boolean => completed(job) || failed(job) !== undefined;

/** Newest first: by creation, then by name (a CronJob's Job names end in the scheduled minute). */
function newestFirst(a: ControllerObject, b: ControllerObject): number {
  return (b.createdAt ?? '').localeCompare(a.createdAt ?? '') || b.name.localeCompare(a.name);
}

function cronJobJobs(input: DiagnosisInput, namespace: string, cronJob: string): ControllerObject[] {
  return (input.controllersByOwner.get(ownerKey(namespace, 'CronJob', cronJob)) ?? []).filter((c) => c.kind === 'Job').sort(newestFirst);
}

/** The failed container of a pod: the first with a non-zero exit, current termination first. */
function failedContainer(pod: PodObject): { name: string; exitCode: number; reason: string | null; signal: number | null } | null {
  const statuses: ContainerStatus[] = [...pod.initStatuses, ...pod.statuses];
  for (const s of statuses) {
    const t = s.terminated && s.terminated.exitCode !== 0 ? s.terminated : s.lastTerminated && s.lastTerminated.exitCode !== 0 ? s.lastTerminated : null;
    if (t) return { name: s.name, exitCode: t.exitCode, reason: t.reason, signal: t.signal };
  }
  return null;
}

const waitingReason = (pod: PodObject): string | null => [...pod.initStatuses, ...pod.statuses].find((s) => s.waiting)?.waiting?.reason ?? null;

function podFact(pod: PodObject): string | null {
  const exit = failedContainer(pod);
  if (exit) {
    const why = [exit.reason, exit.signal !== null ? `signal ${exit.signal}` : null].filter((x) => x !== null).join(', ');
    return `pod ${pod.name}: container ${exit.name} exited ${exit.exitCode}${why ? ` (${why})` : ''}`;
  }
  if (pod.phase === 'Failed') return `pod ${pod.name} failed${pod.statusReason ? `: ${pod.statusReason.reason}` : ''}`;
  const waiting = waitingReason(pod);
  return waiting ? `pod ${pod.name} waiting: ${waiting}` : null;
}

function failedSummary(job: ControllerObject, reason: string): string {
  const tries = job.job ? ` after ${job.job.failed} failed ${job.job.failed === 1 ? 'pod' : 'pods'}` : '';
  if (reason === 'BackoffLimitExceeded') return `job ${job.name} failed: backoff limit reached${tries}`;
  if (reason === 'DeadlineExceeded') return `job ${job.name} failed: it ran past its active deadline`;
  return `job ${job.name} failed (${reason})${tries}`;
}

function jobFindings(input: DiagnosisInput, job: ControllerObject, recovered: boolean): DraftFinding[] {
  const id = nodeId('Job', job.namespace, job.name);
  const failure = failed(job);
  if (!failure) {
    if (completed(job) || !job.job?.suspended) return [];
    return [
      {
        id: `${id}#JobSuspended`,
        code: 'JobSuspended',
        severity: 'info',
        object: id,
        namespace: job.namespace,
        summary: `job ${job.name} is suspended`,
        evidence: [{ node_id: id, fact: 'spec.suspend is true', source: 'spec', link: null }],
        since: isTrue(job.conditions, 'Suspended')?.lastTransition ?? null,
        attributes: {},
        suspects: [],
      },
    ];
  }
  const reason = failure.reason ?? 'Failed';
  const pods = [...(input.podsByOwner.get(ownerKey(job.namespace, 'Job', job.name)) ?? [])];
  // Pods stuck on something other than their own exit (an image that cannot be pulled, a
  // missing Secret) are the likelier cause, so they come first; then the newest.
  pods.sort((a, b) => Number(waitingReason(b) !== null) - Number(waitingReason(a) !== null) || (b.createdAt ?? '').localeCompare(a.createdAt ?? '') || a.name.localeCompare(b.name));
  const evidence: Evidence[] = [
    { node_id: id, fact: `Failed=True, reason ${reason}${failure.message ? `: ${redactText(failure.message)}` : ''}`, source: 'status', link: null },
  ];
  const facts = pods.flatMap((p) => {
    const fact = podFact(p);
    return fact ? [{ node_id: nodeId('Pod', p.namespace, p.name), fact, source: 'status' as const, link: null }] : [];
  });
  evidence.push(...facts.slice(0, MAX_POD_EVIDENCE));
  if (facts.length > MAX_POD_EVIDENCE) evidence.push({ node_id: id, fact: `${facts.length - MAX_POD_EVIDENCE} more pods failed or wait`, source: 'status', link: null });
  const attributes: Record<string, string | number> = { reason };
  if (job.job) {
    attributes.failed_pods = job.job.failed;
    attributes.backoff_limit = job.job.backoffLimit;
  }
  const code = recovered ? 'JobFailedPreviously' : 'JobFailed';
  return [
    {
      id: `${id}#${code}`,
      code,
      severity: recovered ? 'info' : 'critical',
      object: id,
      namespace: job.namespace,
      summary: recovered ? `${failedSummary(job, reason)}; a later run of cronjob ${job.owner?.name ?? ''} completed` : failedSummary(job, reason),
      evidence,
      since: failure.lastTransition,
      attributes,
      // History explains nothing, so a recovered failure names no suspects either.
      suspects: recovered ? [] : pods.map((p) => nodeId('Pod', p.namespace, p.name)),
    },
  ];
}

function lastRunFailed(cron: ControllerObject, jobs: readonly ControllerObject[]): DraftFinding | null {
  const last = jobs.find(finished);
  const failure = last ? failed(last) : undefined;
  if (!last || !failure) return null;
  const id = nodeId('CronJob', cron.namespace, cron.name);
  const jobRef = nodeId('Job', last.namespace, last.name);
  const reason = failure.reason ?? 'Failed';
  return {
    id: `${id}#CronJobLastRunFailed`,
    code: 'CronJobLastRunFailed',
    severity: 'warning',
    object: id,
    namespace: cron.namespace,
    summary: `the last run of cronjob ${cron.name} failed (${reason})`,
    evidence: [
      { node_id: jobRef, fact: `job ${last.name} failed${failure.lastTransition ? ` at ${failure.lastTransition}` : ''}: ${reason}`, source: 'status', link: null },
      ...(cron.cronJob?.lastSuccessfulTime ? [{ node_id: id, fact: `last successful run ${cron.cronJob.lastSuccessfulTime}`, source: 'status' as const, link: null }] : []),
    ],
    since: failure.lastTransition,
    attributes: { job: last.name, reason },
    suspects: [jobRef],
  };
}

function missedSchedule(input: DiagnosisInput, cron: ControllerObject, spec: NonNullable<ControllerObject['cronJob']>): DraftFinding | null {
  const parsed = parseCron(spec.schedule, spec.timeZone);
  const reference = spec.lastScheduleTime ?? cron.createdAt;
  if (!parsed.ok || reference === null) return null;
  const referenceAt = new Date(reference);
  // Until its startingDeadlineSeconds pass, a late run may still start: it is not missed yet.
  const toleranceSecs = MISSED_SCHEDULE_TOLERANCE_SECS + (spec.startingDeadlineSecs ?? 0);
  const due = previousRun(parsed.schedule, new Date(input.now.getTime() - toleranceSecs * 1000));
  if (!due || Number.isNaN(referenceAt.getTime()) || due.getTime() <= referenceAt.getTime()) return null;
  const firstMissed = nextRun(parsed.schedule, referenceAt) ?? due;
  let missed = 0;
  for (let t: Date | null = firstMissed; t && t.getTime() <= due.getTime() && missed < MAX_MISSED_COUNT; t = nextRun(parsed.schedule, t)) missed++;
  const count = missed >= MAX_MISSED_COUNT ? `at least ${MAX_MISSED_COUNT} runs` : missed === 1 ? '1 run' : `${missed} runs`;
  const id = nodeId('CronJob', cron.namespace, cron.name);
  const zone = parsed.schedule.timeZone;
  const evidence: Evidence[] = [
    { node_id: id, fact: `schedule "${spec.schedule}"${zone === 'UTC' ? ' (UTC)' : ''}`, source: 'spec', link: null },
    {
      node_id: id,
      fact: spec.lastScheduleTime ? `last scheduled run ${spec.lastScheduleTime}; due again at ${iso(firstMissed)}` : `never scheduled since its creation at ${reference}; first due at ${iso(firstMissed)}`,
      source: 'status',
      link: null,
    },
  ];
  // A run still going can hold the next ones back (concurrencyPolicy Forbid): it may be the
  // cause, and through it its pods (a running Job has no finding of its own; a pod stuck on
  // ImagePullBackOff does).
  const active = spec.active.map((name) => nodeId('Job', cron.namespace, name));
  const activePods = spec.active.flatMap((name) => (input.podsByOwner.get(ownerKey(cron.namespace, 'Job', name)) ?? []).map((p) => nodeId('Pod', p.namespace, p.name)));
  for (const [i, name] of spec.active.entries()) evidence.push({ node_id: active[i] ?? '', fact: `job ${name} is still running`, source: 'status', link: null });
  return {
    id: `${id}#CronJobMissedSchedule`,
    code: 'CronJobMissedSchedule',
    severity: 'warning',
    object: id,
    namespace: cron.namespace,
    summary: `cronjob ${cron.name} missed ${count} (due since ${iso(firstMissed)})`,
    evidence,
    since: iso(firstMissed),
    attributes: { schedule: spec.schedule, missed_runs: missed, due_at: iso(firstMissed), ...(spec.lastScheduleTime ? { last_schedule_time: spec.lastScheduleTime } : {}) },
    suspects: [...active, ...activePods],
  };
}

function cronJobFindings(input: DiagnosisInput, cron: ControllerObject, jobs: readonly ControllerObject[]): DraftFinding[] {
  const spec = cron.cronJob;
  if (!spec) return [];
  const findings: DraftFinding[] = [];
  const lastFailed = lastRunFailed(cron, jobs);
  if (lastFailed) findings.push(lastFailed);
  const id = nodeId('CronJob', cron.namespace, cron.name);
  if (spec.suspended) {
    findings.push({
      id: `${id}#CronJobSuspended`,
      code: 'CronJobSuspended',
      severity: 'info',
      object: id,
      namespace: cron.namespace,
      summary: `cronjob ${cron.name} is suspended`,
      evidence: [{ node_id: id, fact: 'spec.suspend is true', source: 'spec', link: null }],
      since: null,
      attributes: {},
      suspects: [],
    });
  } else {
    const missed = missedSchedule(input, cron, spec);
    if (missed) findings.push(missed);
  }
  return findings;
}

export const analyzeJobs: Analyzer = (input) => {
  const findings: DraftFinding[] = [];
  for (const c of input.view.controllers()) {
    if (c.kind === 'Job') {
      // A failure is history once a later run of the same CronJob completed.
      const owner = c.owner?.kind === 'CronJob' && failed(c) ? c.owner.name : null;
      const siblings = owner === null ? [] : (input.controllersByOwner.get(ownerKey(c.namespace, 'CronJob', owner)) ?? []);
      const recovered = siblings.some((s) => s.kind === 'Job' && newestFirst(s, c) < 0 && completed(s));
      findings.push(...jobFindings(input, c, recovered));
    } else if (c.kind === 'CronJob') {
      findings.push(...cronJobFindings(input, c, cronJobJobs(input, c.namespace, c.name)));
    }
  }
  return findings;
};
