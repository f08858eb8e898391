// The logs the local control plane's KWOK serves (dev/localcluster/kwok-config.ts): KWOK takes
// the first ClusterLogs whose selector matches a pod and that has an entry for the container,
// so a scenario's namespaced logs must come before the demo's catch-all ones.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { kwokConfig, planLogs } from '../../dev/localcluster/kwok-config.ts';

const NOW = new Date('2026-11-27T12:00:00Z');

describe('planLogs', () => {
  const plan = planLogs(
    [
      { logs: [{ current: 'any container\n' }, { containers: ['checkout'], current: 'checkout\n', previous: 'crashed\n' }] },
      { namespaces: ['dq-dep-log'], logs: [{ containers: ['invoices'], current: 'up\n', previous: 'could not connect to ledger-db:5432\n' }] },
      { namespaces: ['dq-empty'], logs: [] },
    ],
    '/logs',
    NOW,
  );

  it('puts the namespaced groups first, and drops empty ones', () => {
    assert.deepEqual(plan.clusterLogs.map((c) => c.selector), [{ matchNamespaces: ['dq-dep-log'] }, {}]);
  });

  it('puts container entries before a group\'s catch-all', () => {
    assert.deepEqual(plan.clusterLogs[1]?.logs.map((l) => l.containers), [['checkout'], undefined]);
  });

  it('writes each log in CRI format, the previous one a minute earlier', () => {
    const previous = plan.clusterLogs[0]?.logs[0]?.previousLogsFile;
    assert.ok(previous !== undefined);
    assert.equal(plan.files.get(previous), '2026-11-27T11:59:00.000000000Z stdout F could not connect to ledger-db:5432\n');
    assert.equal(new Set(plan.files.keys()).size, 5, 'one file per log, none shared between groups');
  });

  it('hands KWOK one ClusterLogs per group, in that order', () => {
    const docs = parseAllDocuments(kwokConfig('/bin', plan.clusterLogs)).map((d) => d.toJS() as { kind: string; spec?: { selector?: unknown } } | null);
    assert.deepEqual(docs.filter((d) => d?.kind === 'ClusterLogs').map((d) => d?.spec?.selector), [{ matchNamespaces: ['dq-dep-log'] }, {}]);
    assert.deepEqual(docs.filter((d) => d?.kind === 'ClusterLogs').length, 2);
  });
});
