// Pods slimmed to what health, incidents and inventory read.
import type { ContainerPort, ContainerStatus, EnvHost, PodObject, Termination } from '../../domain/cluster/model.ts';
import { hostsNamed } from '../../domain/diagnosis/host-names.ts';
import { bytes, millicores } from '../../domain/resources/quantity.ts';
import { intern, internOrNull } from './intern.ts';
import { slimSecuritySpec } from './slim-security.ts';

interface RawTermination {
  exitCode?: number;
  reason?: string;
  signal?: number;
  startedAt?: string;
  finishedAt?: string;
}

interface RawContainerState {
  waiting?: { reason?: string; message?: string };
  running?: { startedAt?: string };
  terminated?: RawTermination;
}

const NO_PORTS: readonly ContainerPort[] = Object.freeze([]);
const NO_ENV_HOSTS: readonly EnvHost[] = Object.freeze([]);
/** At most this many environment hosts are kept per pod. */
const MAX_ENV_HOSTS = 8;

/** The hosts the containers' literal env values name; the values themselves are not kept. */
function envHostsOf(pod: RawPod): readonly EnvHost[] {
  const out: EnvHost[] = [];
  for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
    for (const e of c.env ?? []) {
      if (typeof e.value !== 'string' || e.value === '' || e.name === undefined) continue;
      for (const host of hostsNamed(e.value)) {
        if (out.length >= MAX_ENV_HOSTS) return out;
        out.push({ container: intern(c.name ?? ''), variable: intern(e.name), host: intern(host) });
      }
    }
  }
  return out.length === 0 ? NO_ENV_HOSTS : out;
}

interface RawContainer {
  name?: string;
  image?: string;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  ports?: { name?: string; containerPort?: number }[];
  envFrom?: { configMapRef?: { name?: string }; secretRef?: { name?: string } }[];
  env?: { name?: string; value?: string; valueFrom?: { configMapKeyRef?: { name?: string }; secretKeyRef?: { name?: string } } }[];
}

/** The ConfigMaps, Secrets and claims a pod reads, by name: volumes, projected volumes, envFrom and env. */
function podRefs(pod: RawPod): PodObject['refs'] {
  const configMaps = new Set<string>();
  const secrets = new Set<string>();
  const pvcs = new Set<string>();
  const add = (set: Set<string>, name: string | undefined) => {
    if (name) set.add(intern(name));
  };
  for (const v of pod.spec?.volumes ?? []) {
    add(configMaps, v.configMap?.name);
    add(secrets, v.secret?.secretName);
    add(pvcs, v.persistentVolumeClaim?.claimName);
    for (const source of v.projected?.sources ?? []) {
      add(configMaps, source.configMap?.name);
      add(secrets, source.secret?.name);
    }
  }
  for (const c of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])]) {
    for (const e of c.envFrom ?? []) {
      add(configMaps, e.configMapRef?.name);
      add(secrets, e.secretRef?.name);
    }
    for (const e of c.env ?? []) {
      add(configMaps, e.valueFrom?.configMapKeyRef?.name);
      add(secrets, e.valueFrom?.secretKeyRef?.name);
    }
  }
  return { configMaps: [...configMaps], secrets: [...secrets], pvcs: [...pvcs] };
}

interface RawContainerStatus {
  name?: string;
  ready?: boolean;
  restartCount?: number;
  state?: RawContainerState;
  lastState?: RawContainerState;
}

function containerStatus(s: RawContainerStatus): ContainerStatus {
  return {
    name: intern(s.name ?? ''),
    ready: s.ready ?? false,
    restartCount: s.restartCount ?? 0,
    waiting: s.state?.waiting ? { reason: intern(s.state.waiting.reason ?? 'Waiting'), message: internOrNull(s.state.waiting.message) } : null,
    runningSince: internOrNull(s.state?.running?.startedAt),
    terminated: termination(s.state?.terminated),
    lastTerminated: termination(s.lastState?.terminated),
  };
}

interface RawPod {
  metadata?: {
    name?: string;
    namespace?: string;
    creationTimestamp?: string;
    deletionTimestamp?: string;
    deletionGracePeriodSeconds?: number;
    finalizers?: string[];
    labels?: Record<string, string>;
    ownerReferences?: { kind?: string; name?: string; controller?: boolean }[];
    annotations?: Record<string, string>;
  };
  spec?: {
    nodeName?: string;
    nodeSelector?: Record<string, string>;
    containers?: RawContainer[];
    initContainers?: RawContainer[];
    volumes?: { configMap?: { name?: string }; secret?: { secretName?: string }; persistentVolumeClaim?: { claimName?: string }; projected?: { sources?: { configMap?: { name?: string }; secret?: { name?: string } }[] } }[];
  };
  status?: {
    phase?: string;
    reason?: string;
    message?: string;
    startTime?: string;
    conditions?: { type?: string; status?: string; reason?: string; message?: string; lastTransitionTime?: string }[];
    containerStatuses?: RawContainerStatus[];
    initContainerStatuses?: RawContainerStatus[];
  };
}

