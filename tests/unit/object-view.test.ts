// The detail view's object (domain/resources/object-view.ts): what is dropped, what is reduced
// and what is redacted, kind by kind.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { objectView } from '../../domain/resources/object-view.ts';
import { REDACTED } from '../../domain/redaction/redact.ts';

const metadata = {
  name: 'x',
  namespace: 'shop',
  labels: { app: 'x' },
  annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"stringData":{"token":"sk_live_51Hx9fakeToken"}}', team: 'payments' },
  managedFields: [{ manager: 'kubectl', operation: 'Apply' }],
};

describe('objectView', () => {
  it('a Secret is its metadata and type only: no data, no last-applied copy of it', () => {
    const view = objectView('secrets', { apiVersion: 'v1', kind: 'Secret', metadata, type: 'Opaque', data: { token: 'c2tfbGl2ZQ==' }, stringData: { token: 'sk_live' } });
    assert.deepEqual(view, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x', namespace: 'shop', labels: { app: 'x' }, annotations: { team: 'payments' } }, type: 'Opaque' });
    assert.doesNotMatch(JSON.stringify(view), /sk_live|c2tf/);
  });

  it('a ConfigMap shows its keys, not its values', () => {
    const view = objectView('configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata, data: { 'b.yaml': 'x: 1', a: 'hello' }, binaryData: { c: 'AAAA' } }) as Record<string, unknown>;
    assert.deepEqual(view.keys, ['a', 'b.yaml', 'c']);
    assert.equal('data' in view, false);
    assert.equal('binaryData' in view, false);
  });

  it("a pod's env: a secret-looking variable's value hidden, the others kept; managed fields dropped", () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata,
      spec: { containers: [{ name: 'app', env: [{ name: 'DB_PASSWORD', value: 'hunter2' }, { name: 'LOG_LEVEL', value: 'debug' }, { name: 'DATABASE_URL', value: 'postgres://app:s3cret@db:5432/app' }] }] },
    };
    const view = JSON.stringify(objectView('pods', pod));
    assert.doesNotMatch(view, /hunter2|s3cret|managedFields|last-applied/);
    assert.match(view, /"LOG_LEVEL","value":"debug"/);
    assert.match(view, new RegExp(`"DB_PASSWORD","value":"\\${REDACTED.slice(0, 1)}`));
    assert.match(view, /db:5432/, 'the free-text pass keeps the host');
  });

  it('anything not an object is nothing to show', () => {
    assert.equal(objectView('pods', 'nope'), null);
  });
});
