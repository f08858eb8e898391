// The slimmers (runtime/kube/slim*.ts) on the fields the diagnosis reads, from objects written
// as the API server returns them (managedFields, uids, annotations and `null` lists included),
// one table per family: each row is a raw object and either the whole slimmed object (so
// anything kept by mistake fails too) or, for boundaries, the fields that row is about.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { slimEndpointSlice, slimHpa, slimIngressClass, slimLease, slimLimitRange, slimPdb, slimResourceQuota, slimStorageClass } from '../../runtime/kube/slim-policy.ts';
import { slimIngress, slimPv, slimPvc, slimService } from '../../runtime/kube/slim.ts';
import { GI, meta, runTable, T } from '../support/slim-table.ts';

describe('slimPvc and slimPv: classes, sizes, reclaim policy', () => {
  runTable(slimPvc, [
    {
      name: 'a Pending claim asking a class',
      raw: {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: meta('data-db-0', 'shop', { annotations: { 'volume.beta.kubernetes.io/storage-provisioner': 'csi.example.com' }, finalizers: ['kubernetes.io/pvc-protection'] }),
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } }, storageClassName: 'fast', volumeMode: 'Filesystem' },
        status: { phase: 'Pending' },
      },
      want: { namespace: 'shop', name: 'data-db-0', phase: 'Pending', volumeName: null, storageClass: 'fast', createdAt: T, requestBytes: 10 * GI, accessModes: ['ReadWriteOnce'] },
    },
    {
      name: 'a Bound claim names its volume',
      raw: { metadata: { name: 'c', namespace: 'shop' }, spec: { volumeName: 'pvc-123', storageClassName: 'fast', resources: { requests: { storage: '500M' } } }, status: { phase: 'Bound', capacity: { storage: '500M' } } },
      fields: { phase: 'Bound', volumeName: 'pvc-123', requestBytes: 500_000_000 },
    },
    { name: 'boundary: storageClassName "" means no class and stays ""', raw: { metadata: { name: 'c', namespace: 'shop' }, spec: { storageClassName: '' } }, fields: { storageClass: '' } },
    { name: 'boundary: no storageClassName means the default class: null', raw: { metadata: { name: 'c', namespace: 'shop' }, spec: {} }, fields: { storageClass: null, volumeName: null } },
    { name: 'boundary: a storageClassName of null (as some clients write it) is null', raw: { metadata: { name: 'c', namespace: 'shop' }, spec: { storageClassName: null } }, fields: { storageClass: null } },
    { name: 'boundary: an empty volumeName is no volume', raw: { metadata: { name: 'c', namespace: 'shop' }, spec: { volumeName: '' } }, fields: { volumeName: null } },
    { name: 'boundary: no status is Pending, no request is null, no access modes', raw: { metadata: { name: 'c', namespace: 'shop' } }, fields: { phase: 'Pending', requestBytes: null, accessModes: [] } },
    { name: 'boundary: a request that is not a quantity is null', raw: { metadata: { name: 'c', namespace: 'shop' }, spec: { resources: { requests: { storage: '10 GB' } } } }, fields: { requestBytes: null } },
  ]);
  runTable(slimPv, [
    {
      name: 'a Released volume keeps its reclaim policy, capacity and former claim',
      raw: {
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: meta('pv-local-1', null, { finalizers: ['kubernetes.io/pv-protection'] }),
        spec: {
          capacity: { storage: '5Gi' },
          accessModes: ['ReadWriteOnce', 'ReadOnlyMany'],
          persistentVolumeReclaimPolicy: 'Retain',
          storageClassName: 'local',
          claimRef: { kind: 'PersistentVolumeClaim', namespace: 'shop', name: 'data-db-0', uid: 'u', apiVersion: 'v1', resourceVersion: '1' },
          hostPath: { path: '/data/1', type: '' },
          volumeMode: 'Filesystem',
        },
        status: { phase: 'Released', lastPhaseTransitionTime: T },
      },
      want: {
        name: 'pv-local-1',
        phase: 'Released',
        claim: { namespace: 'shop', name: 'data-db-0' },
        storageClass: 'local',
        reason: null,
        message: null,
        capacityBytes: 5 * GI,
        accessModes: ['ReadWriteOnce', 'ReadOnlyMany'],
        reclaimPolicy: 'Retain',
      },
    },
    {
      name: 'a Failed volume keeps the recycler reason and message',
      raw: { metadata: { name: 'pv-2' }, spec: { persistentVolumeReclaimPolicy: 'Recycle', capacity: { storage: '1Gi' } }, status: { phase: 'Failed', reason: 'VolumeFailedRecycle', message: 'recycle failed: pod "recycler-for-pv-2" failed' } },
      fields: { phase: 'Failed', reason: 'VolumeFailedRecycle', message: 'recycle failed: pod "recycler-for-pv-2" failed', reclaimPolicy: 'Recycle', claim: null },
    },
    { name: 'boundary: storageClassName "" is no class (null); no policy reads as Retain', raw: { metadata: { name: 'pv' }, spec: { storageClassName: '' } }, fields: { storageClass: null, reclaimPolicy: 'Retain', capacityBytes: null, accessModes: [], phase: 'Pending' } },
    { name: 'boundary: a claimRef without a namespace is no claim', raw: { metadata: { name: 'pv' }, spec: { claimRef: { name: 'c' } } }, fields: { claim: null } },
  ]);
});

