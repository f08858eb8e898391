// The network analyzer (domain/diagnosis/analyzers/network.ts) at its boundaries, one table,
// one loop: each row is a hand-built object set judged at T0 + `after` seconds, and the exact
// set of findings it must produce (by id), with the fields that matter for each.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CacheSyncStatus, ClusterView, EndpointSliceObject, IngressClassObject, IngressObject, PodObject, SecretObject, ServiceObject, WorkloadObject } from '../../domain/cluster/model.ts';
import { SERVICE_GRACE_SECS, analyzeNetwork, NETWORK_CODES } from '../../domain/diagnosis/analyzers/network.ts';
import { diagnosisInput, type DraftFinding } from '../../domain/diagnosis/input.ts';
import { emptyCluster } from '../support/services.ts';

const T0 = new Date('2026-11-21T12:00:00Z');
const iso = (secsAfterT0: number) => new Date(T0.getTime() + secsAfterT0 * 1000).toISOString();
/** Old enough for every grace bound. */
const LATER = 3600;

function pod(name: string, labels: Record<string, string>, extra: Partial<PodObject> = {}): PodObject {
  return {
    namespace: 'shop',
    name,
    phase: 'Running',
    createdAt: iso(0),
    startedAt: iso(0),
    nodeName: 'node-1',
    labels,
    workload: { kind: 'Deployment', name: 'web' },
    owner: { kind: 'ReplicaSet', name: 'web-1' },
    refs: { configMaps: [], secrets: [], pvcs: [] }, envHosts: [],
    ready: true,
    readySince: iso(0),
    unschedulable: null,
    containers: [{ name: 'app', image: 'example/web:1', resources: { cpuRequestM: null, cpuLimitM: null, memRequestBytes: null, memLimitBytes: null }, ports: [] }],
    statuses: [],
    initContainers: [],
    initStatuses: [],
    statusReason: null,
    deletion: null,
    finalizers: [],
    nodeSelector: {},
    ...extra,
  };
}

function service(name: string, selector: Record<string, string> | null, extra: Partial<ServiceObject> = {}): ServiceObject {
  return { namespace: 'shop', name, selector, type: 'ClusterIP', ports: [{ name: 'http', port: 80, targetPort: 8080 }], createdAt: iso(0), ...extra };
}

const slice = (serviceName: string, ready: number, notReadyPods: string[]): EndpointSliceObject => ({ namespace: 'shop', name: `${serviceName}-abc`, service: serviceName, ready, notReady: notReadyPods.length, notReadyPods });

function ingress(name: string, backends: IngressObject['backends'], extra: Partial<IngressObject> = {}): IngressObject {
  return { namespace: 'shop', name, services: backends.map((b) => b.service), hosts: ['shop.example'], backends, tlsSecrets: [], ingressClassName: null, ...extra };
}

function workload(name: string, selector: Record<string, string>, extra: Partial<WorkloadObject> = {}): WorkloadObject {
  return { namespace: 'shop', name, kind: 'Deployment', desired: 2, available: 0, updated: 0, ready: 0, conditions: [], paused: false, createdAt: iso(0), selector, ...extra };
}

const secret = (name: string): SecretObject => ({ namespace: 'shop', name });
const ingressClass = (name: string): IngressClassObject => ({ name, controller: 'example.com/ingress', isDefault: false });
const forbidden = (resource: string): CacheSyncStatus => ({ resource, synced: true, failing_since: null, forbidden: true, forbidden_namespaces: [] });
/** Refused in these namespaces only (a per-namespace watch, rbac.clusterWide=false). */
const forbiddenIn = (resource: string, namespaces: string[]): CacheSyncStatus => ({ resource, synced: true, failing_since: null, forbidden: true, forbidden_namespaces: namespaces });
const unsynced = (resource: string): CacheSyncStatus => ({ resource, synced: false, failing_since: null, forbidden: false, forbidden_namespaces: [] });

interface World {
  pods?: PodObject[];
  workloads?: WorkloadObject[];
  services?: ServiceObject[];
  slices?: EndpointSliceObject[];
  ingresses?: IngressObject[];
  secrets?: SecretObject[];
  classes?: IngressClassObject[];
  sync?: CacheSyncStatus[];
}

function view(w: World): ClusterView {
  return {
    ...emptyCluster,
    pods: () => w.pods ?? [],
    workloads: () => w.workloads ?? [],
    services: () => w.services ?? [],
    ingresses: () => w.ingresses ?? [],
    secrets: () => w.secrets ?? [],
    endpointSlices: () => w.slices ?? [],
    ingressClasses: () => w.classes ?? [],
    syncStatus: () => w.sync ?? [],
  };
}

