// From a Kubernetes PodSpec as the API returns it (a pod's `spec`, or a workload's
// `spec.template.spec`) to the compact `PodSecuritySpec` every built-in check reads.
// Nothing secret survives: env values are reduced to "literal or not" for secret-looking
// names, and nothing of a Secret's data is ever read. Unset stays null, because the Pod
// Security Standards tell "undefined" from "false" and so must we.
import type {
  ContainerKind,
  ContainerSecurityContext,
  ContainerSecuritySpec,
  PodSecurityContext,
  PodSecuritySpec,
  SecretLookingEnv,
  SeLinuxOptions,
  VolumeSpec,
} from '../../schema/security.ts';

type Raw = Record<string, unknown>;

function record(x: unknown): Raw | null {
  return typeof x === 'object' && x !== null && !Array.isArray(x) ? (x as Raw) : null;
}
function list(x: unknown): unknown[] {
  return Array.isArray(x) ? x : [];
}
function bool(x: unknown): boolean | null {
  return typeof x === 'boolean' ? x : null;
}
function num(x: unknown): number | null {
  return typeof x === 'number' && Number.isFinite(x) ? x : null;
}
function str(x: unknown): string | null {
  return typeof x === 'string' ? x : null;
}
function strings(x: unknown, keep: Keep): string[] {
  return list(x)
    .filter((s): s is string => typeof s === 'string')
    .map(keep);
}

/**
 * What every kept string passes through: the runtime hands in its intern table (the same
 * images, names and capability names repeat across a cluster), a test nothing.
 */
export type Keep = (s: string) => string;
const asIs: Keep = (s) => s;
const keepOrNull = (s: string | null, keep: Keep): string | null => (s === null ? null : keep(s));

/** The beta annotation AppArmor was set with before the field existed; the PSS still judge it. */
export const APPARMOR_ANNOTATION_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';

/**
 * Env names that usually hold a secret: Polaris' `sensitiveContainerEnvVar` list
 * (github.com/FairwindsOps/polaris, pkg/config/checks/sensitiveContainerEnvVar.yaml)
 * plus a few spellings it misses (passwd, api key, private key, access key).
 */
const SECRET_NAME_PATTERNS: readonly RegExp[] = [
  /^AWS_SECRET_ACCESS_KEY$/i,
  /^GOOGLE_APPLICATION_CREDENTIALS$/i,
  /^AZURE_.+KEY$/i,
  /^OCI_CLI_KEY_CONTENT$/i,
  /password/i,
  /passwd/i,
  /token/i,
  /bearer/i,
  /secret/i,
  /api[_-]?key/i,
  /private[_-]?key/i,
  /access[_-]?key/i,
];
/** A PEM private key pasted as a value, whatever the variable is called (Polaris' value rule). */
const PRIVATE_KEY_VALUE = /-BEGIN\s+.*PRIVATE KEY-/i;

export function isSecretLookingName(name: string): boolean {
  return SECRET_NAME_PATTERNS.some((p) => p.test(name));
}

/**
 * Secret-looking env entries, name and kind only. A literal is a non-empty `value`: an empty
 * one leaks nothing. The value is read once, here, to ask whether it is a private key, and
 * never stored.
 */
function secretEnv(rawEnv: unknown, keep: Keep): SecretLookingEnv[] {
  const out: SecretLookingEnv[] = [];
  for (const entry of list(rawEnv)) {
    const e = record(entry);
    const name = str(e?.name);
    if (!e || !name) continue;
    const value = str(e.value);
    const literal = value !== null && value !== '';
    if (isSecretLookingName(name) || (literal && PRIVATE_KEY_VALUE.test(value))) out.push({ name: keep(name), literal });
  }
  return out;
}

function seLinux(x: unknown, keep: Keep): SeLinuxOptions | null {
  const o = record(x);
  return o ? { type: keep(str(o.type) ?? ''), user: keep(str(o.user) ?? ''), role: keep(str(o.role) ?? '') } : null;
}

/** A profile object present with no type reads as '' (set, and not an allowed value), as the PSS read it. */
function profileType(x: unknown, keep: Keep): string | null {
  const o = record(x);
  return o ? keep(str(o.type) ?? '') : null;
}

function common(sc: Raw | null, keep: Keep) {
  return {
    runAsNonRoot: bool(sc?.runAsNonRoot),
    runAsUser: num(sc?.runAsUser),
    seccompProfileType: profileType(sc?.seccompProfile, keep),
    appArmorProfileType: profileType(sc?.appArmorProfile, keep),
    seLinuxOptions: seLinux(sc?.seLinuxOptions, keep),
    windowsHostProcess: bool(record(sc?.windowsOptions)?.hostProcess),
  };
}

