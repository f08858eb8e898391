// An object as the detail view shows it (read live by one GET): managed fields and the
// last-applied annotation dropped (they repeat the object, and the annotation of a Secret holds
// its data in clear), a Secret reduced to its metadata and type, a ConfigMap's values reduced to
// their keys, and every value that looks secret redacted: under a secret-looking key, in an
// environment variable whose name looks secret, or inside free text.
import { REDACTED, redactRecord, redactValue } from '../redaction/redact.ts';

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `{name: DB_PASSWORD, value: ...}` (an env var, a header, a parameter): hidden when the name looks secret. */
function hideNamedSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(hideNamedSecrets);
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = hideNamedSecrets(v);
  if (typeof out.name === 'string' && typeof out.value === 'string' && redactRecord({ [out.name]: out.value })[out.name] === REDACTED) out.value = REDACTED;
  return out;
}

function cleanMetadata(metadata: unknown): unknown {
  if (!isRecord(metadata)) return metadata;
  const rest: Record<string, unknown> = { ...metadata };
  delete rest.managedFields;
  if (isRecord(rest.annotations) && LAST_APPLIED in rest.annotations) {
    rest.annotations = Object.fromEntries(Object.entries(rest.annotations).filter(([key]) => key !== LAST_APPLIED));
  }
  return rest;
}

/** `raw` (one object as the API server answered a GET) as it may be shown; `kind` is its resource plural. */
export function objectView(kind: string, raw: unknown): Json {
  if (!isRecord(raw)) return null;
  const metadata = cleanMetadata(raw.metadata);
  if (kind === 'secrets') {
    // Never data: the type says what kind of Secret it is, the keys are not shown either.
    return redactValue({ apiVersion: raw.apiVersion, kind: raw.kind, metadata, type: raw.type ?? null }) as Json;
  }
  const object: Record<string, unknown> = { ...raw, metadata };
  if (kind === 'configmaps') {
    const keys = [...Object.keys(isRecord(raw.data) ? raw.data : {}), ...Object.keys(isRecord(raw.binaryData) ? raw.binaryData : {})].sort();
    delete object.data;
    delete object.binaryData;
    object.keys = keys;
  }
  return redactValue(hideNamedSecrets(object)) as Json;
}