/** The fields a row checks on one finding; anything left out is not checked. */
type Want = { id: string } & Partial<Pick<DraftFinding, 'severity' | 'suspects' | 'attributes' | 'since'>> & { evidenceNodes?: string[]; evidenceSources?: string[]; summaryIncludes?: string };

const web = { app: 'web', tier: 'front' };
const healthyWeb = [pod('web-1', web), pod('web-2', web)];

const declaring = (...ports: { name: string | null; port: number }[]): Partial<PodObject> => ({ containers: [{ name: 'app', image: 'example/web:1', resources: { cpuRequestM: null, cpuLimitM: null, memRequestBytes: null, memLimitBytes: null }, ports }] });

const rows: { name: string; world: World; after?: number; want: Want[] }[] = [
  // ServiceTargetPortMissing: the selector matches, the port goes nowhere.
  {
    name: "a named targetPort none of the selected pods declares",
    world: { services: [service('web', web, { ports: [{ name: 'http', port: 80, targetPort: 'http-web' }] })], pods: [pod('web-1', web, declaring({ name: 'http', port: 8080 })), pod('web-2', web, declaring({ name: 'http', port: 8080 }))], slices: [slice('web', 0, [])] },
    want: [{ id: 'service:shop/web#ServiceTargetPortMissing', severity: 'warning', suspects: [], attributes: { port: 80, target_port: 'http-web', declared: 'http:8080' }, summaryIncludes: 'http-web' }],
  },
  { name: 'a named targetPort one selected pod declares: quiet', world: { services: [service('web', web, { ports: [{ name: 'http', port: 80, targetPort: 'http' }] })], pods: [pod('web-1', web, declaring({ name: 'http', port: 8080 })), pod('web-2', web)], slices: [slice('web', 1, [])] }, want: [] },
  {
    name: 'a numeric targetPort none exposes, where the pods declare their ports',
    world: { services: [service('web', web, { ports: [{ name: 'http', port: 80, targetPort: 8000 }] })], pods: [pod('web-1', web, declaring({ name: 'http', port: 8080 }))], slices: [slice('web', 1, [])] },
    want: [{ id: 'service:shop/web#ServiceTargetPortMissing', attributes: { port: 80, target_port: 8000, declared: 'http:8080' } }],
  },
  { name: 'a numeric targetPort with pods that declare no ports: not judged (declaring is optional)', world: { services: [service('web', web, { ports: [{ name: 'http', port: 80, targetPort: 8000 }] })], pods: healthyWeb, slices: [slice('web', 2, [])] }, want: [] },
  { name: 'no targetPort: the port itself, declared: quiet', world: { services: [service('web', web, { ports: [{ name: 'http', port: 8080, targetPort: null }] })], pods: [pod('web-1', web, declaring({ name: null, port: 8080 }))], slices: [slice('web', 1, [])] }, want: [] },
  // ServiceNoMatchingPods and its boundaries.
  { name: 'a service whose selector matches running pods: quiet', world: { services: [service('web', web)], pods: healthyWeb, slices: [slice('web', 2, [])] }, want: [] },
  {
    name: 'a selector matching nothing, service older than the grace',
    world: { services: [service('web', web)], pods: [pod('other', { app: 'db' })] },
    want: [{ id: 'service:shop/web#ServiceNoMatchingPods', severity: 'warning', suspects: [], attributes: { selector: 'app=web,tier=front' }, evidenceNodes: ['service:shop/web'], summaryIncludes: 'web' }],
  },
  { name: 'a selector matching nothing, service just under the grace: not judged yet', world: { services: [service('web', web)] }, after: SERVICE_GRACE_SECS - 1, want: [] },
  { name: 'a selector matching nothing, service exactly at the grace: judged', world: { services: [service('web', web)] }, after: SERVICE_GRACE_SECS, want: [{ id: 'service:shop/web#ServiceNoMatchingPods' }] },
  { name: 'a service with no creation time is judged (its age is unknown, not young)', world: { services: [service('web', web, { createdAt: null })] }, after: 0, want: [{ id: 'service:shop/web#ServiceNoMatchingPods' }] },
  { name: 'a service without a selector: never judged', world: { services: [service('manual', null)] }, want: [] },
  { name: 'an empty selector means no selector: never judged', world: { services: [service('manual', {})] }, want: [] },
  { name: 'an ExternalName service: never judged', world: { services: [service('ext', { app: 'x' }, { type: 'ExternalName' })] }, want: [] },
  { name: 'matching pods in another namespace do not count', world: { services: [service('web', web)], pods: [pod('web-1', web, { namespace: 'other' })] }, want: [{ id: 'service:shop/web#ServiceNoMatchingPods' }] },
  {
    name: 'pods matching all but one label are shown as near misses, pods matching fewer are not',
    world: { services: [service('web', web)], pods: [pod('web-1', { app: 'web', tier: 'back' }), pod('web-2', { app: 'web' }), pod('db-1', { app: 'db', tier: 'back' })] },
    want: [{ id: 'service:shop/web#ServiceNoMatchingPods', attributes: { selector: 'app=web,tier=front', near_misses: 2 }, evidenceNodes: ['service:shop/web', 'pod:shop/web-1', 'pod:shop/web-2'] }],
  },
  {
    name: 'a one-key selector: near misses carry the key with another value, not every pod',
    world: { services: [service('web', { app: 'web' })], pods: [pod('web-1', { app: 'webb' }), pod('db-1', { role: 'db' })] },
    want: [{ id: 'service:shop/web#ServiceNoMatchingPods', attributes: { selector: 'app=web', near_misses: 1 }, evidenceNodes: ['service:shop/web', 'pod:shop/web-1'] }],
  },
  {
    name: 'a selector matching only finished pods matches nothing, and names them',
    world: { services: [service('web', web)], pods: [pod('web-1', web, { phase: 'Succeeded', ready: false }), pod('web-2', web, { phase: 'Failed', ready: false })] },
    want: [{ id: 'service:shop/web#ServiceNoMatchingPods', evidenceNodes: ['service:shop/web', 'pod:shop/web-1', 'pod:shop/web-2'] }],
  },
  {
    name: 'a selector matching nothing suspects the workloads whose selector agrees, covering ones first',
    world: {
      services: [service('web', web)],
      workloads: [
        workload('web-partial', { app: 'web' }),
        workload('web', { app: 'web', tier: 'front', track: 'stable' }),
        workload('web-agent', { app: 'web', tier: 'front' }, { kind: 'DaemonSet' }),
        workload('web-back', { app: 'web', tier: 'back' }),
        workload('db', { app: 'db' }),
        workload('web', { app: 'web', tier: 'front' }, { namespace: 'other' }),
      ],
    },
    want: [{ id: 'service:shop/web#ServiceNoMatchingPods', suspects: ['deployment:shop/web', 'daemonset:shop/web-agent', 'deployment:shop/web-partial'] }],
  },
  // ServiceEndpointsNotReady.
  {
    name: 'every endpoint not ready: suspects the not-ready pods from the slices first',
    world: { services: [service('web', web)], pods: [pod('web-1', web, { ready: false, readySince: iso(200) }), pod('web-2', web, { ready: false, readySince: iso(100) })], slices: [slice('web', 0, ['web-2', 'web-1'])] },
    want: [{ id: 'service:shop/web#ServiceEndpointsNotReady', severity: 'warning', since: iso(200), suspects: ['pod:shop/web-2', 'pod:shop/web-1'], attributes: { selector: 'app=web,tier=front', pods: 2, not_ready_endpoints: 2 } }],
  },
  { name: 'one ready endpoint: quiet', world: { services: [service('web', web)], pods: [pod('web-1', web), pod('web-2', web, { ready: false })], slices: [slice('web', 1, ['web-2'])] }, want: [] },
  {
    name: 'slices say no endpoint ready but a pod is Ready (slice controller lagging): quiet',
    world: { services: [service('web', web)], pods: [pod('web-1', web)], slices: [slice('web', 0, ['web-1'])] },
    want: [],
  },
  {
    name: 'pods matching but none Ready and no slice at all (pods Pending, no address yet)',
    world: { services: [service('web', web)], pods: [pod('web-1', web, { phase: 'Pending', ready: false, nodeName: null, readySince: null })] },
    want: [{ id: 'service:shop/web#ServiceEndpointsNotReady', suspects: ['pod:shop/web-1'], since: null }],
  },
  {
    name: 'not-ready pods all younger than the grace (a fresh rollout): not judged yet',
    world: { services: [service('web', web)], pods: [pod('web-1', web, { ready: false, createdAt: iso(LATER - SERVICE_GRACE_SECS + 1) })], slices: [slice('web', 0, ['web-1'])] },
    want: [],
  },
  {
    name: 'a not-ready pod exactly at the grace: judged',
    world: { services: [service('web', web)], pods: [pod('web-1', web, { ready: false, createdAt: iso(LATER - SERVICE_GRACE_SECS) })], slices: [slice('web', 0, ['web-1'])] },
    want: [{ id: 'service:shop/web#ServiceEndpointsNotReady' }],
  },
  {
    name: 'EndpointSlices forbidden: the pods alone decide',
    world: { services: [service('web', web)], pods: [pod('web-1', web, { ready: false })], sync: [forbidden('endpointslices')] },
    want: [{ id: 'service:shop/web#ServiceEndpointsNotReady', suspects: ['pod:shop/web-1'] }],
  },
  // Ingress backends.
  { name: 'an ingress whose backend service and port exist: quiet', world: { services: [service('web', web)], pods: healthyWeb, ingresses: [ingress('shop', [{ service: 'web', port: 80 }])] }, want: [] },
  {
    name: 'an ingress whose backend service does not exist: its own root, absence evidence',
    world: { ingresses: [ingress('shop', [{ service: 'web', port: 80 }, { service: 'web', port: 80 }, { service: 'api', port: 'http' }])] },
    want: [{ id: 'ingress:shop/shop#IngressBackendServiceMissing', severity: 'warning', suspects: [], attributes: { service: 'web', missing: 2 }, evidenceNodes: ['service:shop/web', 'service:shop/api'], evidenceSources: ['absence', 'absence'] }],
  },
  {
    name: 'a backend port number the service does not expose',
    world: { services: [service('web', web)], pods: healthyWeb, ingresses: [ingress('shop', [{ service: 'web', port: 8080 }, { service: 'web', port: 8080 }])] },
    want: [{ id: 'ingress:shop/shop#IngressBackendPortMissing', suspects: [], attributes: { service: 'web', port: 8080 }, evidenceNodes: ['service:shop/web'] }],
  },
  { name: 'a backend port named after a service port: quiet', world: { services: [service('web', web)], pods: healthyWeb, ingresses: [ingress('shop', [{ service: 'web', port: 'http' }])] }, want: [] },
  {
    name: 'a backend port name the service does not have',
    world: { services: [service('web', web)], pods: healthyWeb, ingresses: [ingress('shop', [{ service: 'web', port: 'https' }])] },
    want: [{ id: 'ingress:shop/shop#IngressBackendPortMissing', attributes: { service: 'web', port: 'https' } }],
  },
  { name: 'a backend with no port named: the port is not judged', world: { services: [service('web', web)], pods: healthyWeb, ingresses: [ingress('shop', [{ service: 'web', port: null }])] }, want: [] },
  { name: 'a backend service in another namespace does not count', world: { services: [service('web', null, { namespace: 'other' })], ingresses: [ingress('shop', [{ service: 'web', port: 80 }])] }, want: [{ id: 'ingress:shop/shop#IngressBackendServiceMissing' }] },
  {
    name: 'a backend service that selects no pods: the ingress is an effect that suspects it',
    world: { services: [service('web', web)], ingresses: [ingress('shop', [{ service: 'web', port: 80 }])] },
    want: [{ id: 'service:shop/web#ServiceNoMatchingPods' }, { id: 'ingress:shop/shop#IngressBackendUnavailable', suspects: ['service:shop/web'], attributes: { service: 'web' } }],
  },
  // TLS secrets and the optional Secrets informer.
  { name: 'a TLS secret that exists: quiet', world: { ingresses: [ingress('shop', [], { tlsSecrets: ['shop-tls'] })], secrets: [secret('shop-tls')] }, want: [] },
  {
    name: 'a TLS secret that does not exist',
    world: { ingresses: [ingress('shop', [], { tlsSecrets: ['shop-tls'] })], secrets: [secret('other')] },
    want: [{ id: 'ingress:shop/shop#IngressTlsSecretMissing', attributes: { secret: 'shop-tls', missing: 1 }, evidenceNodes: ['secret:shop/shop-tls'], evidenceSources: ['absence'] }],
  },
  { name: 'Secrets forbidden: nothing said about TLS', world: { ingresses: [ingress('shop', [], { tlsSecrets: ['shop-tls'] })], sync: [forbidden('secrets')] }, want: [] },
  {
    name: "Secrets refused in another namespace only: this namespace's TLS is still judged",
    world: { ingresses: [ingress('shop', [], { tlsSecrets: ['shop-tls'] })], sync: [forbiddenIn('secrets', ['payments'])] },
    want: [{ id: 'ingress:shop/shop#IngressTlsSecretMissing' }],
  },
  { name: "Secrets refused in this ingress's namespace: nothing said about TLS", world: { ingresses: [ingress('shop', [], { tlsSecrets: ['shop-tls'] })], sync: [forbiddenIn('secrets', ['shop'])] }, want: [] },
  { name: 'Secrets not synced yet: nothing said about TLS', world: { ingresses: [ingress('shop', [], { tlsSecrets: ['shop-tls'] })], sync: [unsynced('secrets')] }, want: [] },
  {
    name: 'another informer forbidden does not silence TLS',
    world: { ingresses: [ingress('shop', [], { tlsSecrets: ['shop-tls'] })], sync: [forbidden('ingressclasses')] },
    want: [{ id: 'ingress:shop/shop#IngressTlsSecretMissing' }],
  },
  // IngressClass.
  { name: 'an ingress class that exists: quiet', world: { ingresses: [ingress('shop', [], { ingressClassName: 'nginx' })], classes: [ingressClass('nginx')] }, want: [] },
  {
    name: 'an ingress class that does not exist',
    world: { ingresses: [ingress('shop', [], { ingressClassName: 'nginx' })], classes: [ingressClass('traefik')] },
    want: [{ id: 'ingress:shop/shop#IngressClassMissing', attributes: { ingress_class: 'nginx' }, evidenceNodes: ['ingressclass:nginx'], evidenceSources: ['absence'] }],
  },
  { name: 'IngressClasses forbidden: the class is not judged', world: { ingresses: [ingress('shop', [], { ingressClassName: 'nginx' })], sync: [forbidden('ingressclasses')] }, want: [] },
  { name: 'no ingressClassName: the class is not judged', world: { ingresses: [ingress('shop', [])] }, want: [] },
  {
    name: 'several problems on one ingress: one finding per code',
    world: { services: [service('web', web)], pods: healthyWeb, ingresses: [ingress('shop', [{ service: 'web', port: 81 }, { service: 'api', port: 80 }], { tlsSecrets: ['tls'], ingressClassName: 'nginx' })] },
    want: [{ id: 'ingress:shop/shop#IngressBackendServiceMissing' }, { id: 'ingress:shop/shop#IngressBackendPortMissing' }, { id: 'ingress:shop/shop#IngressTlsSecretMissing' }, { id: 'ingress:shop/shop#IngressClassMissing' }],
  },
];