function termination(raw: RawTermination | undefined): Termination | null {
  if (!raw) return null;
  return { exitCode: raw.exitCode ?? 0, reason: internOrNull(raw.reason), signal: raw.signal ?? null, startedAt: internOrNull(raw.startedAt), finishedAt: internOrNull(raw.finishedAt) };
}

/** A ReplicaSet's pods belong to its Deployment: the ReplicaSet is named `<deployment>-<pod-template-hash>`. */
function controllerOf(pod: RawPod): { kind: string; name: string } | null {
  const owner = pod.metadata?.ownerReferences?.find((o) => o.controller) ?? pod.metadata?.ownerReferences?.[0];
  return owner?.kind && owner.name ? { kind: intern(owner.kind), name: intern(owner.name) } : null;
}

function workloadOf(pod: RawPod, name: string): PodObject['workload'] {
  const owner = controllerOf(pod);
  if (!owner) return { kind: 'Pod', name };
  const hash = pod.metadata?.labels?.['pod-template-hash'];
  if (owner.kind === 'ReplicaSet' && hash && owner.name.endsWith(`-${hash}`)) return { kind: 'Deployment', name: intern(owner.name.slice(0, -hash.length - 1)) };
  return { kind: owner.kind, name: owner.name };
}

export function slimPod(raw: unknown): PodObject | null {
  const pod = raw as RawPod;
  const name = pod.metadata?.name;
  const namespace = pod.metadata?.namespace;
  if (!name || !namespace) return null;
  const conditions = pod.status?.conditions ?? [];
  const ready = conditions.find((c) => c.type === 'Ready');
  const scheduled = conditions.find((c) => c.type === 'PodScheduled');
  const owner = controllerOf(pod);
  return {
    namespace: intern(namespace),
    name,
    phase: intern(pod.status?.phase ?? 'Unknown'),
    createdAt: internOrNull(pod.metadata?.creationTimestamp),
    startedAt: internOrNull(pod.status?.startTime),
    nodeName: internOrNull(pod.spec?.nodeName),
    labels: pod.metadata?.labels ?? {},
    workload: workloadOf(pod, name),
    owner,
    refs: podRefs(pod),
    envHosts: envHostsOf(pod),
    ready: ready?.status === 'True',
    readySince: internOrNull(ready?.lastTransitionTime),
    unschedulable: scheduled?.status === 'False' ? { reason: intern(scheduled.reason ?? 'Unschedulable'), message: internOrNull(scheduled.message) } : null,
    containers: (pod.spec?.containers ?? []).map((c) => ({
      name: intern(c.name ?? ''),
      image: intern(c.image ?? ''),
      resources: {
        cpuRequestM: millicores(c.resources?.requests?.cpu),
        cpuLimitM: millicores(c.resources?.limits?.cpu),
        memRequestBytes: bytes(c.resources?.requests?.memory),
        memLimitBytes: bytes(c.resources?.limits?.memory),
      },
      // Most containers declare none: one shared empty list rather than one per container.
      ports: c.ports === undefined || c.ports.length === 0 ? NO_PORTS : c.ports.flatMap((p) => (typeof p.containerPort === 'number' ? [{ name: internOrNull(p.name), port: p.containerPort }] : [])),
    })),
    statuses: (pod.status?.containerStatuses ?? []).map(containerStatus),
    initContainers: (pod.spec?.initContainers ?? []).map((c) => ({ name: intern(c.name ?? ''), image: intern(c.image ?? '') })),
    initStatuses: (pod.status?.initContainerStatuses ?? []).map(containerStatus),
    statusReason: pod.status?.reason ? { reason: pod.status.reason, message: pod.status.message ?? null } : null,
    deletion: pod.metadata?.deletionTimestamp ? { at: pod.metadata.deletionTimestamp, graceSecs: pod.metadata.deletionGracePeriodSeconds ?? null } : null,
    finalizers: pod.metadata?.finalizers ?? [],
    nodeSelector: pod.spec?.nodeSelector ?? {},
    // Only a bare pod is judged by its own spec; a replica's template is judged on its workload.
    ...(owner === null && pod.spec ? { security: slimSecuritySpec(pod.spec, pod.metadata?.annotations) } : {}),
  };
}