describe('slimService and slimIngress: ports, backends, TLS, class', () => {
  runTable(slimService, [
    {
      name: 'a NodePort Service with a named and a numeric target port',
      raw: {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: meta('api', 'shop', { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"big":"json"}' } }),
        spec: {
          type: 'NodePort',
          selector: { app: 'api' },
          clusterIP: '10.96.0.12',
          clusterIPs: ['10.96.0.12'],
          ports: [
            { name: 'http', protocol: 'TCP', port: 80, targetPort: 'http', nodePort: 30080 },
            { name: 'metrics', protocol: 'TCP', port: 9090, targetPort: 9090, nodePort: 30090 },
          ],
          sessionAffinity: 'None',
        },
        status: { loadBalancer: {} },
      },
      want: {
        namespace: 'shop',
        name: 'api',
        selector: { app: 'api' },
        type: 'NodePort',
        ports: [
          { name: 'http', port: 80, targetPort: 'http' },
          { name: 'metrics', port: 9090, targetPort: 9090 },
        ],
        createdAt: T,
      },
    },
    {
      name: 'an ExternalName Service has no selector and no ports',
      raw: { metadata: { name: 'db', namespace: 'shop' }, spec: { type: 'ExternalName', externalName: 'db.example.com' } },
      fields: { selector: null, type: 'ExternalName', ports: [] },
    },
    { name: 'boundary: an empty selector is no selector; no type is ClusterIP', raw: { metadata: { name: 's', namespace: 'shop' }, spec: { selector: {}, ports: [{ port: 8080 }] } }, fields: { selector: null, type: 'ClusterIP', ports: [{ name: null, port: 8080, targetPort: null }] } },
  ]);
  runTable(slimIngress, [
    {
      name: 'an Ingress with a class, a default backend, duplicate paths, a named port, TLS and a resource backend',
      raw: {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'Ingress',
        metadata: meta('web', 'shop', { annotations: { 'nginx.ingress.kubernetes.io/rewrite-target': '/' } }),
        spec: {
          ingressClassName: 'nginx',
          defaultBackend: { service: { name: 'fallback', port: { number: 80 } } },
          tls: [{ hosts: ['shop.example.com'], secretName: 'shop-tls' }, { hosts: ['api.example.com'], secretName: 'shop-tls' }, { hosts: ['x.example.com'] }],
          rules: [
            {
              host: 'shop.example.com',
              http: {
                paths: [
                  { path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 8080 } } } },
                  { path: '/static', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 8080 } } } },
                  { path: '/api', pathType: 'Prefix', backend: { service: { name: 'api', port: { name: 'http' } } } },
                  { path: '/bucket', pathType: 'Prefix', backend: { resource: { apiGroup: 'k8s.example.com', kind: 'StorageBucket', name: 'assets' } } },
                ],
              },
            },
            { http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 9090 } } } }] } },
          ],
        },
        status: { loadBalancer: { ingress: [{ ip: '192.0.2.10' }] } },
      },
      want: {
        namespace: 'shop',
        name: 'web',
        services: ['fallback', 'web', 'api'],
        hosts: ['shop.example.com'],
        backends: [
          { service: 'fallback', port: 80 },
          { service: 'web', port: 8080 },
          { service: 'api', port: 'http' },
          { service: 'web', port: 9090 },
        ],
        tlsSecrets: ['shop-tls'],
        ingressClassName: 'nginx',
      },
    },
    {
      name: 'boundary: no spec: nothing to check, no class (the default class or the annotation applies)',
      raw: { metadata: { name: 'i', namespace: 'shop', annotations: { 'kubernetes.io/ingress.class': 'nginx' } } },
      want: { namespace: 'shop', name: 'i', services: [], hosts: [], backends: [], tlsSecrets: [], ingressClassName: null },
    },
    { name: 'boundary: a backend without a port keeps a null port', raw: { metadata: { name: 'i', namespace: 'shop' }, spec: { defaultBackend: { service: { name: 'web' } } } }, fields: { backends: [{ service: 'web', port: null }] } },
  ]);
});

