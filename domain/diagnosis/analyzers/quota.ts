// Quotas and LimitRanges that are refusing pods right now. A full quota nobody bumps into is
// healthy, and so is a LimitRange nobody breaks: both become findings only while a current
// refusal (domain/diagnosis/refusal-message.ts) names them, and only while their present
// spec/status still explains that refusal, so raising the quota or the bound clears the
// finding at once, without waiting for the refusal event to age out.
import type { LimitRangeObject, ResourceQuotaObject } from '../../cluster/model.ts';
import { nodeId } from '../../cluster/node-id.ts';
import { parseQuantity } from '../../resources/quantity.ts';
import type { Evidence } from '../../../schema/diagnosis.ts';
import type { CodeSpec } from '../codes.ts';
import type { Analyzer, DiagnosisInput, DraftFinding } from '../input.ts';
import { currentRefusals, describeViolation, type CurrentRefusal, type LimitViolation, type QuotaOverrun } from '../refusal-message.ts';
import { fact } from '../draft.ts';

export const QUOTA_CODES: readonly CodeSpec[] = [
  {
    code: 'QuotaExhausted',
    kind: 'ResourceQuota',
    severity: 'warning',
    rule: 'A current pod-creation refusal names this quota and, by its present status, a resource the refusal names is used up (used ≥ hard) or cannot fit the refused request (used + requested > hard).',
  },
  {
    code: 'LimitRangeViolation',
    kind: 'LimitRange',
    severity: 'warning',
    rule: "A current pod-creation refusal is a LimitRange refusal that this LimitRange's present bound explains (same item type and resource, and the refused value still outside the bound).",
  },
];

/** Relative slack for comparing parsed quantities (`0.1 + 0.2` must not exceed `0.3`). */
const EPSILON = 1e-9;
const exceeds = (value: number, bound: number): boolean => value > bound + Math.abs(bound) * EPSILON;


function draft(object: string, namespace: string, code: string, summary: string, evidence: Evidence[], since: string | null, attributes: DraftFinding['attributes']): DraftFinding {
  return { id: `${object}#${code}`, code, severity: 'warning', object, namespace, summary, evidence, since, attributes, suspects: [] };
}

const earliest = (refusals: readonly CurrentRefusal[]): string | null => refusals.reduce<string | null>((a, r) => (r.since !== null && (a === null || r.since < a) ? r.since : a), null);

/** One evidence line per refused controller, naming the controller and what it was told. */
function refusalFacts(refusals: readonly CurrentRefusal[]): Evidence[] {
  const seen = new Set<string>();
  const out: Evidence[] = [];
  for (const r of refusals) {
    const id = nodeId(r.kind, r.namespace, r.name);
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(fact(id, `${r.kind} ${r.name} was refused a pod: ${r.message}`, r.source === 'event' ? 'event' : 'status'));
  }
  return out;
}

interface QuotaPressure {
  resource: string;
  used: string;
  hard: string;
  requested: string | null;
  full: boolean;
}

/** Whether the quota, as it stands now, still refuses what the refusal asked for. */
function pressureOf(quota: ResourceQuotaObject, overrun: QuotaOverrun): QuotaPressure | null {
  const hardText = quota.hard[overrun.resource];
  const usedText = quota.used[overrun.resource] ?? '0';
  const hard = parseQuantity(hardText);
  const used = parseQuantity(usedText);
  if (hardText === undefined || hard === null || used === null) return null;
  const requested = parseQuantity(overrun.requested ?? '0') ?? 0;
  const full = !exceeds(hard, used);
  if (!full && !exceeds(used + requested, hard)) return null;
  return { resource: overrun.resource, used: usedText, hard: hardText, requested: overrun.requested, full };
}

function quotaExhausted(quota: ResourceQuotaObject, refusals: readonly CurrentRefusal[]): DraftFinding | null {
  const naming = refusals.filter((r) => r.refusal.kind === 'quota' && r.refusal.form === 'exceeded' && r.refusal.quota === quota.name);
  const pressures = new Map<string, QuotaPressure>();
  for (const r of naming) {
    if (r.refusal.kind !== 'quota' || r.refusal.form !== 'exceeded') continue;
    for (const overrun of r.refusal.overruns) {
      if (pressures.has(overrun.resource)) continue;
      const pressure = pressureOf(quota, overrun);
      if (pressure) pressures.set(overrun.resource, pressure);
    }
  }
  const ordered = [...pressures.values()].sort((a, b) => Number(b.full) - Number(a.full));
  const first = ordered[0];
  if (!first) return null;
  const object = nodeId('ResourceQuota', quota.namespace, quota.name);
  const usage = `${first.resource === quota.name ? '' : `${first.resource} `}${first.used}/${first.hard}`;
  const summary = first.full ? `quota ${quota.name} is full (${usage})` : `quota ${quota.name} cannot fit ${first.requested ?? 'the request'} more (${usage} used)`;
  return draft(
    object,
    quota.namespace,
    'QuotaExhausted',
    summary,
    [...ordered.map((p) => fact(object, `${p.resource}: ${p.used} used of ${p.hard}${p.full ? '' : `, ${p.requested ?? '?'} requested`}`, 'status')), ...refusalFacts(naming)],
    earliest(naming),
    { resource: first.resource, used: first.used, hard: first.hard },
  );
}

