// The jobs analyzer at its boundaries: a Job failed, completed, running or suspended; a
// CronJob's last finished run, a schedule missed by exactly the tolerance or just not, a
// CronJob that never ran, and failures a later run made history.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterView, Condition, ControllerObject, PodObject } from '../../domain/cluster/model.ts';
import { analyzeJobs, JOB_CODES, MISSED_SCHEDULE_TOLERANCE_SECS } from '../../domain/diagnosis/analyzers/jobs.ts';
import { diagnosisInput, type DraftFinding } from '../../domain/diagnosis/input.ts';

const NOW = new Date('2026-11-21T12:00:00Z');

function view(objects: { controllers?: ControllerObject[]; pods?: PodObject[] }): ClusterView {
  const none = () => [];
  return {
    namespaces: none,
    pods: () => objects.pods ?? [],
    nodes: none,
    events: none,
    workloads: none,
    services: none,
    pvcs: none,
    controllers: () => objects.controllers ?? [],
    ingresses: none,
    configMaps: none,
    secrets: none,
    pvs: none,
    endpointSlices: none,
    ingressClasses: none,
    storageClasses: none,
    nodeLeases: none,
    resourceQuotas: none,
    limitRanges: none,
    hpas: none,
    pdbs: none,
    metrics: () => ({ available: false, reason: 'test' }),
    vulnerabilityReports: none,
    configAuditReports: none,
    scannerReportStatus: () => ({ vulnerabilityreports: 'off', configauditreports: 'off' }),
    syncStatus: none,
    staleSince: () => null,
  };
}

const cond = (type: string, reason: string | null = null, lastTransition = '2026-11-21T11:30:00Z', message: string | null = null): Condition => ({ type, status: 'True', reason, message, lastTransition });

function job(name: string, extra: Partial<ControllerObject> = {}, spec: Partial<NonNullable<ControllerObject['job']>> = {}): ControllerObject {
  return {
    namespace: 'batch',
    name,
    kind: 'Job',
    owner: null,
    createdAt: '2026-11-21T11:00:00Z',
    conditions: [],
    desired: 1,
    ready: 0,
    available: 0,
    revision: null,
    job: { active: 0, succeeded: 0, failed: 0, backoffLimit: 6, completions: 1, startedAt: '2026-11-21T11:00:00Z', completedAt: null, suspended: false, ...spec },
    cronJob: null,
    ...extra,
  };
}

const ofCron = (cron: string, name: string, createdAt: string, conditions: Condition[]): ControllerObject => job(name, { owner: { kind: 'CronJob', name: cron }, createdAt, conditions });

function cronJob(name: string, spec: Partial<NonNullable<ControllerObject['cronJob']>> = {}, createdAt = '2026-11-01T00:00:00Z'): ControllerObject {
  return {
    namespace: 'batch',
    name,
    kind: 'CronJob',
    owner: null,
    createdAt,
    conditions: [],
    desired: 0,
    ready: 0,
    available: 0,
    revision: null,
    job: null,
    cronJob: { schedule: '*/5 * * * *', timeZone: null, startingDeadlineSecs: null, suspended: false, lastScheduleTime: '2026-11-21T11:55:00Z', lastSuccessfulTime: null, active: [], ...spec },
  };
}

function pod(name: string, jobName: string, extra: Partial<PodObject> = {}): PodObject {
  return {
    namespace: 'batch',
    name,
    phase: 'Failed',
    createdAt: '2026-11-21T11:00:00Z',
    startedAt: '2026-11-21T11:00:00Z',
    nodeName: 'n1',
    labels: {},
    workload: { kind: 'Job', name: jobName },
    owner: { kind: 'Job', name: jobName },
    refs: { configMaps: [], secrets: [], pvcs: [] }, envHosts: [],
    ready: false,
    readySince: null,
    unschedulable: null,
    containers: [{ name: 'main', image: 'example/batch:1', resources: { cpuRequestM: null, cpuLimitM: null, memRequestBytes: null, memLimitBytes: null }, ports: [] }],
    statuses: [
      {
        name: 'main',
        ready: false,
        restartCount: 0,
        waiting: null,
        runningSince: null,
        terminated: { exitCode: 3, reason: 'Error', signal: null, startedAt: '2026-11-21T11:00:00Z', finishedAt: '2026-11-21T11:01:00Z' },
        lastTerminated: null,
      },
    ],
    initContainers: [],
    initStatuses: [],
    statusReason: null,
    deletion: null,
    finalizers: [],
    nodeSelector: {},
    ...extra,
  };
}

