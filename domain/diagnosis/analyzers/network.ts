// Network findings: Services that route to nothing and Ingresses that point at what does not
// exist. Pure: cached state in, draft findings out; the engine chains them through `suspects`.
//
// Decisions (docs/diagnosis.md repeats them):
// - A Service younger than SERVICE_GRACE_SECS is not judged: `kubectl apply` of a Service and
//   its Deployment lands in either order, and pods take seconds to appear and turn Ready.
// - A Service without a selector (endpoints managed by hand) or of type ExternalName routes to
//   no pods by design: never judged.
// - Pods that have finished (Succeeded, Failed) get no endpoints, so they do not count as
//   matching; a Service that matches only finished pods matches nothing, and names them.
// - "No endpoint ready" needs both the EndpointSlices (no ready endpoint) and the pods (none
//   of the matching pods Ready) to agree, so a slice controller that lags the pods never
//   raises it; when EndpointSlices are forbidden the pods alone decide. Matching pods all
//   younger than the grace (a fresh rollout) are not judged yet.
// - ServiceNoMatchingPods suspects the Deployments and DaemonSets of its namespace whose pod
//   selector agrees with the Service's (no key with another value, at least one pair shared;
//   those whose selector contains the whole Service selector first): a Service selects nothing
//   when its workload has no pods (a quota refusal, say), and then that workload's finding is
//   the cause. With no such workload (the usual typo in a label) it stays its own root cause.
//   StatefulSets keep no selector in the read model, so they are not suspected.
// - Ingress checks that read an optional informer (Secrets for TLS, IngressClasses) say nothing
//   while that informer is forbidden or not synced: silence beats a false alarm.
// - An Ingress without `ingressClassName` is not judged: the legacy class annotation is not
//   kept in the cache, so a missing default class cannot be told from an annotated Ingress.
// - Ingress misconfigurations (missing Service, port, Secret, class) are the Ingress's own root
//   cause: no suspects. IngressBackendUnavailable (added to the agreed list) is the one effect:
//   its backend Service exists but serves no ready endpoint, and it suspects that Service.
import { listTrust } from '../list-trust.ts';
import type { EndpointSliceObject, IngressObject, PodObject, ServiceObject, WorkloadObject } from '../../cluster/model.ts';
import { nodeId } from '../../cluster/node-id.ts';
import type { Evidence } from '../../../schema/diagnosis.ts';
import type { CodeSpec } from '../codes.ts';
import type { Analyzer, DiagnosisInput, DraftFinding } from '../input.ts';
import { fact, findingBuilder } from '../draft.ts';

/** A Service this young is not judged yet (seconds). */
export const SERVICE_GRACE_SECS = 30;
/** At most this many near-miss pods or not-ready pods are shown as evidence. */
const MAX_POD_EVIDENCE = 3;
/** At most this many pods are named as suspects (the engine takes the first with a finding). */
const MAX_SUSPECTS = 20;

export const NETWORK_CODES: readonly CodeSpec[] = [
  {
    code: 'ServiceNoMatchingPods',
    kind: 'Service',
    severity: 'warning',
    rule: `A Service with a selector (not ExternalName), older than ${SERVICE_GRACE_SECS}s, whose selector matches no running or pending pod in its namespace; suspects the Deployments and DaemonSets whose selector agrees with it.`,
  },
  {
    code: 'ServiceEndpointsNotReady',
    kind: 'Service',
    severity: 'warning',
    rule: 'A Service whose selector matches pods, none of them Ready and no EndpointSlice endpoint ready; suspects the not-ready pods.',
  },
  {
    code: 'ServiceTargetPortMissing',
    kind: 'Service',
    severity: 'warning',
    rule: 'A Service port whose targetPort names a port that none of its selected running or pending pods declares, or is a number none of them exposes where they declare ports: its endpoints carry no such port, so the selector matches and traffic still goes nowhere. The Service is its own root cause.',
  },
  {
    code: 'IngressBackendServiceMissing',
    kind: 'Ingress',
    severity: 'warning',
    rule: 'An Ingress backend names a Service that does not exist in its namespace.',
  },
  {
    code: 'IngressBackendPortMissing',
    kind: 'Ingress',
    severity: 'warning',
    rule: 'An Ingress backend names a port (number or name) that its existing Service does not expose.',
  },
  {
    code: 'IngressTlsSecretMissing',
    kind: 'Ingress',
    severity: 'warning',
    rule: 'An Ingress TLS entry names a Secret that does not exist; silent while Secrets are forbidden.',
  },
  {
    code: 'IngressClassMissing',
    kind: 'Ingress',
    severity: 'warning',
    rule: 'An Ingress names an ingressClassName for which no IngressClass exists; silent while IngressClasses are forbidden.',
  },
  {
    code: 'IngressBackendUnavailable',
    kind: 'Ingress',
    severity: 'warning',
    rule: 'An Ingress backend Service exists but has a ServiceNoMatchingPods or ServiceEndpointsNotReady finding; suspects that Service.',
  },
];