/** The bound a LimitRange item sets for a violation's resource, or undefined. */
function boundOf(lr: LimitRangeObject, v: LimitViolation): { item: LimitRangeObject['limits'][number]; value: string | undefined } | null {
  const item = lr.limits.find((l) => l.type.toLowerCase() === v.scope.toLowerCase() && (v.bound === 'ratio' || (v.bound === 'maximum' ? l.max : l.min)[v.resource] !== undefined));
  if (!item) return null;
  return { item, value: v.bound === 'ratio' ? undefined : (v.bound === 'maximum' ? item.max : item.min)[v.resource] };
}

/** Whether the LimitRange's present bound still refuses the value the pod asked for. */
function stillRefuses(lr: LimitRangeObject, v: LimitViolation): boolean {
  const bound = boundOf(lr, v);
  if (!bound) return false;
  // The read model does not keep maxLimitRequestRatio: a ratio refusal is credited to every
  // LimitRange with an item of its type, without checking the ratio itself.
  if (v.bound === 'ratio' || v.actual === null) return true;
  const limit = parseQuantity(bound.value);
  const actual = parseQuantity(v.actual);
  if (limit === null || actual === null) return true;
  return v.bound === 'maximum' ? exceeds(actual, limit) : exceeds(limit, actual);
}

/**
 * The LimitRanges (of the refusal's namespace) that explain a violation now, the one whose
 * bound is the value the message quotes first.
 */
export function explainingLimitRanges(v: LimitViolation, inNamespace: readonly LimitRangeObject[]): LimitRangeObject[] {
  const allowed = parseQuantity(v.allowed);
  const quoted = (lr: LimitRangeObject): boolean => {
    const value = parseQuantity(boundOf(lr, v)?.value);
    return value !== null && allowed !== null && !exceeds(value, allowed) && !exceeds(allowed, value);
  };
  return inNamespace.filter((lr) => stillRefuses(lr, v)).sort((a, b) => Number(quoted(b)) - Number(quoted(a)) || a.name.localeCompare(b.name));
}

function limitRangeViolation(lr: LimitRangeObject, refusals: readonly CurrentRefusal[], inNamespace: readonly LimitRangeObject[]): DraftFinding | null {
  const hits: { v: LimitViolation; r: CurrentRefusal }[] = [];
  for (const r of refusals) {
    if (r.refusal.kind !== 'limitrange') continue;
    for (const v of r.refusal.violations) if (explainingLimitRanges(v, inNamespace).includes(lr)) hits.push({ v, r });
  }
  const first = hits[0];
  if (!first) return null;
  const object = nodeId('LimitRange', lr.namespace, lr.name);
  const distinct = new Map<string, LimitViolation>();
  for (const { v } of hits) distinct.set(`${v.bound}/${v.scope}/${v.resource}`, v);
  const current = (v: LimitViolation) => boundOf(lr, v)?.value ?? v.allowed;
  const refused = hits.map((h) => h.r);
  return draft(
    object,
    lr.namespace,
    'LimitRangeViolation',
    `LimitRange ${lr.name} refuses pods of ${first.r.kind} ${first.r.name}: ${describeViolation(first.v)}`,
    [...[...distinct.values()].map((v) => fact(object, v.bound === 'ratio' ? `${v.scope} ${v.resource} limit/request ratio at most ${v.allowed}` : `${v.scope} ${v.bound} ${v.resource} is ${current(v)}`, 'spec')), ...refusalFacts(refused)],
    earliest(refused),
    { resource: first.v.resource, bound: first.v.bound, scope: first.v.scope, limit: current(first.v), ...(first.v.actual !== null ? { value: first.v.actual } : {}) },
  );
}

export const analyzeQuota: Analyzer = (input: DiagnosisInput) => {
  const refusals = currentRefusals(input);
  if (refusals.size === 0) return [];
  const out: DraftFinding[] = [];
  for (const quota of input.view.resourceQuotas()) {
    const here = refusals.get(quota.namespace);
    const finding = here ? quotaExhausted(quota, here) : null;
    if (finding) out.push(finding);
  }
  const limitRangesByNamespace = new Map<string, LimitRangeObject[]>();
  for (const lr of input.view.limitRanges()) {
    if (!refusals.has(lr.namespace)) continue;
    const list = limitRangesByNamespace.get(lr.namespace);
    if (list) list.push(lr);
    else limitRangesByNamespace.set(lr.namespace, [lr]);
  }
  for (const [namespace, limitRanges] of limitRangesByNamespace) {
    const here = refusals.get(namespace) ?? [];
    for (const lr of limitRanges) {
      const finding = limitRangeViolation(lr, here, limitRanges);
      if (finding) out.push(finding);
    }
  }
  return out;
};
