// The compact pod spec the built-in security checks read (domain/security/pod-spec.ts), kept
// on the objects judged by their own spec: every workload's pod template and bare pods, never
// on a replica pod (its template is judged once, on its workload). Its strings repeat across
// the cluster (images, container and ServiceAccount names, capability and volume-type names),
// so each passes through the intern table like the rest of the slimmed objects.
import type { SecurityJudged } from '../../domain/cluster/model.ts';
import { podSecuritySpec } from '../../domain/security/pod-spec.ts';
import type { ContainerSecuritySpec, PodSecuritySpec, SeLinuxOptions } from '../../schema/security.ts';
import { intern, internOrNull } from './intern.ts';

type Raw = Record<string, unknown>;

function record(x: unknown): Raw | null {
  return typeof x === 'object' && x !== null && !Array.isArray(x) ? (x as Raw) : null;
}

const internAll = (xs: string[]): string[] => xs.map(intern);
const seLinux = (o: SeLinuxOptions | null): SeLinuxOptions | null => (o === null ? null : { type: intern(o.type), user: intern(o.user), role: intern(o.role) });

function internContainer(c: ContainerSecuritySpec): ContainerSecuritySpec {
  const sc = c.securityContext;
  return {
    ...c,
    name: intern(c.name),
    image: intern(c.image),
    securityContext: {
      ...sc,
      seccompProfileType: internOrNull(sc.seccompProfileType),
      appArmorProfileType: internOrNull(sc.appArmorProfileType),
      seLinuxOptions: seLinux(sc.seLinuxOptions),
      capabilitiesAdd: internAll(sc.capabilitiesAdd),
      capabilitiesDrop: internAll(sc.capabilitiesDrop),
      procMount: internOrNull(sc.procMount),
    },
    probeHosts: internAll(c.probeHosts),
    appArmorAnnotation: internOrNull(c.appArmorAnnotation),
    secretEnv: c.secretEnv.map((e) => ({ name: intern(e.name), literal: e.literal })),
  };
}

/** `podSecuritySpec` with every repeated string interned; nothing of env values or Secrets survives it. */
export function slimSecuritySpec(rawPodSpec: unknown, annotations: unknown): PodSecuritySpec {
  const spec = podSecuritySpec(rawPodSpec, annotations);
  const sc = spec.securityContext;
  return {
    ...spec,
    os: internOrNull(spec.os),
    securityContext: {
      ...sc,
      seccompProfileType: internOrNull(sc.seccompProfileType),
      appArmorProfileType: internOrNull(sc.appArmorProfileType),
      seLinuxOptions: seLinux(sc.seLinuxOptions),
      sysctls: internAll(sc.sysctls),
    },
    serviceAccountName: intern(spec.serviceAccountName),
    volumes: spec.volumes.map((v) => ({ name: intern(v.name), type: intern(v.type), hostPath: internOrNull(v.hostPath) })),
    containers: spec.containers.map(internContainer),
  };
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