function podSecurityContext(x: unknown, keep: Keep): PodSecurityContext {
  const sc = record(x);
  const sysctls = list(sc?.sysctls)
    .map((s) => str(record(s)?.name))
    .filter((n): n is string => n !== null)
    .map(keep);
  return { ...common(sc, keep), sysctls };
}

function containerSecurityContext(x: unknown, keep: Keep): ContainerSecurityContext {
  const sc = record(x);
  const caps = record(sc?.capabilities);
  return {
    ...common(sc, keep),
    privileged: bool(sc?.privileged),
    allowPrivilegeEscalation: bool(sc?.allowPrivilegeEscalation),
    capabilitiesAdd: strings(caps?.add, keep),
    capabilitiesDrop: strings(caps?.drop, keep),
    procMount: keepOrNull(str(sc?.procMount), keep),
  };
}

/** `host` of an httpGet or tcpSocket handler, when set (the PSS allow "" and undefined only). */
function handlerHosts(x: unknown): string[] {
  const h = record(x);
  return [str(record(h?.httpGet)?.host), str(record(h?.tcpSocket)?.host)].filter((s): s is string => s !== null && s !== '');
}

function has(x: unknown, key: string): boolean {
  const o = record(x);
  return o !== null && o[key] !== undefined && o[key] !== null;
}

function container(x: unknown, kind: ContainerKind, annotations: Raw | null, keep: Keep): ContainerSecuritySpec | null {
  const c = record(x);
  const name = str(c?.name);
  if (!c || !name) return null;
  const resources = record(c.resources);
  const lifecycle = record(c.lifecycle);
  return {
    name: keep(name),
    kind,
    image: keep(str(c.image) ?? ''),
    ports: list(c.ports).flatMap((p) => {
      const port = record(p);
      return port ? [{ hostPort: num(port.hostPort) ?? 0 }] : [];
    }),
    securityContext: containerSecurityContext(c.securityContext, keep),
    resources: {
      cpuRequest: has(resources?.requests, 'cpu'),
      memoryRequest: has(resources?.requests, 'memory'),
      cpuLimit: has(resources?.limits, 'cpu'),
      memoryLimit: has(resources?.limits, 'memory'),
    },
    probes: { liveness: record(c.livenessProbe) !== null, readiness: record(c.readinessProbe) !== null },
    probeHosts: [c.livenessProbe, c.readinessProbe, c.startupProbe, lifecycle?.postStart, lifecycle?.preStop].flatMap(handlerHosts).map(keep),
    appArmorAnnotation: keepOrNull(str(annotations?.[APPARMOR_ANNOTATION_PREFIX + name]), keep),
    secretEnv: secretEnv(c.env, keep),
  };
}

/** The volume source's field name: whatever non-null field besides `name` the volume carries. */
function volume(x: unknown, keep: Keep): VolumeSpec | null {
  const vol = record(x);
  const name = str(vol?.name);
  if (!vol || !name) return null;
  const type = Object.keys(vol).find((k) => k !== 'name' && vol[k] !== null && vol[k] !== undefined) ?? 'unknown';
  return { name: keep(name), type: keep(type), hostPath: type === 'hostPath' ? keep(str(record(vol.hostPath)?.path) ?? '') : null };
}

/**
 * The compact spec of a pod (its `spec`) or of a workload's pod template
 * (`spec.template.spec`). `annotations` are the pod's or the template's
 * `metadata.annotations`; only the AppArmor beta ones are read. Every string kept passes
 * through `keep` (the runtime's intern table).
 */
export function podSecuritySpec(rawPodSpec: unknown, annotations?: unknown, keep: Keep = asIs): PodSecuritySpec {
  const spec = record(rawPodSpec) ?? {};
  const notes = record(annotations);
  const containers = [
    ...list(spec.initContainers).map((c) => container(c, 'init', notes, keep)),
    ...list(spec.containers).map((c) => container(c, 'container', notes, keep)),
    ...list(spec.ephemeralContainers).map((c) => container(c, 'ephemeral', notes, keep)),
  ].filter((c): c is ContainerSecuritySpec => c !== null);
  return {
    hostNetwork: spec.hostNetwork === true,
    hostPID: spec.hostPID === true,
    hostIPC: spec.hostIPC === true,
    os: keepOrNull(str(record(spec.os)?.name), keep),
    securityContext: podSecurityContext(spec.securityContext, keep),
    // `serviceAccount` is the deprecated alias the API still fills; empty means `default`.
    serviceAccountName: keep(str(spec.serviceAccountName) || str(spec.serviceAccount) || 'default'),
    automountServiceAccountToken: bool(spec.automountServiceAccountToken),
    volumes: list(spec.volumes)
      .map((vol) => volume(vol, keep))
      .filter((vol): vol is VolumeSpec => vol !== null),
    containers,
  };
}