describe('slimEndpointSlice: ready, not ready and unset conditions', () => {
  runTable(slimEndpointSlice, [
    {
      name: 'ready, not-ready, terminating and unset endpoints of one Service',
      raw: {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: meta('api-x7k2p', 'shop', {
          generateName: 'api-',
          labels: { 'kubernetes.io/service-name': 'api', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' },
          ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name: 'api', controller: true }],
        }),
        addressType: 'IPv4',
        endpoints: [
          { addresses: ['10.244.1.5'], conditions: { ready: true, serving: true, terminating: false }, nodeName: 'kwok-node-1', targetRef: { kind: 'Pod', namespace: 'shop', name: 'api-1', uid: 'u1' } },
          { addresses: ['10.244.1.6'], conditions: { ready: false, serving: false, terminating: false }, nodeName: 'kwok-node-1', targetRef: { kind: 'Pod', namespace: 'shop', name: 'api-2', uid: 'u2' } },
          { addresses: ['10.244.1.7'], conditions: { ready: false, serving: true, terminating: true }, targetRef: { kind: 'Pod', namespace: 'shop', name: 'api-3', uid: 'u3' } },
          { addresses: ['10.244.1.8'], conditions: {}, targetRef: { kind: 'Pod', namespace: 'shop', name: 'api-4', uid: 'u4' } },
          { addresses: ['10.0.9.9'] },
          { addresses: ['10.0.9.10'], conditions: { ready: false } },
        ],
        ports: [{ name: '', protocol: 'TCP', port: 8080 }],
      },
      want: { namespace: 'shop', name: 'api-x7k2p', service: 'api', ready: 3, notReady: 3, notReadyPods: ['api-2', 'api-3'] },
    },
    {
      name: 'boundary: a slice of a Service with no endpoints, as the API writes it (endpoints: null)',
      raw: { metadata: { name: 'idle-abcde', namespace: 'shop', labels: { 'kubernetes.io/service-name': 'idle' } }, addressType: 'IPv4', endpoints: null, ports: null },
      want: { namespace: 'shop', name: 'idle-abcde', service: 'idle', ready: 0, notReady: 0, notReadyPods: [] },
    },
    { name: 'boundary: a slice without the service-name label belongs to no Service', raw: { metadata: { name: 'manual', namespace: 'shop' }, endpoints: [] }, fields: { service: null } },
  ]);
});