const ageSecs = (since: string | null, now: Date): number => (since === null ? Number.POSITIVE_INFINITY : (now.getTime() - Date.parse(since)) / 1000);

const isFinished = (pod: PodObject): boolean => pod.phase === 'Succeeded' || pod.phase === 'Failed';

const selectorText = (selector: Readonly<Record<string, string>>): string =>
  Object.entries(selector)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');

/** Pods of one namespace indexed by `key=value`, built once per namespace that has Services. */
class LabelIndex {
  private readonly byPair = new Map<string, PodObject[]>();
  private readonly byKey = new Map<string, PodObject[]>();

  constructor(pods: readonly PodObject[]) {
    for (const pod of pods) {
      for (const [key, value] of Object.entries(pod.labels)) {
        push(this.byPair, `${key}=${value}`, pod);
        push(this.byKey, key, pod);
      }
    }
  }

  /** Pods matching every pair, and pods matching all but one (the near misses), each pod once. */
  match(selector: Readonly<Record<string, string>>): { matching: PodObject[]; nearMisses: { pod: PodObject; key: string }[] } {
    const pairs = Object.entries(selector);
    const hits = new Map<PodObject, number>();
    for (const [key, value] of pairs) {
      for (const pod of this.byPair.get(`${key}=${value}`) ?? []) hits.set(pod, (hits.get(pod) ?? 0) + 1);
    }
    const matching: PodObject[] = [];
    const nearMisses: { pod: PodObject; key: string }[] = [];
    for (const [pod, count] of hits) {
      if (count === pairs.length) matching.push(pod);
      else if (count === pairs.length - 1) nearMisses.push({ pod, key: pairs.find(([k, v]) => pod.labels[k] !== v)?.[0] ?? '' });
    }
    // With one key "all but one" is every pod; only pods carrying that key with another value
    // are near misses (a typo'd value), found through the key index.
    if (pairs.length === 1) {
      const [key, value] = pairs[0] as [string, string];
      for (const pod of this.byKey.get(key) ?? []) if (pod.labels[key] !== value) nearMisses.push({ pod, key });
    }
    return { matching, nearMisses };
  }
}

function push<T>(index: Map<string, T[]>, key: string, item: T): void {
  const list = index.get(key);
  if (list) list.push(item);
  else index.set(key, [item]);
}

const finding = findingBuilder(NETWORK_CODES);


function nearMissEvidence(nearMisses: { pod: PodObject; key: string }[], selector: Readonly<Record<string, string>>): Evidence[] {
  return [...nearMisses]
    .sort((a, b) => a.pod.name.localeCompare(b.pod.name))
    .slice(0, MAX_POD_EVIDENCE)
    .map(({ pod, key }) => {
      const has = pod.labels[key];
      const differs = has === undefined ? `has no ${key} label` : `has ${key}=${has}`;
      return fact(nodeId('Pod', pod.namespace, pod.name), `pod ${pod.name} matches all but one label: it ${differs}, the selector wants ${key}=${selector[key] ?? ''}`, 'spec');
    });
}

/**
 * Workloads whose pods the selector would match, as far as their own selector tells: those
 * whose selector holds every pair of the Service's first, then those that merely agree with it
 * (the pod template may carry the rest). Ordered by name within each group.
 */
