// The refusal parser over the apiserver's own wordings (as the ReplicaSet, StatefulSet,
// DaemonSet and Job controllers repeat them in FailedCreate events and the ReplicaFailure
// condition), one table: each message and the refusal it must become.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeRefusal, parseRefusal, type Refusal } from '../../domain/diagnosis/refusal-message.ts';

const rows: { name: string; message: string; want: Refusal }[] = [
  {
    name: 'quota: one resource, ReplicaSet event framing',
    message: 'Error creating: pods "api-5c9d-x7k2p" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=2, limited: pods=2',
    want: { kind: 'quota', quota: 'pods', form: 'exceeded', overruns: [{ resource: 'pods', requested: '1', used: '2', limited: '2' }] },
  },
  {
    name: 'quota: several resources, comma-joined lists, condition framing (no "Error creating")',
    message: 'pods "api-5c9d-x7k2p" is forbidden: exceeded quota: compute, requested: limits.cpu=1,requests.memory=256Mi, used: limits.cpu=2,requests.memory=1Gi, limited: limits.cpu=2,requests.memory=1Gi',
    want: {
      kind: 'quota',
      quota: 'compute',
      form: 'exceeded',
      overruns: [
        { resource: 'limits.cpu', requested: '1', used: '2', limited: '2' },
        { resource: 'requests.memory', requested: '256Mi', used: '1Gi', limited: '1Gi' },
      ],
    },
  },
  {
    name: 'quota: StatefulSet framing and the recorder\'s "combined" prefix',
    message: '(combined from similar events): create Pod web-2 in StatefulSet web failed error: pods "web-2" is forbidden: exceeded quota: team-a.pods, requested: count/pods=1, used: count/pods=5, limited: count/pods=5',
    want: { kind: 'quota', quota: 'team-a.pods', form: 'exceeded', overruns: [{ resource: 'count/pods', requested: '1', used: '5', limited: '5' }] },
  },
  {
    name: 'quota: must specify, per-container form',
    message: 'Error creating: pods "api-5c9d-x7k2p" is forbidden: failed quota: compute: must specify limits.cpu for: app,sidecar; limits.memory for: app',
    want: { kind: 'quota', quota: 'compute', form: 'must_specify', missing: ['limits.cpu', 'limits.memory'] },
  },
  {
    name: 'quota: must specify, older comma form',
    message: 'Error creating: pods "api-5c9d-x7k2p" is forbidden: failed quota: compute: must specify limits.cpu,limits.memory',
    want: { kind: 'quota', quota: 'compute', form: 'must_specify', missing: ['limits.cpu', 'limits.memory'] },
  },
  {
    name: 'quota: usage not computed yet',
    message: 'Error creating: pods "api-5c9d-x7k2p" is forbidden: status unknown for quota: compute, resources: limits.cpu',
    want: { kind: 'quota', quota: 'compute', form: 'status_unknown' },
  },
  {
    name: 'LimitRange: maximum, limit above',
    message: 'Error creating: pods "api-5c9d-x7k2p" is forbidden: maximum cpu usage per Container is 500m, but limit is 1',
    want: { kind: 'limitrange', violations: [{ bound: 'maximum', resource: 'cpu', scope: 'Container', allowed: '500m', field: 'limit', actual: '1' }] },
  },
  {
    name: 'LimitRange: minimum, request below',
    message: 'Error creating: pods "api-5c9d-x7k2p" is forbidden: minimum memory usage per Container is 64Mi, but request is 32Mi',
    want: { kind: 'limitrange', violations: [{ bound: 'minimum', resource: 'memory', scope: 'Container', allowed: '64Mi', field: 'request', actual: '32Mi' }] },
  },
  {
    name: 'LimitRange: several at once, bracketed, one per Pod',
    message: 'Error creating: pods "api-5c9d-x7k2p" is forbidden: [maximum cpu usage per Container is 500m, but limit is 1, maximum memory usage per Pod is 1Gi, but limit is 2Gi]',
    want: {
      kind: 'limitrange',
      violations: [
        { bound: 'maximum', resource: 'cpu', scope: 'Container', allowed: '500m', field: 'limit', actual: '1' },
        { bound: 'maximum', resource: 'memory', scope: 'Pod', allowed: '1Gi', field: 'limit', actual: '2Gi' },
      ],
    },
  },
  {
    name: 'LimitRange: no limit set (two spaces, as the apiserver writes it)',
    message: 'Error creating: pods "api-5c9d-x7k2p" is forbidden: maximum cpu usage per Container is 500m.  No limit is specified',
    want: { kind: 'limitrange', violations: [{ bound: 'maximum', resource: 'cpu', scope: 'Container', allowed: '500m', field: 'limit', actual: null }] },
  },
  {
    name: 'LimitRange: no request set',
    message: 'Error creating: pods "api-5c9d-x7k2p" is forbidden: minimum memory usage per Container is 64Mi. No request is specified',
    want: { kind: 'limitrange', violations: [{ bound: 'minimum', resource: 'memory', scope: 'Container', allowed: '64Mi', field: 'request', actual: null }] },
  },
  {
    name: 'LimitRange: limit/request ratio',
    message: 'Error creating: pods "api-5c9d-x7k2p" is forbidden: cpu max limit to request ratio per Container is 2, but provided ratio is 4.000000',
    want: { kind: 'limitrange', violations: [{ bound: 'ratio', resource: 'cpu', scope: 'Container', allowed: '2', field: 'ratio', actual: '4.000000' }] },
  },
  {
    name: 'webhook: denied with a reason',
    message: 'Error creating: admission webhook "policy.example.com" denied the request: containers must not run as root',
    want: { kind: 'webhook', webhook: 'policy.example.com', via: 'webhook', denied: true, reason: 'containers must not run as root' },
  },
  {
    name: 'webhook: denied without explanation',
    message: 'Error creating: admission webhook "policy.example.com" denied the request without explanation',
    want: { kind: 'webhook', webhook: 'policy.example.com', via: 'webhook', denied: true, reason: null },
  },
  {
    name: 'webhook: could not be called',
    message: 'Error creating: Internal error occurred: failed calling webhook "inject.mesh.io": Post "https://mesh.svc:443/inject": dial tcp 10.0.0.7:443: connect: connection refused',
    want: { kind: 'webhook', webhook: 'inject.mesh.io', via: 'webhook', denied: false, reason: 'Post "https://mesh.svc:443/inject": dial tcp 10.0.0.7:443: connect: connection refused' },
  },
  {
    name: 'webhook reason is redacted',
    message: 'Error creating: admission webhook "policy.example.com" denied the request: env API_TOKEN=hunter2hunter2 not allowed',
    want: { kind: 'webhook', webhook: 'policy.example.com', via: 'webhook', denied: true, reason: 'env API_TOKEN=[REDACTED] not allowed' },
  },
  {
    name: 'admission policy (in-process) denial, with its binding',
    message: "Error creating: pods \"api-5c9d-x7k2p\" is forbidden: ValidatingAdmissionPolicy 'no-latest' with binding 'no-latest-binding' denied request: image tag latest is not allowed",
    want: { kind: 'webhook', webhook: 'no-latest', via: 'policy', denied: true, reason: 'image tag latest is not allowed' },
  },
  {
    name: 'other: a missing service account, framing dropped',
    message: 'Error creating: pods "api-5c9d-x7k2p" is forbidden: error looking up service account shop/api: serviceaccount "api" not found',
    want: { kind: 'other', detail: 'pods "api-5c9d-x7k2p" is forbidden: error looking up service account shop/api: serviceaccount "api" not found' },
  },
  {
    name: 'other: a quota-looking name that is not a Kubernetes name is not trusted',
    message: 'Error creating: exceeded quota: Bad_Name!, requested: pods=1, used: pods=2, limited: pods=2',
    want: { kind: 'other', detail: 'exceeded quota: Bad_Name!, requested: pods=1, used: pods=2, limited: pods=2' },
  },
];

