// One meaning of a pod's request and limit, whichever route shows it (Kubernetes' own): a
// request is the sum over containers with an unset one counting 0, null only when no
// container sets it; a limit is the sum only when every container sets it, else null (one
// unbounded container leaves the pod unbounded).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterView, ContainerResources, PodObject } from '../../domain/cluster/model.ts';
import { testApp } from '../support/app.ts';
import { emptyCluster } from '../support/services.ts';
import { podDefaults } from '../support/objects.ts';

const MI = 1024 * 1024;
const unset: ContainerResources = { cpuRequestM: null, cpuLimitM: null, memRequestBytes: null, memLimitBytes: null };
const full = (cpuRequestM: number, cpuLimitM: number, memRequestBytes: number, memLimitBytes: number): ContainerResources => ({ cpuRequestM, cpuLimitM, memRequestBytes, memLimitBytes });

interface Want {
  cpuRequestM: number | null;
  cpuLimitM: number | null;
  memRequestBytes: number | null;
  memLimitBytes: number | null;
}

const rows: { name: string; containers: ContainerResources[]; want: Want }[] = [
  { name: 'one container, everything set', containers: [full(100, 500, 64 * MI, 128 * MI)], want: { cpuRequestM: 100, cpuLimitM: 500, memRequestBytes: 64 * MI, memLimitBytes: 128 * MI } },
  { name: 'two containers, everything set', containers: [full(100, 500, 64 * MI, 128 * MI), full(50, 100, 32 * MI, 64 * MI)], want: { cpuRequestM: 150, cpuLimitM: 600, memRequestBytes: 96 * MI, memLimitBytes: 192 * MI } },
  { name: 'a sidecar that sets nothing', containers: [full(100, 500, 64 * MI, 128 * MI), unset], want: { cpuRequestM: 100, cpuLimitM: null, memRequestBytes: 64 * MI, memLimitBytes: null } },
  { name: 'no container sets anything', containers: [unset, unset], want: { cpuRequestM: null, cpuLimitM: null, memRequestBytes: null, memLimitBytes: null } },
  {
    name: 'requests on one container, memory limits on both',
    containers: [
      { cpuRequestM: 200, cpuLimitM: null, memRequestBytes: null, memLimitBytes: 256 * MI },
      { cpuRequestM: null, cpuLimitM: null, memRequestBytes: 16 * MI, memLimitBytes: 64 * MI },
    ],
    want: { cpuRequestM: 200, cpuLimitM: null, memRequestBytes: 16 * MI, memLimitBytes: 320 * MI },
  },
  // The API server defaults a request to the limit when only the limit is set, so a slimmed
  // pod carries both; a zero request is set (0), not unset.
  { name: 'a zero request is set', containers: [full(0, 100, 0, 64 * MI)], want: { cpuRequestM: 0, cpuLimitM: 100, memRequestBytes: 0, memLimitBytes: 64 * MI } },
  { name: 'no containers at all', containers: [], want: { cpuRequestM: null, cpuLimitM: null, memRequestBytes: null, memLimitBytes: null } },
];

function pod(name: string, containers: ContainerResources[]): PodObject {
  return { ...podDefaults,
    namespace: 'shop',
    name,
    phase: 'Running',
    createdAt: '2026-11-21T11:00:00Z',
    startedAt: '2026-11-21T11:00:00Z',
    nodeName: 'kwok-node-1',
    labels: { app: 'web' },
    workload: { kind: 'Deployment', name: 'web' },
    owner: null,
    refs: { configMaps: [], secrets: [], pvcs: [] },
    ready: true,
    readySince: null,
    unschedulable: null,
    containers: containers.map((resources, i) => ({ name: `c${i}`, image: 'example/app:1', resources, ports: [] })),
    statuses: [],
  };
}

const pods = rows.map((row, i) => pod(`pod-${i}`, row.containers));
const cluster: ClusterView = {
  ...emptyCluster,
  namespaces: () => [{ name: 'shop', phase: 'Active', createdAt: '2026-11-21T10:00:00Z', labels: {} }],
  pods: () => pods,
};

describe("a pod's requests and limits", () => {
  it('agree between the pods list, the application members and the incident detail, with Kubernetes meaning', async () => {
    const h = await testApp({ cluster });
    const admin = await h.signIn();
    const list = await h.call('GET', '/namespaces/shop/pods', { cookie: admin });
    assert.equal(list.status, 200, list.text);
    const listed = new Map((list.body.pods as { name: string; cpu_request_m: number | null; cpu_limit_m: number | null; mem_request_bytes: number | null; mem_limit_bytes: number | null }[]).map((p) => [p.name, p]));
    const created = await h.call('POST', '/apps', { cookie: admin, body: { name: 'web', namespaces: ['shop'], selector: { match_labels: { app: 'web' } } } });
    const metrics = await h.call('GET', `/apps/${String(created.body.id)}/metrics`, { cookie: admin });
    assert.equal(metrics.status, 200, metrics.text);
    type Member = { pod: string; cpu_millicores_request: number | null; cpu_millicores_limit: number | null; mem_bytes_request: number | null; mem_bytes_limit: number | null };
    const members = new Map((metrics.body.members as Member[]).map((m) => [m.pod, m]));

    for (const [i, row] of rows.entries()) {
      const name = `pod-${i}`;
      const p = listed.get(name);
      const m = members.get(name);
      const detail = await h.call('GET', `/incidents/shop/${name}`, { cookie: admin });
      assert.equal(detail.status, 200, detail.text);
      const r = detail.body.resources as { cpu_request_m: number | null; cpu_limit_m: number | null; mem_request_bytes: number | null; mem_limit_bytes: number | null };
      assert.deepEqual(
        {
          podsList: p && { cpuRequestM: p.cpu_request_m, cpuLimitM: p.cpu_limit_m, memRequestBytes: p.mem_request_bytes, memLimitBytes: p.mem_limit_bytes },
          appMembers: m && { cpuRequestM: m.cpu_millicores_request, cpuLimitM: m.cpu_millicores_limit, memRequestBytes: m.mem_bytes_request, memLimitBytes: m.mem_bytes_limit },
          incidentDetail: { cpuRequestM: r.cpu_request_m, cpuLimitM: r.cpu_limit_m, memRequestBytes: r.mem_request_bytes, memLimitBytes: r.mem_limit_bytes },
        },
        { podsList: row.want, appMembers: row.want, incidentDetail: row.want },
        row.name,
      );
    }
  });
});
