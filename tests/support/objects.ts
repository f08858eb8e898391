// Defaults for the informer objects' fields a test does not care about, so hand-built
// fixtures name only what they test.
import type { ControllerObject, EventObject, IngressObject, NodeObject, PodObject, PvcObject, PvObject, ServiceObject, WorkloadObject } from '../../domain/cluster/model.ts';

export const podDefaults: Pick<PodObject, 'initContainers' | 'initStatuses' | 'statusReason' | 'deletion' | 'finalizers' | 'nodeSelector' | 'envHosts'> = {
  envHosts: [],
  initContainers: [],
  initStatuses: [],
  statusReason: null,
  deletion: null,
  finalizers: [],
  nodeSelector: {},
};

const NO_RESOURCES = { cpuM: null, memBytes: null, pods: null };
export const nodeDefaults: Pick<NodeObject, 'conditions' | 'taints' | 'unschedulable' | 'capacity' | 'allocatable'> = { conditions: [], taints: [], unschedulable: false, capacity: NO_RESOURCES, allocatable: NO_RESOURCES };

export const workloadDefaults: Pick<WorkloadObject, 'updated' | 'ready' | 'conditions' | 'paused' | 'createdAt' | 'selector'> = {
  updated: 0,
  ready: 0,
  conditions: [],
  paused: false,
  createdAt: null,
  selector: {},
};

export const controllerDefaults: Omit<ControllerObject, 'namespace' | 'name' | 'kind' | 'owner'> = {
  createdAt: null,
  conditions: [],
  desired: 1,
  ready: 0,
  available: 0,
  revision: null,
  job: null,
  cronJob: null,
};

export const serviceDefaults: Pick<ServiceObject, 'type' | 'ports' | 'createdAt'> = { type: 'ClusterIP', ports: [], createdAt: null };
export const pvcDefaults: Pick<PvcObject, 'storageClass' | 'createdAt' | 'requestBytes' | 'accessModes'> = { storageClass: null, createdAt: null, requestBytes: null, accessModes: [] };
export const pvDefaults: Pick<PvObject, 'reason' | 'message' | 'capacityBytes' | 'accessModes' | 'reclaimPolicy'> = { reason: null, message: null, capacityBytes: null, accessModes: [], reclaimPolicy: 'Retain' };
export const ingressDefaults: Pick<IngressObject, 'backends' | 'tlsSecrets' | 'ingressClassName'> = { backends: [], tlsSecrets: [], ingressClassName: null };
export const eventDefaults: Pick<EventObject, 'involvedNamespace' | 'source'> = { involvedNamespace: '', source: '' };
