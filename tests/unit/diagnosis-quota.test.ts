// The quota analyzer at its boundaries: a quota or LimitRange is a finding only while a
// current refusal names it and its present state still explains that refusal. One table of
// hand-built object sets, time from a fixed `now`.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterView, ControllerObject, EventObject, LimitRangeObject, ResourceQuotaObject } from '../../domain/cluster/model.ts';
import { analyzeQuota } from '../../domain/diagnosis/analyzers/quota.ts';
import { diagnosisInput, type DraftFinding } from '../../domain/diagnosis/input.ts';
import { REFUSAL_CURRENT_SECS } from '../../domain/diagnosis/refusal-message.ts';
import { emptyCluster } from '../support/services.ts';

const NOW = new Date('2026-11-21T12:00:00Z');
const ago = (secs: number) => new Date(NOW.getTime() - secs * 1000).toISOString();

interface Objects {
  events?: EventObject[];
  controllers?: ControllerObject[];
  resourceQuotas?: ResourceQuotaObject[];
  limitRanges?: LimitRangeObject[];
}

function cluster(o: Objects): ClusterView {
  return {
    ...emptyCluster,
    events: () => o.events ?? [],
    controllers: () => o.controllers ?? [],
    resourceQuotas: () => o.resourceQuotas ?? [],
    limitRanges: () => o.limitRanges ?? [],
  };
}

/** A ReplicaSet in `namespace` that wants one pod and runs none: short, so its refusals are current. */
function shortReplicaSet(name: string, namespace = 'shop'): ControllerObject {
  return { namespace, name, kind: 'ReplicaSet', owner: { kind: 'Deployment', name: 'api' }, createdAt: ago(3600), conditions: [], desired: 1, ready: 0, available: 0, revision: 1, job: null, cronJob: null };
}

function refused(rs: string, cause: string, lastSeenAgo = 30, namespace = 'shop'): EventObject {
  return {
    namespace,
    involvedKind: 'ReplicaSet',
    involvedNamespace: namespace,
    involvedName: rs,
    source: 'replicaset-controller',
    type: 'Warning',
    reason: 'FailedCreate',
    message: `Error creating: pods "${rs}-x" is forbidden: ${cause}`,
    count: 3,
    firstSeen: ago(lastSeenAgo + 120),
    lastSeen: ago(lastSeenAgo),
  };
}

const quota = (name: string, hard: Record<string, string>, used: Record<string, string>, namespace = 'shop'): ResourceQuotaObject => ({ namespace, name, hard, used });
const limitRange = (name: string, type: string, max: Record<string, string>, min: Record<string, string> = {}): LimitRangeObject => ({ namespace: 'shop', name, limits: [{ type, max, min }] });

const PODS_FULL = 'exceeded quota: pods, requested: pods=1, used: pods=2, limited: pods=2';
const CPU_TIGHT = 'exceeded quota: compute, requested: requests.cpu=500m, used: requests.cpu=1800m, limited: requests.cpu=2';
const CPU_MAX = 'maximum cpu usage per Container is 500m, but limit is 1';

type Want = { id: string } & Partial<Pick<DraftFinding, 'severity' | 'summary' | 'attributes' | 'suspects'>>;

