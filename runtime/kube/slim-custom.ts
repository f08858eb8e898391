// Slimming custom resources on the way in. A CRD's schema is whatever its author wrote, so
// nothing here trusts a shape: every field is checked, and each string and list is capped so
// one odd object cannot grow the cache.
import type { Condition } from '../../domain/cluster/model.ts';
import type { CustomKind, CustomObject } from '../../domain/resources/custom.ts';
import { redactText } from '../../domain/redaction/redact.ts';

const MAX_LABELS = 64;
const MAX_CONDITIONS = 16;
const MAX_TEXT = 300;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown, max = MAX_TEXT): string | null => (typeof value === 'string' ? value.slice(0, max) : null);
const timestamp = (value: unknown): string | null => (typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? value : null);

/** A CRD as the catalog keeps it: its names and the version to read, or null when it serves none (or is not established yet). */
export function slimCustomDefinition(raw: unknown): CustomKind | null {
  if (!isRecord(raw) || !isRecord(raw.metadata) || !isRecord(raw.spec) || !isRecord(raw.spec.names)) return null;
  const name = text(raw.metadata.name);
  const group = text(raw.spec.group);
  const kind = text(raw.spec.names.kind);
  const plural = text(raw.spec.names.plural);
  if (name === null || group === null || kind === null || plural === null) return null;
  const versions = Array.isArray(raw.spec.versions) ? raw.spec.versions.filter(isRecord) : [];
  const served = versions.filter((v) => v.served === true && typeof v.name === 'string');
  // The storage version when it is served (what kubectl shows first), else the first served one.
  const version = text((served.find((v) => v.storage === true) ?? served[0])?.name);
  const conditions = isRecord(raw.status) && Array.isArray(raw.status.conditions) ? raw.status.conditions.filter(isRecord) : [];
  const established = conditions.some((c) => c.type === 'Established' && c.status === 'True');
  if (version === null || !established) return null;
  return { name, group, version, kind, plural, namespaced: raw.spec.scope === 'Namespaced' };
}

function conditionsOf(status: Record<string, unknown>): Condition[] {
  if (!Array.isArray(status.conditions)) return [];
  return status.conditions
    .filter(isRecord)
    .slice(0, MAX_CONDITIONS)
    .flatMap((c) => {
      const type = text(c.type, 100);
      if (type === null) return [];
      const message = text(c.message);
      return [{ type, status: text(c.status, 20) ?? 'Unknown', reason: text(c.reason, 100), message: message === null ? null : redactText(message), lastTransition: timestamp(c.lastTransitionTime) }];
    });
}

/** A custom object: metadata, its controller owner, and `status.phase` / `status.conditions` when they have the usual shape. */
export function slimCustomObject(raw: unknown): CustomObject | null {
  if (!isRecord(raw) || !isRecord(raw.metadata)) return null;
  const meta = raw.metadata;
  const name = text(meta.name, 253);
  if (name === null) return null;
  const labels = isRecord(meta.labels) ? Object.entries(meta.labels).filter((e): e is [string, string] => typeof e[1] === 'string').slice(0, MAX_LABELS) : [];
  const owners = Array.isArray(meta.ownerReferences) ? meta.ownerReferences.filter(isRecord) : [];
  const owner = owners.find((o) => o.controller === true) ?? owners[0];
  const ownerKind = text(owner?.kind, 100);
  const ownerName = text(owner?.name, 253);
  const status = isRecord(raw.status) ? raw.status : {};
  return {
    namespace: text(meta.namespace, 63),
    name,
    createdAt: timestamp(meta.creationTimestamp),
    labels: Object.fromEntries(labels.map(([k, v]) => [k.slice(0, 317), v.slice(0, 63)])),
    owner: ownerKind !== null && ownerName !== null ? `${ownerKind}/${ownerName}` : null,
    phase: text(status.phase, 64),
    conditions: conditionsOf(status),
  };
}
