// Why a controller could not create its pods, read from the apiserver's refusal as the
// controller repeats it: a Warning FailedCreate event's message or a ReplicaFailure
// condition's message. The wording parsed here is the apiserver's own:
//   ReplicaSet/DaemonSet/Job event:  Error creating: pods "api-5c9d-x" is forbidden: <cause>
//   StatefulSet event:               create Pod web-0 in StatefulSet web failed error: pods "web-0" is forbidden: <cause>
//   ReplicaFailure condition:        pods "api-5c9d-x" is forbidden: <cause>
// and the event recorder may prefix "(combined from similar events): ". Causes:
//   quota:      exceeded quota: <quota>, requested: pods=1, used: pods=2, limited: pods=2
//               failed quota: <quota>: must specify limits.cpu for: app; limits.memory for: app
//               (older servers: must specify limits.cpu,limits.memory)
//               status unknown for quota: <quota>[, resources: ...]
//   LimitRange: maximum cpu usage per Container is 500m, but limit is 1
//               minimum memory usage per Container is 64Mi, but request is 32Mi
//               maximum cpu usage per Container is 500m.  No limit is specified
//               cpu max limit to request ratio per Container is 2, but provided ratio is 4.000000
//               (several at once come as one bracketed, comma-separated list)
//   webhook:    admission webhook "<name>" denied the request: <reason>
//               admission webhook "<name>" denied the request without explanation
//               failed calling webhook "<name>": <transport error>
//               ValidatingAdmissionPolicy '<name>' [with binding '<binding>'] denied request: <reason>
// Everything else is `other`. Names taken from a message are checked against the Kubernetes
// name grammar before they reach a summary; free text (a webhook's reason, an unknown
// refusal) goes through redactText first.
import type { ControllerObject, WorkloadObject } from '../cluster/model.ts';
import { redactText } from '../redaction/redact.ts';
import { ownerKey, type DiagnosisInput } from './input.ts';

export type RefusalKind = 'quota' | 'limitrange' | 'webhook' | 'other';

/** One resource of a quota refusal, as the quantities the message prints (`pods=2`, `limits.cpu=500m`). */
export interface QuotaOverrun {
  resource: string;
  requested: string | null;
  used: string | null;
  limited: string | null;
}

export type LimitBound = 'maximum' | 'minimum' | 'ratio';

/** One LimitRange constraint a pod broke. */
export interface LimitViolation {
  bound: LimitBound;
  resource: string;
  /** Container, Pod or PersistentVolumeClaim: the LimitRange item type the bound sits on. */
  scope: string;
  /** The LimitRange's bound as the message prints it (`500m`), or the ratio (`2`). */
  allowed: string;
  /** What the pod asked: `limit` or `request` (`ratio` for a ratio). */
  field: 'limit' | 'request' | 'ratio';
  /** The pod's value (`1`); null when the pod set none ("No limit is specified"). */
  actual: string | null;
}

export type Refusal =
  | { kind: 'quota'; quota: string; form: 'exceeded'; overruns: QuotaOverrun[] }
  | { kind: 'quota'; quota: string; form: 'must_specify'; missing: string[] }
  | { kind: 'quota'; quota: string; form: 'status_unknown' }
  | { kind: 'limitrange'; violations: LimitViolation[] }
  /** `via: 'policy'`: an in-process ValidatingAdmissionPolicy, the webhook's built-in successor; `webhook` then names the policy. */
  | { kind: 'webhook'; webhook: string; via: 'webhook' | 'policy'; denied: boolean; reason: string | null }
  | { kind: 'other'; detail: string };

/** A DNS subdomain, the grammar of quota, webhook and resource names; anything else is not trusted as a name. */
const NAME = '[a-z0-9](?:[-a-z0-9.]*[a-z0-9])?';
/** A resource name (`pods`, `requests.cpu`, `count/deployments.apps`, `requests.nvidia.com/gpu`). */
const RESOURCE = '[a-z0-9](?:[-a-z0-9./_]*[a-z0-9])?';
const QUANTITY = '[+-]?[0-9.]+(?:[eE][+-]?[0-9]+|[a-zA-Z]{0,2})';