describe('network analyzer', () => {
  for (const row of rows) {
    it(row.name, () => {
      const now = new Date(T0.getTime() + (row.after ?? LATER) * 1000);
      const found = analyzeNetwork(diagnosisInput(view(row.world), now));
      assert.deepEqual(found.map((f) => f.id).sort(), row.want.map((w) => w.id).sort());
      for (const want of row.want) {
        const f = found.find((x) => x.id === want.id);
        assert.ok(f);
        assert.equal(f.id, `${f.object}#${f.code}`);
        if (want.severity) assert.equal(f.severity, want.severity);
        if (want.suspects) assert.deepEqual(f.suspects, want.suspects);
        if (want.since !== undefined) assert.equal(f.since, want.since);
        if (want.attributes) assert.deepEqual(f.attributes, want.attributes);
        if (want.evidenceNodes) assert.deepEqual(f.evidence.map((e) => e.node_id), want.evidenceNodes);
        if (want.evidenceSources) assert.deepEqual(f.evidence.map((e) => e.source), want.evidenceSources);
        if (want.summaryIncludes) assert.ok(f.summary.includes(want.summaryIncludes), f.summary);
        assert.ok(f.evidence.every((e) => e.link === null));
      }
    });
  }

  it('declares every code it emits, each with a rule', () => {
    assert.deepEqual(NETWORK_CODES.map((c) => c.code).sort(), [
      'IngressBackendPortMissing',
      'IngressBackendServiceMissing',
      'IngressBackendUnavailable',
      'IngressClassMissing',
      'IngressTlsSecretMissing',
      'ServiceEndpointsNotReady',
      'ServiceNoMatchingPods',
      'ServiceTargetPortMissing',
    ]);
    for (const spec of NETWORK_CODES) assert.ok(spec.rule.length > 20, spec.code);
  });
});