const pulling = (name: string, jobName: string, createdAt: string): PodObject =>
  pod(name, jobName, {
    phase: 'Pending',
    createdAt,
    statuses: [{ name: 'main', ready: false, restartCount: 0, waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image' }, runningSince: null, terminated: null, lastTerminated: null }],
  });

const run = (objects: Parameters<typeof view>[0], now = NOW): DraftFinding[] => analyzeJobs(diagnosisInput(view(objects), now));
const brief = (f: DraftFinding) => ({ id: f.id, severity: f.severity, since: f.since, suspects: f.suspects });

describe('analyzeJobs: Jobs', () => {
  const cases: { name: string; objects: Parameters<typeof view>[0]; want: ReturnType<typeof brief>[] }[] = [
    { name: 'a completed Job is healthy', objects: { controllers: [job('ok', { conditions: [cond('Complete')] }, { succeeded: 1 })] }, want: [] },
    { name: 'a running Job is healthy', objects: { controllers: [job('busy', {}, { active: 1 })] }, want: [] },
    { name: 'a Failed condition that is not True is nothing', objects: { controllers: [job('j', { conditions: [{ ...cond('Failed'), status: 'False' }] })] }, want: [] },
    {
      name: 'a suspended Job is a note',
      objects: { controllers: [job('held', { conditions: [cond('Suspended', 'JobSuspended', '2026-11-21T10:00:00Z')] }, { suspended: true })] },
      want: [{ id: 'job:batch/held#JobSuspended', severity: 'info', since: '2026-11-21T10:00:00Z', suspects: [] }],
    },
    {
      name: 'a Job past its backoff limit: critical, its pods as suspects, newest first',
      objects: {
        controllers: [job('j', { conditions: [cond('Failed', 'BackoffLimitExceeded')] }, { failed: 2 })],
        pods: [pod('j-a', 'j', { createdAt: '2026-11-21T11:00:00Z' }), pod('j-b', 'j', { createdAt: '2026-11-21T11:10:00Z' }), pod('other', 'k')],
      },
      want: [{ id: 'job:batch/j#JobFailed', severity: 'critical', since: '2026-11-21T11:30:00Z', suspects: ['pod:batch/j-b', 'pod:batch/j-a'] }],
    },
    {
      name: 'a pod stuck on its image comes before pods that exited',
      objects: {
        controllers: [job('j', { conditions: [cond('Failed', 'DeadlineExceeded')] })],
        pods: [pod('j-new', 'j', { createdAt: '2026-11-21T11:20:00Z' }), pulling('j-old', 'j', '2026-11-21T11:00:00Z')],
      },
      want: [{ id: 'job:batch/j#JobFailed', severity: 'critical', since: '2026-11-21T11:30:00Z', suspects: ['pod:batch/j-old', 'pod:batch/j-new'] }],
    },
    {
      name: "a CronJob's failed Job is history once a later run completed",
      objects: {
        controllers: [
          cronJob('nightly', { schedule: '0 * * * *', lastScheduleTime: '2026-11-21T12:00:00Z' }),
          ofCron('nightly', 'nightly-1', '2026-11-21T10:00:00Z', [cond('Failed', 'BackoffLimitExceeded', '2026-11-21T10:10:00Z')]),
          ofCron('nightly', 'nightly-2', '2026-11-21T11:00:00Z', [cond('Complete', null, '2026-11-21T11:05:00Z')]),
        ],
        pods: [pod('nightly-1-x', 'nightly-1')],
      },
      want: [{ id: 'job:batch/nightly-1#JobFailedPreviously', severity: 'info', since: '2026-11-21T10:10:00Z', suspects: [] }],
    },
    {
      name: 'a later run still going does not make a failure history; the CronJob names the failed Job',
      objects: {
        controllers: [
          cronJob('nightly', { schedule: '0 * * * *', lastScheduleTime: '2026-11-21T12:00:00Z', active: ['nightly-3'] }),
          ofCron('nightly', 'nightly-1', '2026-11-21T10:00:00Z', [cond('Complete', null, '2026-11-21T10:05:00Z')]),
          ofCron('nightly', 'nightly-2', '2026-11-21T11:00:00Z', [cond('Failed', 'BackoffLimitExceeded', '2026-11-21T11:10:00Z')]),
          ofCron('nightly', 'nightly-3', '2026-11-21T12:00:00Z', []),
        ],
      },
      want: [
        { id: 'job:batch/nightly-2#JobFailed', severity: 'critical', since: '2026-11-21T11:10:00Z', suspects: [] },
        { id: 'cronjob:batch/nightly#CronJobLastRunFailed', severity: 'warning', since: '2026-11-21T11:10:00Z', suspects: ['job:batch/nightly-2'] },
      ],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
      assert.deepEqual(run(c.objects).map(brief).sort(byId), [...c.want].sort(byId));
    });
  }

  it('shows the failure and each pod with its exit code, at most five, the message redacted', () => {
    const failedJob = job('j', { conditions: [cond('Failed', 'BackoffLimitExceeded', '2026-11-21T11:30:00Z', 'Job has reached the specified backoff limit password=hunter2hunter2')] }, { failed: 7 });
    const pods = Array.from({ length: 7 }, (_, i) => pod(`j-${i}`, 'j', { createdAt: `2026-11-21T11:0${i}:00Z` }));
    pods[6] = pod('j-6', 'j', {
      createdAt: '2026-11-21T11:06:00Z',
      statuses: [{ name: 'main', ready: false, restartCount: 0, waiting: null, runningSince: null, terminated: { exitCode: 137, reason: 'OOMKilled', signal: 9, startedAt: null, finishedAt: null }, lastTerminated: null }],
    });
    const [f] = run({ controllers: [failedJob], pods });
    assert.ok(f);
    assert.equal(f.summary, 'job j failed: backoff limit reached after 7 failed pods');
    assert.deepEqual(f.attributes, { reason: 'BackoffLimitExceeded', failed_pods: 7, backoff_limit: 6 });
    assert.equal(f.evidence.length, 1 + 5 + 1);
    assert.match(f.evidence[0]?.fact ?? '', /^Failed=True, reason BackoffLimitExceeded: Job has reached the specified backoff limit/);
    assert.doesNotMatch(JSON.stringify(f), /hunter2/);
    assert.deepEqual(f.evidence[1], { node_id: 'pod:batch/j-6', fact: 'pod j-6: container main exited 137 (OOMKilled, signal 9)', source: 'status', link: null });
    assert.equal(f.evidence[2]?.fact, 'pod j-5: container main exited 3 (Error)');
    assert.equal(f.evidence[6]?.fact, '2 more pods failed or wait');
    assert.equal(f.suspects.length, 7);
  });
});

describe('analyzeJobs: CronJobs', () => {
  const tolerance = MISSED_SCHEDULE_TOLERANCE_SECS * 1000;
  const cases: { name: string; cron: ControllerObject; now?: string; want: ReturnType<typeof brief>[] }[] = [
    { name: 'on schedule: last run at the latest due time', cron: cronJob('c'), want: [] },
    {
      name: 'one run missed, well past the tolerance',
      cron: cronJob('c', { lastScheduleTime: '2026-11-21T11:50:00Z' }),
      want: [{ id: 'cronjob:batch/c#CronJobMissedSchedule', severity: 'warning', since: '2026-11-21T11:55:00Z', suspects: [] }],
    },
    {
      name: 'a run due exactly the tolerance ago counts as missed',
      cron: cronJob('c', { lastScheduleTime: '2026-11-21T11:55:00Z' }),
      now: new Date(Date.parse('2026-11-21T12:00:00Z') + tolerance).toISOString(),
      want: [{ id: 'cronjob:batch/c#CronJobMissedSchedule', severity: 'warning', since: '2026-11-21T12:00:00Z', suspects: [] }],
    },
    {
      name: 'a run due just under the tolerance ago is not yet missed',
      cron: cronJob('c', { lastScheduleTime: '2026-11-21T11:55:00Z' }),
      now: new Date(Date.parse('2026-11-21T12:00:00Z') + tolerance - 1).toISOString(),
      want: [],
    },
    {
      name: 'never ran: measured from its creation',
      cron: cronJob('c', { lastScheduleTime: null }, '2026-11-21T11:57:30Z'),
      now: '2026-11-21T12:01:00Z',
      want: [{ id: 'cronjob:batch/c#CronJobMissedSchedule', severity: 'warning', since: '2026-11-21T12:00:00Z', suspects: [] }],
    },
    { name: 'never ran, but nothing due since its creation yet', cron: cronJob('c', { lastScheduleTime: null }, '2026-11-21T11:57:30Z'), now: '2026-11-21T12:00:59Z', want: [] },
    { name: 'created on a scheduled minute: that minute is not owed', cron: cronJob('c', { lastScheduleTime: null }, '2026-11-21T11:55:00Z'), now: '2026-11-21T11:59:59Z', want: [] },
    {
      name: 'several hourly runs missed; a running Job that may hold them back is the suspect',
      cron: cronJob('c', { schedule: '@hourly', lastScheduleTime: '2026-11-21T08:00:00Z', active: ['c-290000'] }),
      now: '2026-11-21T12:30:00Z',
      want: [{ id: 'cronjob:batch/c#CronJobMissedSchedule', severity: 'warning', since: '2026-11-21T09:00:00Z', suspects: ['job:batch/c-290000'] }],
    },
    {
      name: 'suspended: a note, and its schedule is not checked',
      cron: cronJob('c', { suspended: true, lastScheduleTime: '2026-11-01T00:00:00Z' }),
      want: [{ id: 'cronjob:batch/c#CronJobSuspended', severity: 'info', since: null, suspects: [] }],
    },
    { name: 'a schedule the evaluator cannot read is not checked', cron: cronJob('c', { schedule: '@every 1h', lastScheduleTime: '2026-11-01T00:00:00Z' }), want: [] },
    { name: 'a schedule in its own zone: 03:00 Berlin is 02:00 UTC in November', cron: cronJob('c', { schedule: 'CRON_TZ=Europe/Berlin 0 3 * * *', lastScheduleTime: '2026-11-21T02:00:00Z' }), want: [] },
    {
      name: 'the same schedule read in UTC would be due at 03:00 UTC',
      cron: cronJob('c', { schedule: '0 3 * * *', lastScheduleTime: '2026-11-21T02:00:00Z' }),
      want: [{ id: 'cronjob:batch/c#CronJobMissedSchedule', severity: 'warning', since: '2026-11-21T03:00:00Z', suspects: [] }],
    },
    {
      name: 'weekdays only: nothing owed over the weekend (2026-11-21 is a Saturday)',
      cron: cronJob('c', { schedule: '0 9 * * MON-FRI', lastScheduleTime: '2026-11-20T09:00:00Z' }),
      want: [],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(run({ controllers: [c.cron] }, c.now ? new Date(c.now) : NOW).map(brief), c.want);
    });
  }

  it('counts the missed runs and says when the first was due', () => {
    const [f] = run({ controllers: [cronJob('c', { schedule: '@hourly', lastScheduleTime: '2026-11-21T08:00:00Z' })] }, new Date('2026-11-21T12:30:00Z'));
    assert.ok(f);
    assert.equal(f.summary, 'cronjob c missed 4 runs (due since 2026-11-21T09:00:00Z)');
    assert.deepEqual(f.attributes, { schedule: '@hourly', missed_runs: 4, due_at: '2026-11-21T09:00:00Z', last_schedule_time: '2026-11-21T08:00:00Z' });
    assert.deepEqual(
      f.evidence.map((e) => e.source),
      ['spec', 'status'],
    );
  });

  it("a running Job that holds the schedule back is suspected through its pods too, so a pod's own failure explains the missed runs", () => {
    const [f] = run(
      { controllers: [cronJob('c', { schedule: '@hourly', lastScheduleTime: '2026-11-21T08:00:00Z', active: ['c-290000'] })], pods: [pod('c-290000-x1', 'c-290000')] },
      new Date('2026-11-21T12:30:00Z'),
    );
    assert.ok(f);
    assert.deepEqual(f.suspects, ['job:batch/c-290000', 'pod:batch/c-290000-x1']);
  });

  it('caps the count of missed runs', () => {
    const [f] = run({ controllers: [cronJob('c', { schedule: '* * * * *', lastScheduleTime: '2026-11-20T00:00:00Z' })] });
    assert.ok(f);
    assert.equal(f.attributes.missed_runs, 100);
    assert.match(f.summary, /missed at least 100 runs/);
  });

  it('a CronJob whose newest finished run completed is healthy even after older failures', () => {
    const findings = run({
      controllers: [
        cronJob('c', { schedule: '0 * * * *', lastScheduleTime: '2026-11-21T12:00:00Z' }),
        ofCron('c', 'c-1', '2026-11-21T10:00:00Z', [cond('Failed', 'BackoffLimitExceeded')]),
        ofCron('c', 'c-2', '2026-11-21T11:00:00Z', [cond('Complete')]),
      ],
    });
    assert.deepEqual(
      findings.map((f) => f.code),
      ['JobFailedPreviously'],
    );
  });
});