function backingWorkloads(selector: Readonly<Record<string, string>>, workloads: readonly WorkloadObject[]): string[] {
  const pairs = Object.entries(selector);
  const covering: WorkloadObject[] = [];
  const agreeing: WorkloadObject[] = [];
  for (const workload of workloads) {
    const own = workload.selector;
    if (pairs.some(([k, v]) => own[k] !== undefined && own[k] !== v)) continue;
    if (pairs.every(([k]) => own[k] !== undefined)) covering.push(workload);
    else if (pairs.some(([k]) => own[k] !== undefined)) agreeing.push(workload);
  }
  const byName = (a: WorkloadObject, b: WorkloadObject) => a.name.localeCompare(b.name) || a.kind.localeCompare(b.kind);
  return [...covering.sort(byName), ...agreeing.sort(byName)].map((w) => nodeId(w.kind, w.namespace, w.name));
}

function judgeService(
  input: DiagnosisInput,
  service: ServiceObject,
  index: LabelIndex,
  slices: readonly EndpointSliceObject[],
  slicesTrusted: boolean,
  workloads: readonly WorkloadObject[],
): DraftFinding | null {
  const selector = service.selector;
  if (selector === null || Object.keys(selector).length === 0 || service.type === 'ExternalName') return null;
  if (ageSecs(service.createdAt, input.now) < SERVICE_GRACE_SECS) return null;
  const id = nodeId('Service', service.namespace, service.name);
  const wanted = selectorText(selector);
  const { matching, nearMisses } = index.match(selector);
  const live = matching.filter((p) => !isFinished(p));

  if (live.length === 0) {
    const finished = matching.filter(isFinished);
    const evidence = [fact(id, `selector ${wanted} matches no running or pending pod in ${service.namespace}`, 'spec')];
    for (const pod of finished.slice(0, MAX_POD_EVIDENCE)) evidence.push(fact(nodeId('Pod', pod.namespace, pod.name), `pod ${pod.name} matches but has finished (${pod.phase})`, 'status'));
    evidence.push(...nearMissEvidence(nearMisses, selector));
    const attributes: DraftFinding['attributes'] = { selector: wanted };
    if (nearMisses.length > 0) attributes.near_misses = nearMisses.length;
    const suspects = backingWorkloads(selector, workloads).slice(0, MAX_SUSPECTS);
    return finding(id, service.namespace, 'ServiceNoMatchingPods', `service ${service.name} selects no pods (${wanted})`, evidence, { attributes, suspects });
  }

  const unreachable = missingTargetPorts(service, live);
  if (unreachable.length > 0) {
    const declared = declaredPortsText(live);
    const first = unreachable[0] as { port: number; target: string | number };
    const evidence = unreachable.map((u) => fact(id, `port ${u.port} targets ${typeof u.target === 'string' ? `the port named ${u.target}` : `port ${u.target}`}, which none of its ${live.length} selected pod${live.length === 1 ? '' : 's'} declares (they declare ${declared})`, 'spec'));
    return finding(id, service.namespace, 'ServiceTargetPortMissing', `service ${service.name} sends port ${first.port} to ${typeof first.target === 'string' ? `a port named ${first.target}` : `port ${first.target}`} that its pods do not declare`, evidence, {
      attributes: { port: first.port, target_port: first.target, declared },
    });
  }

  const sliceReady = slices.reduce((n, s) => n + s.ready, 0);
  const sliceNotReady = slices.reduce((n, s) => n + s.notReady, 0);
  if (sliceReady > 0 || live.some((p) => p.ready)) return null;
  if (live.every((p) => ageSecs(p.createdAt, input.now) < SERVICE_GRACE_SECS)) return null;
  // Without EndpointSlices only the pods speak; with them, "no endpoint at all" can be a slice
  // not yet written for pods that are not Ready anyway, so the pods' word is enough there too.
  const notReadyNames = [...new Set([...slices.flatMap((s) => s.notReadyPods), ...live.map((p) => p.name).sort()])];
  const suspects = notReadyNames.slice(0, MAX_SUSPECTS).map((name) => nodeId('Pod', service.namespace, name));
  const endpoints = !slicesTrusted ? 'EndpointSlices are not readable' : sliceNotReady === 0 ? 'no endpoints' : `0 of ${sliceNotReady} endpoints ready`;
  const evidence = [fact(id, `${endpoints}; ${live.length} matching pod${live.length === 1 ? '' : 's'}, none Ready`, 'status')];
  for (const name of notReadyNames.slice(0, MAX_POD_EVIDENCE)) evidence.push(fact(nodeId('Pod', service.namespace, name), `pod ${name} is not Ready`, 'status'));
  return finding(id, service.namespace, 'ServiceEndpointsNotReady', `service ${service.name} has no ready endpoints (${live.length} pod${live.length === 1 ? '' : 's'} not Ready)`, evidence, {
    // The last pod to turn not Ready took the last endpoint away; unknown if any pod is undated.
    since: live.every((p) => p.readySince !== null) ? (live.map((p) => p.readySince ?? '').sort().at(-1) ?? null) : null,
    attributes: { selector: wanted, pods: live.length, not_ready_endpoints: sliceNotReady },
    suspects,
  });
}