describe('slimStorageClass and slimIngressClass: the default annotations', () => {
  runTable(slimStorageClass, [
    {
      name: 'the default StorageClass, waiting for its first consumer',
      raw: {
        apiVersion: 'storage.k8s.io/v1',
        kind: 'StorageClass',
        metadata: meta('standard', null, { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } }),
        provisioner: 'rancher.io/local-path',
        reclaimPolicy: 'Delete',
        volumeBindingMode: 'WaitForFirstConsumer',
        parameters: { type: 'ssd' },
      },
      want: { name: 'standard', provisioner: 'rancher.io/local-path', isDefault: true, bindingMode: 'WaitForFirstConsumer' },
    },
    { name: 'the beta default annotation counts too', raw: { metadata: { name: 'old', annotations: { 'storageclass.beta.kubernetes.io/is-default-class': 'true' } }, provisioner: 'p' }, fields: { isDefault: true } },
    { name: 'boundary: "false" is not default; no binding mode is Immediate', raw: { metadata: { name: 'fast', annotations: { 'storageclass.kubernetes.io/is-default-class': 'false' } }, provisioner: 'p' }, fields: { isDefault: false, bindingMode: 'Immediate' } },
    { name: 'boundary: "True" is not "true" (the API server compares exactly)', raw: { metadata: { name: 'fast', annotations: { 'storageclass.kubernetes.io/is-default-class': 'True' } } }, fields: { isDefault: false, provisioner: '' } },
  ]);
  runTable(slimIngressClass, [
    {
      name: 'the default IngressClass',
      raw: { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: meta('nginx', null, { annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } }), spec: { controller: 'k8s.io/ingress-nginx' } },
      want: { name: 'nginx', controller: 'k8s.io/ingress-nginx', isDefault: true },
    },
    { name: 'boundary: no spec, no annotation', raw: { metadata: { name: 'x' } }, want: { name: 'x', controller: '', isDefault: false } },
  ]);
});

describe('slimLease: a node heartbeat', () => {
  runTable(slimLease, [
    {
      name: 'a kube-node-lease Lease with a microsecond renew time',
      raw: {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: meta('kwok-node-1', 'kube-node-lease', { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'kwok-node-1', uid: 'u' }] }),
        spec: { holderIdentity: 'kwok-node-1', leaseDurationSeconds: 40, renewTime: '2026-11-21T11:59:58.123456Z' },
      },
      want: { name: 'kwok-node-1', renewTime: '2026-11-21T11:59:58.123456Z', durationSecs: 40 },
    },
    { name: 'boundary: a Lease never renewed', raw: { metadata: { name: 'n', namespace: 'kube-node-lease' }, spec: { holderIdentity: 'n' } }, want: { name: 'n', renewTime: null, durationSecs: null } },
  ]);
});

describe('slimResourceQuota and slimLimitRange', () => {
  runTable(slimResourceQuota, [
    {
      name: 'a full quota: hard and used from its status',
      raw: {
        apiVersion: 'v1',
        kind: 'ResourceQuota',
        metadata: meta('pods', 'shop'),
        spec: { hard: { pods: '2', 'requests.cpu': '1' } },
        status: { hard: { pods: '2', 'requests.cpu': '1' }, used: { pods: '2', 'requests.cpu': '500m' } },
      },
      want: { namespace: 'shop', name: 'pods', hard: { pods: '2', 'requests.cpu': '1' }, used: { pods: '2', 'requests.cpu': '500m' } },
    },
    {
      name: 'the status (what admission enforces) wins over a spec just edited',
      raw: { metadata: { name: 'q', namespace: 'shop' }, spec: { hard: { pods: '10' } }, status: { hard: { pods: '2' }, used: { pods: '2' } } },
      fields: { hard: { pods: '2' } },
    },
    { name: 'boundary: a quota just created has no status yet: hard from the spec, nothing used', raw: { metadata: { name: 'q', namespace: 'shop' }, spec: { hard: { pods: '2' } } }, fields: { hard: { pods: '2' }, used: {} } },
  ]);
  runTable(slimLimitRange, [
    {
      name: 'a LimitRange keeps min and max per type, not its defaults',
      raw: {
        apiVersion: 'v1',
        kind: 'LimitRange',
        metadata: meta('limits', 'shop'),
        spec: {
          limits: [
            { type: 'Container', max: { cpu: '1', memory: '512Mi' }, min: { cpu: '50m' }, default: { cpu: '500m' }, defaultRequest: { cpu: '100m' }, maxLimitRequestRatio: { cpu: '4' } },
            { type: 'PersistentVolumeClaim', max: { storage: '5Gi' } },
          ],
        },
      },
      want: {
        namespace: 'shop',
        name: 'limits',
        limits: [
          { type: 'Container', max: { cpu: '1', memory: '512Mi' }, min: { cpu: '50m' } },
          { type: 'PersistentVolumeClaim', max: { storage: '5Gi' }, min: {} },
        ],
      },
    },
    { name: 'boundary: no limits; a limit without a type', raw: { metadata: { name: 'l', namespace: 'shop' }, spec: { limits: [{}] } }, fields: { limits: [{ type: '', max: {}, min: {} }] } },
    { name: 'boundary: no spec', raw: { metadata: { name: 'l', namespace: 'shop' } }, fields: { limits: [] } },
  ]);
});

