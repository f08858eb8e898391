// The scoped cluster view filters once per change of the informer cache, not per request:
// with 5000 pods, a dashboard's polling must not pay for the namespace filter each time.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ClusterView, EventObject, NamespaceObject } from '../../domain/cluster/model.ts';
import { scopeClusterView } from '../../domain/cluster/scoped.ts';
import { emptyCluster } from '../support/services.ts';
import { eventDefaults } from '../support/objects.ts';

const event = (namespace: string, involvedName: string): EventObject => ({ ...eventDefaults, namespace, involvedKind: 'Pod', involvedName, type: 'Normal', reason: 'R', message: 'm', count: 1, firstSeen: null, lastSeen: null });

it('filters each source array once and answers the same filtered array until the source changes', () => {
  let events: readonly EventObject[] = Array.from({ length: 5000 }, (_, i) => event(i % 2 === 0 ? 'shop' : 'kube-system', `p${String(i)}`));
  let reads = 0;
  const namespaces: readonly NamespaceObject[] = [{ name: 'shop', phase: 'Active', createdAt: null, labels: {} }];
  const source: ClusterView = { ...emptyCluster, namespaces: () => namespaces, events: () => (reads++, events) };
  const scoped = scopeClusterView(source, []);

  const first = scoped.events();
  assert.equal(first.length, 2500);
  assert.ok(first.every((e) => e.namespace === 'shop'));
  for (let i = 0; i < 100; i++) assert.equal(scoped.events(), first, 'an unchanged source is not filtered again');
  assert.equal(reads, 101, 'the source is still asked every time, so a change is seen at once');

  events = [...events, event('shop', 'new')];
  const second = scoped.events();
  assert.notEqual(second, first);
  assert.equal(second.length, 2501);
  assert.equal(scoped.events(), second);
});

it('answers whether a namespace is in scope by the blocklist and tenantNamespaces', () => {
  const scoped = scopeClusterView(emptyCluster, ['shop']);
  assert.deepEqual(['shop', 'web', 'kube-system'].map((ns) => scoped.inScope(ns)), [true, false, false]);
});