describe('analyzeJobs: declarations', () => {
  it('declares every code it emits, with its kind', () => {
    const kinds = new Map(JOB_CODES.map((c) => [c.code, c.kind.toLowerCase()]));
    const findings = [
      ...run({ controllers: [job('f', { conditions: [cond('Failed', 'BackoffLimitExceeded')] }), job('s', {}, { suspended: true })] }),
      ...run({
        controllers: [
          cronJob('missed', { lastScheduleTime: '2026-11-21T10:00:00Z' }),
          cronJob('held', { suspended: true }),
          ofCron('held', 'held-1', '2026-11-21T10:00:00Z', [cond('Failed')]),
          ofCron('held', 'held-0', '2026-11-21T09:00:00Z', [cond('Complete')]),
          ofCron('missed', 'missed-1', '2026-11-21T09:00:00Z', [cond('Failed')]),
          ofCron('missed', 'missed-2', '2026-11-21T10:00:00Z', [cond('Complete')]),
        ],
      }),
    ];
    assert.deepEqual(new Set(findings.map((f) => f.code)), new Set(kinds.keys()));
    for (const f of findings) {
      assert.equal(f.id, `${f.object}#${f.code}`);
      assert.equal(f.object.split(':')[0], kinds.get(f.code));
      assert.equal(f.namespace, 'batch');
    }
  });
});