describe('parseRefusal', () => {
  for (const row of rows) {
    it(row.name, () => {
      assert.deepEqual(parseRefusal(row.message), row.want);
    });
  }

  it('keeps a long unknown message short', () => {
    const got = parseRefusal(`Error creating: ${'x'.repeat(1000)}`);
    assert.equal(got.kind, 'other');
    assert.ok(got.detail.length <= 240);
  });
});

const messageOf = (name: string): string => rows.find((r) => r.name === name)?.message ?? `no row named ${name}`;

describe('describeRefusal', () => {
  const cases: { message: string; want: string }[] = [
    { message: messageOf('quota: one resource, ReplicaSet event framing'), want: 'quota pods refused it (pods 2/2 used, 1 more requested)' },
    { message: messageOf('quota: must specify, per-container form'), want: 'quota compute requires limits.cpu, limits.memory on every container' },
    { message: messageOf('LimitRange: maximum, limit above'), want: 'cpu limit 1 is above the LimitRange maximum 500m per Container' },
    { message: messageOf('LimitRange: minimum, request below'), want: 'memory request 32Mi is below the LimitRange minimum 64Mi per Container' },
    { message: messageOf('LimitRange: no limit set (two spaces, as the apiserver writes it)'), want: 'no cpu limit set while the LimitRange has a maximum of 500m per Container' },
    { message: messageOf('webhook: denied with a reason'), want: 'admission webhook policy.example.com denied it: containers must not run as root' },
  ];
  for (const c of cases) it(c.want, () => assert.equal(describeRefusal(parseRefusal(c.message)), c.want));
});
