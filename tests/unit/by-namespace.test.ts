import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inNamespace } from '../../domain/cluster/by-namespace.ts';

test('inNamespace: the objects of one namespace, in their order, from an index kept per array', () => {
  const all = [
    { namespace: 'a', name: 'a1' },
    { namespace: 'b', name: 'b1' },
    { namespace: 'a', name: 'a2' },
  ];
  const cases: { namespace: string; want: string[] }[] = [
    { namespace: 'a', want: ['a1', 'a2'] },
    { namespace: 'b', want: ['b1'] },
    { namespace: 'missing', want: [] },
    { namespace: '', want: [] },
  ];
  for (const { namespace, want } of cases) assert.deepEqual(inNamespace(all, namespace).map((o) => o.name), want, namespace);
  assert.equal(inNamespace(all, 'a'), inNamespace(all, 'a'), 'one index per array: the same answer until the array changes');
  const changed = [...all, { namespace: 'a', name: 'a3' }];
  assert.deepEqual(inNamespace(changed, 'a').map((o) => o.name), ['a1', 'a2', 'a3'], 'a new array (the informer saw a change) is indexed afresh');
});
