// A crash-looping pod whose configuration or crashed instance's last log lines name another Service of the cluster that serves no
// ready endpoint is suspected to crash because of it: the Service becomes the first suspect of
// the crash (the engine then chains on to that Service's own root cause: its pods, their claim,
// the missing StorageClass...), with the variable or the log line that names it as evidence.
//
// Decisions (docs/diagnosis.md repeats them):
// - Only crash loops (CrashLoopBackOff, ProbeKilled): a dependency that is down makes an app
//   exit or fail its probes; it does not make an image unpullable.
// - Names resolve as a pod's resolver would: `name` in the pod's own namespace, `name.ns`,
//   `name.ns.svc`, `name.ns.svc.cluster.local` (domain/diagnosis/host-names.ts).
// - A Service that selects the crashing pod itself is never its own dependency.
// - The environment is read first (it is the pod's own declaration), then the log lines the
//   runtime read once per crash (runtime/diagnosis/crash-logs.ts): a line is only shown, never
//   followed as an instruction, and it arrives redacted and cut.
// - "No ready endpoint": no EndpointSlice of it has a ready endpoint and none of the pods its
//   selector matches is Ready. A Service without a selector is judged by its slices alone.
import type { EndpointSliceObject, PodObject, ServiceObject } from '../../cluster/model.ts';
import { nodeId } from '../../cluster/node-id.ts';
import type { Evidence, EvidenceSource } from '../../../schema/diagnosis.ts';
import { serviceOfHost } from '../host-names.ts';
import { podKey, type DiagnosisInput } from '../input.ts';
import { fact } from './pod-containers.ts';

/** The codes of a crash loop: the findings a dependency can explain. */
export const CRASH_CODES: ReadonlySet<string> = new Set(['CrashLoopBackOff', 'ProbeKilled']);

export interface Dependencies {
  /** Node ids of the unserved Services the pod's configuration names, in the order named. */
  suspects: string[];
  evidence: Evidence[];
}

const selects = (selector: Readonly<Record<string, string>> | null, pod: PodObject): boolean =>
  selector !== null && Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => pod.labels[k] === v);

/** Per diagnosis: Services by `namespace/name`, EndpointSlices by `namespace/service`. */
export function dependencyIndex(input: DiagnosisInput): { services: ReadonlyMap<string, ServiceObject>; slices: ReadonlyMap<string, readonly EndpointSliceObject[]> } {
  const slices = new Map<string, EndpointSliceObject[]>();
  for (const s of input.view.endpointSlices()) {
    const key = `${s.namespace}/${s.service}`;
    slices.set(key, [...(slices.get(key) ?? []), s]);
  }
  return { services: new Map(input.view.services().map((s) => [`${s.namespace}/${s.name}`, s])), slices };
}

function served(input: DiagnosisInput, service: ServiceObject, slices: readonly EndpointSliceObject[]): boolean {
  if (slices.some((s) => s.ready > 0)) return true;
  if (service.selector === null || Object.keys(service.selector).length === 0) return false;
  return (input.podsByNamespace.get(service.namespace) ?? []).some((p) => p.ready && selects(service.selector, p));
}

/** A host the pod names, and how it names it (the start of the evidence's fact). */
interface Mention {
  host: string;
  /** `container orders names db in DATABASE_URL`, `container orders's previous instance logged "…"`. */
  said: string;
  source: EvidenceSource;
}

function mentions(input: DiagnosisInput, pod: PodObject): Mention[] {
  const fromEnv = pod.envHosts.map((e): Mention => ({ host: e.host, said: `container ${e.container} names ${e.host} in ${e.variable}`, source: 'spec' }));
  const fromLogs = (input.crashLogHosts.get(podKey(pod.namespace, pod.name)) ?? []).map(
    (l): Mention => ({ host: l.host, said: `container ${l.container}'s previous instance logged ${JSON.stringify(l.line)}`, source: 'log' }),
  );
  return [...fromEnv, ...fromLogs];
}

/** Whether `pod` names any host at all: without one there is nothing to look up. */
export function namesHosts(input: DiagnosisInput, pod: PodObject): boolean {
  return pod.envHosts.length > 0 || input.crashLogHosts.has(podKey(pod.namespace, pod.name));
}

/** The Services `pod`'s environment or crash logs name that serve no ready endpoint (ExternalName Services are someone else's). */
export function unservedDependencies(input: DiagnosisInput, index: ReturnType<typeof dependencyIndex>, pod: PodObject): Dependencies {
  const podId = nodeId('Pod', pod.namespace, pod.name);
  const out: Dependencies = { suspects: [], evidence: [] };
  for (const named of mentions(input, pod)) {
    const target = serviceOfHost(named.host, pod.namespace);
    if (target === null) continue;
    const service = index.services.get(`${target.namespace}/${target.name}`);
    if (service === undefined || service.type === 'ExternalName' || selects(service.selector, pod)) continue;
    const id = nodeId('Service', service.namespace, service.name);
    if (out.suspects.includes(id) || served(input, service, index.slices.get(`${service.namespace}/${service.name}`) ?? [])) continue;
    out.suspects.push(id);
    out.evidence.push(fact(podId, `${named.said}: service ${service.namespace}/${service.name} has no ready endpoint`, named.source));
  }
  return out;
}