/**
 * The Service's ports whose target none of `pods` declares: a name no container port has, or a
 * number none exposes when they declare any port at all (declaring a numbered port is optional).
 */
function missingTargetPorts(service: ServiceObject, pods: readonly PodObject[]): { port: number; target: string | number }[] {
  const declared = pods.flatMap((p) => p.containers.flatMap((c) => c.ports));
  const names = new Set(declared.flatMap((p) => (p.name === null ? [] : [p.name])));
  const numbers = new Set(declared.map((p) => p.port));
  return service.ports.flatMap((p) => {
    const target = p.targetPort ?? p.port;
    const missing = typeof target === 'string' ? !names.has(target) : declared.length > 0 && !numbers.has(target);
    return missing ? [{ port: p.port, target }] : [];
  });
}

const declaredPortsText = (pods: readonly PodObject[]): string => {
  const all = [...new Set(pods.flatMap((p) => p.containers.flatMap((c) => c.ports.map((port) => (port.name ? `${port.name}:${port.port}` : `${port.port}`)))))];
  return all.length === 0 ? 'none' : all.sort().join(', ');
};

function hasPort(service: ServiceObject, port: number | string): boolean {
  return service.ports.some((p) => (typeof port === 'number' ? p.port === port : p.name === port));
}

const portsText = (service: ServiceObject): string => (service.ports.length === 0 ? 'none' : service.ports.map((p) => (p.name ? `${p.port}/${p.name}` : `${p.port}`)).join(', '));