const EXCEEDED = new RegExp(`exceeded quota: (${NAME}), requested: (\\S+), used: (\\S+), limited: ([^\\s\\]]+)`, 'i');
const MUST_SPECIFY = new RegExp(`failed quota: (${NAME}): must specify ([^\\]]+?)\\s*(?=$|\\])`, 'i');
const STATUS_UNKNOWN = new RegExp(`status unknown for quota: (${NAME})`, 'i');
const LIMIT_BOUND = new RegExp(
  `(maximum|minimum) (${RESOURCE}) usage per (\\w+) is (${QUANTITY})(?:, but (limit|request) is (${QUANTITY})|\\.\\s+no (limit|request) is specified)`,
  'gi',
);
const LIMIT_RATIO = new RegExp(`(${RESOURCE}) max limit to request ratio per (\\w+) is (${QUANTITY}), but (?:provided ratio is|no request is specified or request is) (${QUANTITY})?`, 'gi');
const WEBHOOK_DENIED = new RegExp(`admission webhook "(${NAME})" denied the request(?:: ([\\s\\S]*)| without explanation)?`, 'i');
const POLICY_DENIED = new RegExp(`ValidatingAdmissionPolicy '(${NAME})'(?: with binding '${NAME}')? denied request(?:: ([\\s\\S]*))?`, 'i');
const WEBHOOK_FAILED = new RegExp(`failed calling webhook "(${NAME})"(?:: ([\\s\\S]*))?`, 'i');

/** Longest free text kept from a message: enough to read, short enough for a summary. */
const DETAIL_CHARS = 240;

function detailOf(text: string): string {
  const clean = redactText(text.trim());
  return clean.length > DETAIL_CHARS ? `${clean.slice(0, DETAIL_CHARS - 1)}…` : clean;
}

/** `pods=1,requests.cpu=500m` → { pods: '1', 'requests.cpu': '500m' }. */
function quantities(list: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const pair of list.split(',')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    out.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
  }
  return out;
}

const RESOURCE_ONLY = new RegExp(`^${RESOURCE}$`, 'i');

/** `limits.cpu for: app; limits.memory for: app` or `limits.cpu,limits.memory` → the resource names. */
function missingResources(text: string): string[] {
  // Newer servers name the containers after each resource (`for: app,sidecar`), so the
  // comma only separates resources in the older form that has no `for:`.
  const parts = /\sfor:/.test(text) ? text.split(';').map((part) => part.split(/\s+for:/)[0] ?? '') : text.split(',');
  const names = parts.map((name) => name.trim()).filter((name) => RESOURCE_ONLY.test(name));
  return [...new Set(names)];
}

/** The refusal in a FailedCreate event message or ReplicaFailure condition message. */
export function parseRefusal(message: string): Refusal {
  const exceeded = EXCEEDED.exec(message);
  if (exceeded) {
    const [, quota = '', requestedList = '', usedList = '', limitedTail = ''] = exceeded;
    // In a bracketed list of several refusals the next one follows after ", ".
    const limitedList = limitedTail.replace(/,$/, '');
    const requested = quantities(requestedList);
    const used = quantities(usedList);
    const limited = quantities(limitedList);
    const resources = new Set([...limited.keys(), ...requested.keys()]);
    const overruns = [...resources]
      .filter((resource) => RESOURCE_ONLY.test(resource))
      .map((resource) => ({ resource, requested: requested.get(resource) ?? null, used: used.get(resource) ?? null, limited: limited.get(resource) ?? null }));
    return { kind: 'quota', quota, form: 'exceeded', overruns };
  }
  const mustSpecify = MUST_SPECIFY.exec(message);
  if (mustSpecify) return { kind: 'quota', quota: mustSpecify[1] ?? '', form: 'must_specify', missing: missingResources(mustSpecify[2] ?? '') };
  const unknown = STATUS_UNKNOWN.exec(message);
  if (unknown) return { kind: 'quota', quota: unknown[1] ?? '', form: 'status_unknown' };

  const violations: LimitViolation[] = [];
  for (const m of message.matchAll(LIMIT_BOUND)) {
    const [, bound = '', resource = '', scope = '', allowed = '', givenField, given, missingField] = m;
    violations.push({
      bound: bound.toLowerCase() === 'maximum' ? 'maximum' : 'minimum',
      resource,
      scope,
      allowed,
      field: (givenField ?? missingField ?? 'limit').toLowerCase() === 'request' ? 'request' : 'limit',
      actual: given ?? null,
    });
  }
  for (const m of message.matchAll(LIMIT_RATIO)) {
    const [, resource = '', scope = '', allowed = '', given] = m;
    violations.push({ bound: 'ratio', resource, scope, allowed, field: 'ratio', actual: given ?? null });
  }
  if (violations.length > 0) return { kind: 'limitrange', violations };

  const denied = WEBHOOK_DENIED.exec(message);
  if (denied) {
    const reason = denied[2]?.trim();
    return { kind: 'webhook', webhook: denied[1] ?? '', via: 'webhook', denied: true, reason: reason ? detailOf(reason) : null };
  }
  const policy = POLICY_DENIED.exec(message);
  if (policy) {
    const reason = policy[2]?.trim();
    return { kind: 'webhook', webhook: policy[1] ?? '', via: 'policy', denied: true, reason: reason ? detailOf(reason) : null };
  }
  const failed = WEBHOOK_FAILED.exec(message);
  if (failed) {
    const reason = failed[2]?.trim();
    return { kind: 'webhook', webhook: failed[1] ?? '', via: 'webhook', denied: false, reason: reason ? detailOf(reason) : null };
  }
  return { kind: 'other', detail: detailOf(stripPreamble(message)) };
}