const rows: { name: string; objects: Objects; want: Want[] }[] = [
  // QuotaExhausted.
  {
    name: 'full quota named by a current refusal: exhausted',
    objects: { resourceQuotas: [quota('pods', { pods: '2' }, { pods: '2' })], controllers: [shortReplicaSet('api-1')], events: [refused('api-1', PODS_FULL)] },
    want: [{ id: 'resourcequota:shop/pods#QuotaExhausted', severity: 'warning', summary: 'quota pods is full (2/2)', attributes: { resource: 'pods', used: '2', hard: '2' }, suspects: [] }],
  },
  { name: 'full quota nobody bumps into: healthy', objects: { resourceQuotas: [quota('pods', { pods: '2' }, { pods: '2' })] }, want: [] },
  {
    name: 'quota raised since the refusal (used + requested fits): healthy at once',
    objects: { resourceQuotas: [quota('pods', { pods: '3' }, { pods: '2' })], controllers: [shortReplicaSet('api-1')], events: [refused('api-1', PODS_FULL)] },
    want: [],
  },
  {
    name: 'not full but cannot fit the refused request: exhausted, saying so',
    objects: { resourceQuotas: [quota('compute', { 'requests.cpu': '2' }, { 'requests.cpu': '1800m' })], controllers: [shortReplicaSet('api-1')], events: [refused('api-1', CPU_TIGHT)] },
    want: [{ id: 'resourcequota:shop/compute#QuotaExhausted', summary: 'quota compute cannot fit 500m more (requests.cpu 1800m/2 used)', attributes: { resource: 'requests.cpu', used: '1800m', hard: '2' } }],
  },
  {
    name: 'exactly fits (1.5 + 500m = 2): healthy',
    objects: { resourceQuotas: [quota('compute', { 'requests.cpu': '2' }, { 'requests.cpu': '1.5' })], controllers: [shortReplicaSet('api-1')], events: [refused('api-1', CPU_TIGHT)] },
    want: [],
  },
  {
    name: 'the refusal names another quota: this one is healthy',
    objects: { resourceQuotas: [quota('other', { pods: '2' }, { pods: '2' })], controllers: [shortReplicaSet('api-1')], events: [refused('api-1', PODS_FULL)] },
    want: [],
  },
  {
    name: 'same quota name in another namespace: healthy',
    objects: { resourceQuotas: [quota('pods', { pods: '2' }, { pods: '2' }, 'other')], controllers: [shortReplicaSet('api-1')], events: [refused('api-1', PODS_FULL)] },
    want: [],
  },
  {
    name: `refusal last seen ${REFUSAL_CURRENT_SECS + 1} s ago: over`,
    objects: { resourceQuotas: [quota('pods', { pods: '2' }, { pods: '2' })], controllers: [shortReplicaSet('api-1')], events: [refused('api-1', PODS_FULL, REFUSAL_CURRENT_SECS + 1)] },
    want: [],
  },
  {
    name: 'refused controller no longer exists: over',
    objects: { resourceQuotas: [quota('pods', { pods: '2' }, { pods: '2' })], events: [refused('api-1', PODS_FULL)] },
    want: [],
  },
  {
    name: '"must specify" refusal: the quota is not exhausted',
    objects: { resourceQuotas: [quota('compute', { 'limits.cpu': '4' }, { 'limits.cpu': '1' })], controllers: [shortReplicaSet('api-1')], events: [refused('api-1', 'failed quota: compute: must specify limits.cpu for: app')] },
    want: [],
  },
  {
    name: 'resource no longer in the quota: healthy',
    objects: { resourceQuotas: [quota('pods', { 'requests.cpu': '2' }, { 'requests.cpu': '2' })], controllers: [shortReplicaSet('api-1')], events: [refused('api-1', PODS_FULL)] },
    want: [],
  },
  // LimitRangeViolation.
  {
    name: 'LimitRange maximum refuses a limit: violation',
    objects: { limitRanges: [limitRange('limits', 'Container', { cpu: '500m' })], controllers: [shortReplicaSet('api-1')], events: [refused('api-1', CPU_MAX)] },
    want: [
      {
        id: 'limitrange:shop/limits#LimitRangeViolation',
        severity: 'warning',
        summary: 'LimitRange limits refuses pods of ReplicaSet api-1: cpu limit 1 is above the LimitRange maximum 500m per Container',
        attributes: { resource: 'cpu', bound: 'maximum', scope: 'Container', limit: '500m', value: '1' },
        suspects: [],
      },
    ],
  },
  { name: 'maximum raised to the asked value (1 = 1000m): healthy', objects: { limitRanges: [limitRange('limits', 'Container', { cpu: '1000m' })], controllers: [shortReplicaSet('api-1')], events: [refused('api-1', CPU_MAX)] }, want: [] },
  { name: 'the bound is on Pods, the refusal on Containers: not this one', objects: { limitRanges: [limitRange('limits', 'Pod', { cpu: '500m' })], controllers: [shortReplicaSet('api-1')], events: [refused('api-1', CPU_MAX)] }, want: [] },
  {
    name: 'two LimitRanges: only the one whose bound still refuses',
    objects: { limitRanges: [limitRange('loose', 'Container', { cpu: '2' }), limitRange('tight', 'Container', { cpu: '500m' })], controllers: [shortReplicaSet('api-1')], events: [refused('api-1', CPU_MAX)] },
    want: [{ id: 'limitrange:shop/tight#LimitRangeViolation' }],
  },
  {
    name: 'minimum refuses a request',
    objects: { limitRanges: [limitRange('floor', 'Container', {}, { memory: '64Mi' })], controllers: [shortReplicaSet('api-1')], events: [refused('api-1', 'minimum memory usage per Container is 64Mi, but request is 32Mi')] },
    want: [{ id: 'limitrange:shop/floor#LimitRangeViolation', attributes: { resource: 'memory', bound: 'minimum', scope: 'Container', limit: '64Mi', value: '32Mi' } }],
  },
  {
    name: 'no limit set on the pod while the LimitRange has a maximum',
    objects: { limitRanges: [limitRange('limits', 'Container', { cpu: '500m' })], controllers: [shortReplicaSet('api-1')], events: [refused('api-1', 'maximum cpu usage per Container is 500m.  No limit is specified')] },
    want: [{ id: 'limitrange:shop/limits#LimitRangeViolation', attributes: { resource: 'cpu', bound: 'maximum', scope: 'Container', limit: '500m' } }],
  },
  { name: 'a LimitRange nobody breaks: healthy', objects: { limitRanges: [limitRange('limits', 'Container', { cpu: '500m' })], controllers: [shortReplicaSet('api-1')], events: [refused('api-1', PODS_FULL)] }, want: [] },
  {
    name: 'LimitRange refusal seen too long ago: over',
    objects: { limitRanges: [limitRange('limits', 'Container', { cpu: '500m' })], controllers: [shortReplicaSet('api-1')], events: [refused('api-1', CPU_MAX, REFUSAL_CURRENT_SECS + 1)] },
    want: [],
  },
];

describe('analyzeQuota', () => {
  for (const row of rows) {
    it(row.name, () => {
      const got = analyzeQuota(diagnosisInput(cluster(row.objects), NOW));
      assert.deepEqual(got.map((f) => f.id).sort(), row.want.map((w) => w.id).sort(), `findings: ${JSON.stringify(got.map((f) => f.summary))}`);
      for (const want of row.want) {
        const finding = got.find((f) => f.id === want.id);
        assert.ok(finding);
        for (const [key, value] of Object.entries(want)) assert.deepEqual(finding[key as keyof DraftFinding], value, `${want.id}.${key}`);
        assert.ok(finding.evidence.some((e) => e.node_id === 'replicaset:shop/api-1' && e.source === 'event'), 'the refused controller is evidence');
        assert.ok(finding.evidence.some((e) => e.node_id === finding.object), 'the object itself is evidence');
      }
    });
  }
});
