// The compact pod spec the built-in security checks read (domain/security/pod-spec.ts), kept
// on the objects judged by their own spec: every workload's pod template and bare pods, never
// on a replica pod (its template is judged once, on its workload). Its strings repeat across
// the cluster (images, container and ServiceAccount names, capability and volume-type names),
// so the extractor passes each through the intern table like the rest of the slimmed objects.
import type { SecurityJudged } from '../../domain/cluster/model.ts';
import { podSecuritySpec } from '../../domain/security/pod-spec.ts';
import type { PodSecuritySpec } from '../../schema/security.ts';
import { intern } from './intern.ts';

type Raw = Record<string, unknown>;

function record(x: unknown): Raw | null {
  return typeof x === 'object' && x !== null && !Array.isArray(x) ? (x as Raw) : null;
}

/** `podSecuritySpec` with every kept string interned; nothing of env values or Secrets survives it. */
export function slimSecuritySpec(rawPodSpec: unknown, annotations: unknown): PodSecuritySpec {
  return podSecuritySpec(rawPodSpec, annotations, intern);
}

/**
 * `{security}` from a pod template (`{metadata, spec}`), or nothing when there is no template
 * (the field is then absent, as on every object not judged by its own spec).
 */
export function templateSecurity(rawTemplate: unknown): SecurityJudged {
  const template = record(rawTemplate);
  const spec = record(template?.spec);
  if (!template || !spec) return {};
  return { security: slimSecuritySpec(spec, record(template.metadata)?.annotations) };
}
