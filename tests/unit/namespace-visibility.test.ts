import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isSystemNamespace, isVisibleNamespace } from '../../domain/namespaces/visibility.ts';

describe('namespace visibility', () => {
  it('hides the named system namespaces and the kube- prefix', () => {
    for (const name of ['kube-system', 'kube-public', 'kube-node-lease', 'monitoring', 'logging', 'capstan-system', 'kube-anything', 'cert-manager']) {
      assert.equal(isSystemNamespace(name), true, name);
    }
  });

  it('does not treat look-alike names as system namespaces', () => {
    for (const name of ['kubernetes-dashboard-demo', 'monitoring-2', 'shop', 'capstan']) {
      assert.equal(isSystemNamespace(name), false, name);
    }
  });

  it('shows every non-system namespace when tenantNamespaces is empty', () => {
    assert.equal(isVisibleNamespace('shop', []), true);
  });

  it('restricts to tenantNamespaces when set, and never lets it unhide a system namespace', () => {
    assert.equal(isVisibleNamespace('shop', ['payments']), false);
    assert.equal(isVisibleNamespace('payments', ['payments']), true);
    assert.equal(isVisibleNamespace('kube-system', ['kube-system']), false);
  });
});
