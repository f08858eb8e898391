// A node's load (domain/resources/node-load.ts): requests of the pods bound to it that have not
// ended, their usage where measured, the pod count; and the cluster's totals.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MetricsSnapshot, NodeObject, PodObject } from '../../domain/cluster/model.ts';
import { clusterLoad, nodeLoads } from '../../domain/resources/node-load.ts';
import { nodeDefaults, podDefaults } from '../support/objects.ts';

const node = (name: string, cpuM: number | null): NodeObject => ({ ...nodeDefaults, name, ready: true, createdAt: null, labels: {}, containerMetricsPath: '/metrics/cadvisor', kubelet: null, allocatable: { cpuM, memBytes: cpuM === null ? null : 1000, pods: 10 } });
function pod(name: string, nodeName: string | null, phase: string, cpuRequestM: number | null): PodObject {
  return {
    ...podDefaults, namespace: 'shop', name, phase, createdAt: null, startedAt: null, nodeName, labels: {}, workload: { kind: 'Deployment', name }, owner: null, refs: { configMaps: [], secrets: [], pvcs: [] }, ready: true, readySince: null, unschedulable: null,
    containers: [{ name: 'app', image: 'x', resources: { cpuRequestM, cpuLimitM: null, memRequestBytes: 100, memLimitBytes: null }, ports: [] }], statuses: [],
  };
}

const nodes = [node('n1', 4000), node('n2', 2000), node('n3', null)];
const pods = [pod('a', 'n1', 'Running', 500), pod('b', 'n1', 'Pending', null), pod('c', 'n1', 'Succeeded', 900), pod('d', 'n2', 'Running', 250), pod('e', null, 'Pending', 100), pod('f', 'gone', 'Running', 100)];
const metrics: MetricsSnapshot = { available: true, at: '2026-11-27T12:00:00Z', pods: new Map([['shop/a', { cpuM: 120, memBytes: 50 }]]) };

describe('nodeLoads', () => {
  const loads = nodeLoads({ nodes: () => nodes, pods: () => pods, metrics: () => metrics });
  const rows: [string, { cpu: number; mem: number; pods: number; used: { cpuM: number; memBytes: number } | null }][] = [
    ['n1: a running and b pending count, c has ended; only a is measured', { cpu: 500, mem: 200, pods: 2, used: { cpuM: 120, memBytes: 50 } }],
    ['n2: d, never measured', { cpu: 250, mem: 100, pods: 1, used: null }],
    ['n3: nothing bound', { cpu: 0, mem: 0, pods: 0, used: null }],
  ];
  for (const [name, want] of rows) {
    it(name, () => {
      const load = loads.get(name.slice(0, 2));
      assert.deepEqual(load && { cpu: load.requested.cpuM, mem: load.requested.memBytes, pods: load.pods, used: load.used }, want);
    });
  }

  it('a pod on no node or an unknown one counts nowhere, and the totals skip what a node did not report', () => {
    const total = clusterLoad(loads);
    assert.deepEqual(total, { nodes: 3, allocatable: { cpuM: 6000, memBytes: 2000, pods: 30 }, requested: { cpuM: 750, memBytes: 300 }, used: { cpuM: 120, memBytes: 50 }, pods: 3 });
  });

  it('without metrics nothing is used, rather than zero', () => {
    const dark = nodeLoads({ nodes: () => nodes, pods: () => pods, metrics: () => ({ available: false, reason: 'no metrics-server' }) });
    assert.equal(clusterLoad(dark).used, null);
  });
});
