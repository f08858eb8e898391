// What RBAC refuses, as the answers name it: /readyz (public: resources only) turns ready and
// lists them, /overview names resource and namespace (cut to the caller's scope) and calls no
// namespace healthy whose pods or events it may not read, and the diagnosis says which namespaces its
// analyzers could not see.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CacheSyncStatus, ClusterView, NamespaceObject } from '../../domain/cluster/model.ts';
import { refusedIn, unreadableOf } from '../../domain/cluster/unreadable.ts';
import { diagnose } from '../../domain/diagnosis/engine.ts';
import { testApp } from '../support/app.ts';
import { emptyCluster } from '../support/services.ts';

const row = (resource: string, over: Partial<CacheSyncStatus> = {}): CacheSyncStatus => ({ resource, synced: true, failing_since: null, forbidden: false, forbidden_namespaces: [], ...over });
const refused = (resource: string, ...namespaces: string[]) => row(resource, { forbidden: true, forbidden_namespaces: namespaces });
const everywhere = () => true;

describe('unreadableOf', () => {
  const rows: { name: string; status: CacheSyncStatus[]; inScope?: (ns: string) => boolean; want: ReturnType<typeof unreadableOf> }[] = [
    { name: 'nothing refused', status: [row('pods'), row('secrets')], want: [] },
    { name: 'a cluster-wide refusal: namespace null', status: [row('pods'), refused('resourcequotas')], want: [{ resource: 'resourcequotas', namespace: null }] },
    {
      name: 'per-namespace refusals: one line each, in the cache order',
      status: [refused('pods', 'team-b'), row('events'), refused('secrets', 'team-a', 'team-b')],
      want: [
        { resource: 'pods', namespace: 'team-b' },
        { resource: 'secrets', namespace: 'team-a' },
        { resource: 'secrets', namespace: 'team-b' },
      ],
    },
    { name: 'a refusal in a namespace the caller may not see is not named', status: [refused('secrets', 'team-a', 'hidden'), refused('nodes')], inScope: (ns) => ns !== 'hidden', want: [{ resource: 'secrets', namespace: 'team-a' }, { resource: 'nodes', namespace: null }] },
  ];
  for (const r of rows) it(r.name, () => assert.deepEqual(unreadableOf(r.status, r.inScope ?? everywhere), r.want));
});

describe('refusedIn', () => {
  const status = [refused('pods', 'team-b'), refused('events'), row('services'), refused('secrets', 'team-a')];
  const rows: { namespace: string; resources: string[]; want: string[] }[] = [
    { namespace: 'team-a', resources: ['pods', 'events', 'services'], want: ['events'] },
    { namespace: 'team-b', resources: ['pods', 'events', 'services'], want: ['pods', 'events'] },
    { namespace: 'team-a', resources: ['services'], want: [] },
    { namespace: 'team-a', resources: ['secrets', 'pods'], want: ['secrets'] },
  ];
  for (const r of rows) it(`${r.resources.join(',')} in ${r.namespace}`, () => assert.deepEqual(refusedIn(status, r.namespace, r.resources), r.want));
});

describe('the diagnosis names where an analyzer was blind', () => {
  it('namespaces of a per-namespace refusal appear in the reason; a cluster-wide one has none', () => {
    const view: ClusterView = { ...emptyCluster, syncStatus: () => [refused('secrets', 'team-a', 'team-b'), refused('storageclasses')] };
    const d = diagnose(view, new Date('2026-11-21T12:00:00Z'), { analyzers: [{ name: 'network', reads: ['secrets'], analyze: () => [] }, { name: 'storage', reads: ['storageclasses'], analyze: () => [] }] });
    assert.deepEqual(d.silent, [
      { resource: 'secrets', reason: 'RBAC forbids reading secrets in namespaces team-a, team-b: the network analyzer cannot see it and says nothing about it' },
      { resource: 'storageclasses', reason: 'RBAC forbids reading storageclasses: the storage analyzer cannot see it and says nothing about it' },
    ]);
  });
});

describe('/readyz and /overview under refusals', () => {
  const namespaces: NamespaceObject[] = ['team-a', 'team-b', 'other'].map((name) => ({ name, phase: 'Active', createdAt: null, labels: {} }));
  const sync = [row('namespaces'), refused('pods', 'team-b'), row('events'), refused('secrets', 'team-a', 'other'), refused('resourcequotas')];
  const cluster: ClusterView = { ...emptyCluster, namespaces: () => namespaces, syncStatus: () => sync };

  it('/readyz is 200 and names the refused resources, never a namespace', async () => {
    const h = await testApp({ cluster });
    const res = await h.call('GET', '/readyz');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { status: 'ready', synced: ['namespaces', 'pods', 'events', 'secrets', 'resourcequotas'], unreadable: ['pods', 'secrets', 'resourcequotas'] });
  });

  it('/readyz still waits for an informer that has not listed yet', async () => {
    const h = await testApp({ cluster: { ...cluster, syncStatus: () => [...sync, row('services', { synced: false })] } });
    const res = await h.call('GET', '/readyz');
    assert.equal(res.status, 503);
    assert.match(String(res.body.message), /not synced yet: services$/);
  });

  it('/overview names resource and namespace within the scope, and calls no namespace healthy whose pods it cannot read', async () => {
    const h = await testApp({ cluster, tenantNamespaces: ['team-a', 'team-b'] });
    const res = await h.call('GET', '/api/agent/overview', { cookie: await h.signIn('viewer') });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.unreadable, [
      { resource: 'pods', namespace: 'team-b' },
      { resource: 'secrets', namespace: 'team-a' },
      { resource: 'resourcequotas', namespace: null },
    ]);
    const health = new Map((res.body.namespaces as { namespace: string; health_score: string; reasons: string[] }[]).map((n) => [n.namespace, n]));
    assert.deepEqual([...health.keys()].sort(), ['team-a', 'team-b']);
    assert.deepEqual(health.get('team-b'), { ...health.get('team-b'), health_score: 'unknown', reasons: ['not fully judged: RBAC forbids Capstan to read pods in this namespace'] });
    assert.equal(health.get('team-a')?.health_score, 'healthy', 'Secrets are not what the verdict reads');
  });
});