function judgeIngress(
  ingress: IngressObject,
  services: ReadonlyMap<string, ServiceObject>,
  serviceFindings: ReadonlyMap<string, DraftFinding>,
  secrets: ReadonlySet<string> | null,
  classes: ReadonlySet<string> | null,
): DraftFinding[] {
  const { namespace, name } = ingress;
  const id = nodeId('Ingress', namespace, name);
  const out: DraftFinding[] = [];
  const missingServices: string[] = [];
  const missingPorts: { service: ServiceObject; port: number | string }[] = [];
  const unavailable: DraftFinding[] = [];
  const seen = new Set<string>();
  for (const backend of ingress.backends) {
    const key = `${backend.service}:${String(backend.port)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const service = services.get(`${namespace}/${backend.service}`);
    if (!service) {
      if (!missingServices.includes(backend.service)) missingServices.push(backend.service);
      continue;
    }
    if (backend.port !== null && !hasPort(service, backend.port)) {
      missingPorts.push({ service, port: backend.port });
      continue;
    }
    const serviceFinding = serviceFindings.get(service.name);
    if (serviceFinding && !unavailable.includes(serviceFinding)) unavailable.push(serviceFinding);
  }

  if (missingServices.length > 0) {
    const evidence = missingServices.map((s) => fact(nodeId('Service', namespace, s), `service ${namespace}/${s} does not exist`, 'absence'));
    const first = missingServices[0] ?? '';
    out.push(finding(id, namespace, 'IngressBackendServiceMissing', `ingress ${name} routes to missing service ${first}${missingServices.length > 1 ? ` and ${missingServices.length - 1} more` : ''}`, evidence, { attributes: { service: first, missing: missingServices.length } }));
  }
  if (missingPorts.length > 0) {
    const evidence = missingPorts.map(({ service, port }) => fact(nodeId('Service', namespace, service.name), `service ${service.name} has no port ${String(port)} (ports: ${portsText(service)})`, 'spec'));
    const first = missingPorts[0] as { service: ServiceObject; port: number | string };
    out.push(finding(id, namespace, 'IngressBackendPortMissing', `ingress ${name} routes to port ${String(first.port)} of service ${first.service.name}, which has no such port`, evidence, { attributes: { service: first.service.name, port: first.port } }));
  }
  if (secrets !== null) {
    const missing = [...new Set(ingress.tlsSecrets)].filter((s) => !secrets.has(`${namespace}/${s}`));
    if (missing.length > 0) {
      const evidence = missing.map((s) => fact(nodeId('Secret', namespace, s), `TLS secret ${namespace}/${s} does not exist`, 'absence'));
      out.push(finding(id, namespace, 'IngressTlsSecretMissing', `ingress ${name} names missing TLS secret ${missing[0] ?? ''}`, evidence, { attributes: { secret: missing[0] ?? '', missing: missing.length } }));
    }
  }
  const className = ingress.ingressClassName;
  if (classes !== null && className !== null && className !== '' && !classes.has(className)) {
    out.push(finding(id, namespace, 'IngressClassMissing', `ingress ${name} names IngressClass ${className}, which does not exist`, [fact(nodeId('IngressClass', null, className), `IngressClass ${className} does not exist`, 'absence')], { attributes: { ingress_class: className } }));
  }
  if (unavailable.length > 0) {
    const evidence = unavailable.map((f) => fact(f.object, f.summary, 'status'));
    const suspects = unavailable.map((f) => f.object);
    const firstName = suspects[0]?.split('/').pop() ?? '';
    out.push(finding(id, namespace, 'IngressBackendUnavailable', `ingress ${name} routes to service ${firstName}, which has no ready endpoints`, evidence, { attributes: { service: firstName }, suspects }));
  }
  return out;
}

export const analyzeNetwork: Analyzer = (input) => {
  const findings: DraftFinding[] = [];
  const trusted = listTrust(input);
  const slicesByService = new Map<string, EndpointSliceObject[]>();
  for (const slice of input.view.endpointSlices()) if (slice.service !== null) push(slicesByService, `${slice.namespace}/${slice.service}`, slice);

  const workloadsByNamespace = new Map<string, WorkloadObject[]>();
  for (const workload of input.view.workloads()) push(workloadsByNamespace, workload.namespace, workload);

  const services = new Map<string, ServiceObject>();
  const serviceFindings = new Map<string, Map<string, DraftFinding>>();
  const indexes = new Map<string, LabelIndex>();
  for (const service of input.view.services()) {
    services.set(`${service.namespace}/${service.name}`, service);
    let index = indexes.get(service.namespace);
    if (!index) {
      index = new LabelIndex(input.podsByNamespace.get(service.namespace) ?? []);
      indexes.set(service.namespace, index);
    }
    const found = judgeService(input, service, index, slicesByService.get(`${service.namespace}/${service.name}`) ?? [], trusted('endpointslices', service.namespace), workloadsByNamespace.get(service.namespace) ?? []);
    if (!found) continue;
    findings.push(found);
    let inNamespace = serviceFindings.get(service.namespace);
    if (!inNamespace) serviceFindings.set(service.namespace, (inNamespace = new Map<string, DraftFinding>()));
    inNamespace.set(service.name, found);
  }

  const secrets = new Set(input.view.secrets().map((s) => `${s.namespace}/${s.name}`));
  const classes = trusted('ingressclasses', null) ? new Set(input.view.ingressClasses().map((c) => c.name)) : null;
  for (const ingress of input.view.ingresses()) {
    // The Secrets list counts only where RBAC let it be read: in this ingress's namespace.
    const secretsHere = trusted('secrets', ingress.namespace) ? secrets : null;
    findings.push(...judgeIngress(ingress, services, serviceFindings.get(ingress.namespace) ?? new Map<string, DraftFinding>(), secretsHere, classes));
  }
  return findings;
};
