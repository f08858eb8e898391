// Slimmers for the kinds the diagnosis reads beside the cluster model: EndpointSlices,
// ingress and storage classes, node Leases, quotas, LimitRanges, HPAs and PDBs. Each keeps
// only the fields an analyzer reads (docs/diagnosis.md).
import type { EndpointSliceObject, HpaObject, IngressClassObject, LeaseObject, LimitRangeObject, PdbObject, ResourceQuotaObject, StorageClassObject } from '../../domain/cluster/model.ts';
import { slimConditions } from './slim.ts';

interface RawObject {
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
}

const nameOf = (raw: unknown): string | null => (raw as RawObject).metadata?.name ?? null;
function idOf(raw: unknown): { namespace: string; name: string } | null {
  const meta = (raw as RawObject).metadata;
  return meta?.name && meta.namespace ? { namespace: meta.namespace, name: meta.name } : null;
}
const createdAtOf = (raw: unknown): string | null => (raw as { metadata?: { creationTimestamp?: string } }).metadata?.creationTimestamp ?? null;
const isDefaultClass = (raw: unknown, annotation: string) => (raw as RawObject).metadata?.annotations?.[annotation] === 'true';

interface RawEndpointSlice {
  endpoints?: { conditions?: { ready?: boolean }; targetRef?: { kind?: string; name?: string } }[];
}

export function slimEndpointSlice(raw: unknown): EndpointSliceObject | null {
  const id = idOf(raw);
  if (!id) return null;
  let ready = 0;
  const notReadyPods: string[] = [];
  let notReady = 0;
  for (const e of (raw as RawEndpointSlice).endpoints ?? []) {
    // The API leaves `ready` unset for "unknown", which consumers treat as ready.
    if (e.conditions?.ready !== false) ready += 1;
    else {
      notReady += 1;
      if (e.targetRef?.kind === 'Pod' && e.targetRef.name) notReadyPods.push(e.targetRef.name);
    }
  }
  return { ...id, service: (raw as RawObject).metadata?.labels?.['kubernetes.io/service-name'] ?? null, ready, notReady, notReadyPods };
}

export function slimIngressClass(raw: unknown): IngressClassObject | null {
  const name = nameOf(raw);
  if (!name) return null;
  return { name, controller: (raw as { spec?: { controller?: string } }).spec?.controller ?? '', isDefault: isDefaultClass(raw, 'ingressclass.kubernetes.io/is-default-class') };
}

export function slimStorageClass(raw: unknown): StorageClassObject | null {
  const name = nameOf(raw);
  if (!name) return null;
  const sc = raw as { provisioner?: string; volumeBindingMode?: string };
  return {
    name,
    provisioner: sc.provisioner ?? '',
    isDefault: isDefaultClass(raw, 'storageclass.kubernetes.io/is-default-class') || isDefaultClass(raw, 'storageclass.beta.kubernetes.io/is-default-class'),
    bindingMode: sc.volumeBindingMode ?? 'Immediate',
  };
}

export function slimLease(raw: unknown): LeaseObject | null {
  const name = nameOf(raw);
  if (!name) return null;
  const spec = (raw as { spec?: { renewTime?: string; leaseDurationSeconds?: number } }).spec;
  return { name, renewTime: spec?.renewTime ?? null, durationSecs: spec?.leaseDurationSeconds ?? null };
}

export function slimResourceQuota(raw: unknown): ResourceQuotaObject | null {
  const id = idOf(raw);
  if (!id) return null;
  const q = raw as { spec?: { hard?: Record<string, string> }; status?: { hard?: Record<string, string>; used?: Record<string, string> } };
  return { ...id, hard: q.status?.hard ?? q.spec?.hard ?? {}, used: q.status?.used ?? {} };
}

export function slimLimitRange(raw: unknown): LimitRangeObject | null {
  const id = idOf(raw);
  if (!id) return null;
  const limits = (raw as { spec?: { limits?: { type?: string; max?: Record<string, string>; min?: Record<string, string> }[] } }).spec?.limits ?? [];
  return { ...id, limits: limits.map((l) => ({ type: l.type ?? '', max: l.max ?? {}, min: l.min ?? {} })) };
}

export function slimHpa(raw: unknown): HpaObject | null {
  const id = idOf(raw);
  if (!id) return null;
  const h = raw as {
    spec?: { scaleTargetRef?: { kind?: string; name?: string }; minReplicas?: number; maxReplicas?: number };
    status?: { currentReplicas?: number; desiredReplicas?: number; conditions?: { type?: string; status?: string; reason?: string; message?: string; lastTransitionTime?: string }[] };
  };
  return {
    ...id,
    target: { kind: h.spec?.scaleTargetRef?.kind ?? '', name: h.spec?.scaleTargetRef?.name ?? '' },
    minReplicas: h.spec?.minReplicas ?? 1,
    maxReplicas: h.spec?.maxReplicas ?? 0,
    currentReplicas: h.status?.currentReplicas ?? 0,
    desiredReplicas: h.status?.desiredReplicas ?? 0,
    conditions: slimConditions(h.status?.conditions),
    createdAt: createdAtOf(raw),
  };
}

export function slimPdb(raw: unknown): PdbObject | null {
  const id = idOf(raw);
  if (!id) return null;
  const p = raw as { spec?: { selector?: { matchLabels?: Record<string, string> } }; status?: { currentHealthy?: number; desiredHealthy?: number; disruptionsAllowed?: number; expectedPods?: number; observedGeneration?: number } };
  return {
    ...id,
    selector: p.spec?.selector?.matchLabels ?? {},
    currentHealthy: p.status?.currentHealthy ?? 0,
    desiredHealthy: p.status?.desiredHealthy ?? 0,
    disruptionsAllowed: p.status?.disruptionsAllowed ?? 0,
    expectedPods: p.status?.expectedPods ?? 0,
    createdAt: createdAtOf(raw),
    observedGeneration: p.status?.observedGeneration ?? null,
  };
}