describe('slimHpa (autoscaling/v2) and slimPdb', () => {
  runTable(slimHpa, [
    {
      name: 'an HPA that cannot read its metric',
      raw: {
        apiVersion: 'autoscaling/v2',
        kind: 'HorizontalPodAutoscaler',
        metadata: meta('api', 'shop'),
        spec: {
          scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'api' },
          minReplicas: 2,
          maxReplicas: 10,
          metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }],
        },
        status: {
          currentReplicas: 2,
          desiredReplicas: 2,
          currentMetrics: null,
          conditions: [
            { type: 'AbleToScale', status: 'True', lastTransitionTime: T, reason: 'SucceededGetScale', message: 'the HPA controller was able to get the target\'s current scale' },
            { type: 'ScalingActive', status: 'False', lastTransitionTime: T, reason: 'FailedGetResourceMetric', message: 'the HPA was unable to compute the replica count: failed to get cpu utilization' },
          ],
        },
      },
      want: {
        namespace: 'shop',
        name: 'api',
        target: { kind: 'Deployment', name: 'api' },
        minReplicas: 2,
        maxReplicas: 10,
        currentReplicas: 2,
        desiredReplicas: 2,
        conditions: [
          { type: 'AbleToScale', status: 'True', reason: 'SucceededGetScale', message: 'the HPA controller was able to get the target\'s current scale', lastTransition: T },
          { type: 'ScalingActive', status: 'False', reason: 'FailedGetResourceMetric', message: 'the HPA was unable to compute the replica count: failed to get cpu utilization', lastTransition: T },
        ],
        createdAt: T,
      },
    },
    {
      name: 'boundary: no minReplicas is 1 (the API default); no status yet',
      raw: { metadata: { name: 'h', namespace: 'shop' }, spec: { scaleTargetRef: { kind: 'StatefulSet', name: 'db' }, maxReplicas: 3 } },
      fields: { minReplicas: 1, maxReplicas: 3, currentReplicas: 0, desiredReplicas: 0, conditions: [], target: { kind: 'StatefulSet', name: 'db' } },
    },
  ]);
  runTable(slimPdb, [
    {
      name: 'a PDB that allows no disruption',
      raw: {
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        metadata: meta('api', 'shop'),
        spec: { minAvailable: 3, selector: { matchLabels: { app: 'api' } } },
        status: {
          observedGeneration: 1,
          disruptionsAllowed: 0,
          currentHealthy: 2,
          desiredHealthy: 3,
          expectedPods: 4,
          conditions: [{ type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods', message: '', lastTransitionTime: T, observedGeneration: 1 }],
        },
      },
      want: { namespace: 'shop', name: 'api', selector: { app: 'api' }, currentHealthy: 2, desiredHealthy: 3, disruptionsAllowed: 0, expectedPods: 4, createdAt: T, observedGeneration: 1 },
    },
    { name: 'boundary: no selector, no status', raw: { metadata: { name: 'p', namespace: 'shop' }, spec: { maxUnavailable: 1 } }, want: { namespace: 'shop', name: 'p', selector: {}, currentHealthy: 0, desiredHealthy: 0, disruptionsAllowed: 0, expectedPods: 0, createdAt: null, observedGeneration: null } },
  ]);
});

describe('namespaced policy kinds without a namespace are dropped', () => {
  for (const [name, slim] of [
    ['EndpointSlice', slimEndpointSlice],
    ['ResourceQuota', slimResourceQuota],
    ['LimitRange', slimLimitRange],
    ['HPA', slimHpa],
    ['PDB', slimPdb],
  ] as const) {
    it(name, () => assert.equal(slim({ metadata: { name: 'x' } }), null));
  }
  for (const [name, slim] of [
    ['StorageClass', slimStorageClass],
    ['IngressClass', slimIngressClass],
    ['Lease', slimLease],
  ] as const) {
    it(`${name} without a name`, () => assert.equal(slim({ metadata: {} }), null));
  }
});