/** Drops the controller's framing so an unknown refusal reads as the apiserver's words. */
function stripPreamble(message: string): string {
  return message
    .replace(/^\(combined from similar events\):\s*/i, '')
    .replace(/^Error creating:\s*/i, '')
    .replace(/^create Pod \S+ in StatefulSet \S+ failed error:\s*/i, '');
}

/** The refusal in a few words, for a summary: "quota pods is full (pods 2/2)". */
export function describeRefusal(refusal: Refusal): string {
  switch (refusal.kind) {
    case 'quota':
      if (refusal.form === 'exceeded') {
        const first = refusal.overruns[0];
        if (!first) return `quota ${refusal.quota} is exceeded`;
        const usage = first.used !== null && first.limited !== null ? ` (${first.resource} ${first.used}/${first.limited} used, ${first.requested ?? '?'} more requested)` : ` (${first.resource})`;
        return `quota ${refusal.quota} refused it${usage}`;
      }
      if (refusal.form === 'must_specify') return `quota ${refusal.quota} requires ${refusal.missing.join(', ') || 'resource settings'} on every container`;
      return `quota ${refusal.quota} has no usage computed yet`;
    case 'limitrange': {
      const first = refusal.violations[0];
      if (!first) return 'a LimitRange refused it';
      return describeViolation(first);
    }
    case 'webhook':
      if (!refusal.denied) return `admission webhook ${refusal.webhook} could not be called${refusal.reason ? `: ${refusal.reason}` : ''}`;
      return `admission ${refusal.via === 'policy' ? 'policy' : 'webhook'} ${refusal.webhook} denied it${refusal.reason ? `: ${refusal.reason}` : ''}`;
    case 'other':
      return refusal.detail;
  }
}

export function describeViolation(violation: LimitViolation): string {
  if (violation.bound === 'ratio') return `${violation.resource} limit/request ratio ${violation.actual ?? '?'} is above the LimitRange's ${violation.allowed} per ${violation.scope}`;
  const side = violation.bound === 'maximum' ? 'maximum' : 'minimum';
  if (violation.actual === null) return `no ${violation.resource} ${violation.field} set while the LimitRange has a ${side} of ${violation.allowed} per ${violation.scope}`;
  const relation = violation.bound === 'maximum' ? 'above' : 'below';
  return `${violation.resource} ${violation.field} ${violation.actual} is ${relation} the LimitRange ${side} ${violation.allowed} per ${violation.scope}`;
}

// ---------------------------------------------------------------------------------------
// Which refusals are current. A refusal matters while it still blocks something: the event
// was seen within REFUSAL_CURRENT_SECS (the controller retries with backoff and repeats the
// event, so an ongoing refusal keeps it fresh) and the controller still runs fewer live pods
// than it wants (a refusal followed by enough pods is over, whatever the event's age). A
// ReplicaFailure condition is current by construction (the controller clears it once a
// creation succeeds), so only the pod count gates it.

/** How long after its last sighting a FailedCreate event still counts as a current refusal. */
export const REFUSAL_CURRENT_SECS = 600;

export type RefusingKind = 'ReplicaSet' | 'StatefulSet' | 'DaemonSet' | 'Job';

export interface CurrentRefusal {
  kind: RefusingKind;
  namespace: string;
  /** The controller that was refused. */
  name: string;
  refusal: Refusal;
  /** What it could not create: its pods, or (a StatefulSet) the volume claims its pods need. */
  creating: 'pods' | 'claims';
  /** The message as the cluster wrote it, redacted and shortened. */
  message: string;
  source: 'event' | 'condition';
  /** Since when it has been refused (event firstSeen, condition lastTransition). */
  since: string | null;
  /** The event's last sighting; null for a condition. */
  lastSeen: string | null;
}

/** Events newest first, then conditions (which repeat the newest event's words). */
function newestFirst(a: CurrentRefusal, b: CurrentRefusal): number {
  if (a.lastSeen === b.lastSeen) return `${a.kind}/${a.name}`.localeCompare(`${b.kind}/${b.name}`);
  if (a.lastSeen === null) return 1;
  if (b.lastSeen === null) return -1;
  return b.lastSeen.localeCompare(a.lastSeen);
}

const REFUSING_KINDS: ReadonlySet<string> = new Set(['ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job']);

type Refusable = (ControllerObject | WorkloadObject) & { kind: RefusingKind };
const refusable = (c: ControllerObject | WorkloadObject): c is Refusable => REFUSING_KINDS.has(c.kind);

/** Pods the controller should be running now; 0 for a finished or suspended Job. */
function wantedPods(controller: ControllerObject | WorkloadObject): number {
  if (controller.kind !== 'Job') return controller.desired;
  const job = controller.job;
  const finished = controller.conditions.some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
  if (!job || finished || job.suspended || job.completedAt !== null) return 0;
  if (job.completions === null) return job.succeeded > 0 ? 0 : controller.desired;
  return Math.max(0, Math.min(controller.desired, job.completions - job.succeeded));
}

function livePods(input: DiagnosisInput, namespace: string, kind: string, name: string): number {
  const pods = input.podsByOwner.get(ownerKey(namespace, kind, name)) ?? [];
  return pods.filter((p) => p.phase !== 'Succeeded' && p.phase !== 'Failed' && p.deletion === null).length;
}

function secondsSince(now: Date, iso: string | null): number | null {
  if (iso === null) return null;
  const at = Date.parse(iso);
  return Number.isNaN(at) ? null : (now.getTime() - at) / 1000;
}

/** A StatefulSet reports a refused claim as `create Claim <claim> for Pod <pod> in StatefulSet <set> failed error: persistentvolumeclaims "<claim>" is forbidden: ...`. */
const creatingOf = (message: string): 'pods' | 'claims' => (/\bcreate Claim \S+ for Pod\b|persistentvolumeclaims "/.test(message) ? 'claims' : 'pods');

const memo = new WeakMap<DiagnosisInput, ReadonlyMap<string, readonly CurrentRefusal[]>>();

/**
 * The current refusals, keyed by namespace, newest first. One pass over the events and the
 * controllers (linear in the cluster), computed once per diagnosis input and shared by the
 * workloads and quota analyzers.
 */
export function currentRefusals(input: DiagnosisInput): ReadonlyMap<string, readonly CurrentRefusal[]> {
  const cached = memo.get(input);
  if (cached) return cached;
  const controllers = new Map<string, Refusable>();
  for (const c of [...input.view.controllers(), ...input.view.workloads()]) if (refusable(c)) controllers.set(ownerKey(c.namespace, c.kind, c.name), c);

  const stillShort = new Map<string, boolean>();
  const short = (c: ControllerObject | WorkloadObject): boolean => {
    const key = ownerKey(c.namespace, c.kind, c.name);
    let answer = stillShort.get(key);
    if (answer === undefined) {
      answer = livePods(input, c.namespace, c.kind, c.name) < wantedPods(c);
      stillShort.set(key, answer);
    }
    return answer;
  };

  const found: CurrentRefusal[] = [];
  for (const event of input.view.events()) {
    if (event.type !== 'Warning' || event.reason !== 'FailedCreate' || !REFUSING_KINDS.has(event.involvedKind)) continue;
    const age = secondsSince(input.now, event.lastSeen ?? event.firstSeen);
    if (age === null || age > REFUSAL_CURRENT_SECS) continue;
    const controller = controllers.get(ownerKey(event.involvedNamespace, event.involvedKind, event.involvedName));
    if (!controller || !short(controller)) continue;
    found.push({
      kind: controller.kind,
      namespace: controller.namespace,
      name: controller.name,
      refusal: parseRefusal(event.message),
      creating: creatingOf(event.message),
      message: detailOf(stripPreamble(event.message)),
      source: 'event',
      since: event.firstSeen ?? event.lastSeen,
      lastSeen: event.lastSeen ?? event.firstSeen,
    });
  }
  for (const controller of controllers.values()) {
    const failure = controller.conditions.find((c) => c.type === 'ReplicaFailure' && c.status === 'True' && c.reason === 'FailedCreate');
    if (!failure?.message || !short(controller)) continue;
    found.push({
      kind: controller.kind,
      namespace: controller.namespace,
      name: controller.name,
      refusal: parseRefusal(failure.message),
      creating: creatingOf(failure.message),
      message: detailOf(stripPreamble(failure.message)),
      source: 'condition',
      since: failure.lastTransition,
      lastSeen: null,
    });
  }
  const byNamespace = new Map<string, CurrentRefusal[]>();
  for (const refusal of found) {
    const list = byNamespace.get(refusal.namespace);
    if (list) list.push(refusal);
    else byNamespace.set(refusal.namespace, [refusal]);
  }
  for (const list of byNamespace.values()) list.sort(newestFirst);
  memo.set(input, byNamespace);
  return byNamespace;
}
