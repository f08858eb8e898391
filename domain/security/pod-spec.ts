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
function strings(x: unknown): string[] {
  return list(x).filter((s): s is string => typeof s === 'string');
}

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
function secretEnv(rawEnv: unknown): SecretLookingEnv[] {
  const out: SecretLookingEnv[] = [];
  for (const entry of list(rawEnv)) {
    const e = record(entry);
    const name = str(e?.name);
    if (!e || !name) continue;
    const value = str(e.value);
    const literal = value !== null && value !== '';
    if (isSecretLookingName(name) || (literal && PRIVATE_KEY_VALUE.test(value))) out.push({ name, literal });
  }
  return out;
}

function seLinux(x: unknown): SeLinuxOptions | null {
  const o = record(x);
  return o ? { type: str(o.type) ?? '', user: str(o.user) ?? '', role: str(o.role) ?? '' } : null;
}

/** A profile object present with no type reads as '' (set, and not an allowed value), as the PSS read it. */
function profileType(x: unknown): string | null {
  const o = record(x);
  return o ? (str(o.type) ?? '') : null;
}

function common(sc: Raw | null) {
  return {
    runAsNonRoot: bool(sc?.runAsNonRoot),
    runAsUser: num(sc?.runAsUser),
    seccompProfileType: profileType(sc?.seccompProfile),
    appArmorProfileType: profileType(sc?.appArmorProfile),
    seLinuxOptions: seLinux(sc?.seLinuxOptions),
    windowsHostProcess: bool(record(sc?.windowsOptions)?.hostProcess),
  };
}

function podSecurityContext(x: unknown): PodSecurityContext {
  const sc = record(x);
  const sysctls = list(sc?.sysctls)
    .map((s) => str(record(s)?.name))
    .filter((n): n is string => n !== null);
  return { ...common(sc), sysctls };
}

function containerSecurityContext(x: unknown): ContainerSecurityContext {
  const sc = record(x);
  const caps = record(sc?.capabilities);
  return {
    ...common(sc),
    privileged: bool(sc?.privileged),
    allowPrivilegeEscalation: bool(sc?.allowPrivilegeEscalation),
    capabilitiesAdd: strings(caps?.add),
    capabilitiesDrop: strings(caps?.drop),
    procMount: str(sc?.procMount),
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

function container(x: unknown, kind: ContainerKind, annotations: Raw | null): ContainerSecuritySpec | null {
  const c = record(x);
  const name = str(c?.name);
  if (!c || !name) return null;
  const resources = record(c.resources);
  const lifecycle = record(c.lifecycle);
  return {
    name,
    kind,
    image: str(c.image) ?? '',
    ports: list(c.ports).flatMap((p) => {
      const port = record(p);
      return port ? [{ hostPort: num(port.hostPort) ?? 0 }] : [];
    }),
    securityContext: containerSecurityContext(c.securityContext),
    resources: {
      cpuRequest: has(resources?.requests, 'cpu'),
      memoryRequest: has(resources?.requests, 'memory'),
      cpuLimit: has(resources?.limits, 'cpu'),
      memoryLimit: has(resources?.limits, 'memory'),
    },
    probes: { liveness: record(c.livenessProbe) !== null, readiness: record(c.readinessProbe) !== null },
    probeHosts: [c.livenessProbe, c.readinessProbe, c.startupProbe, lifecycle?.postStart, lifecycle?.preStop].flatMap(handlerHosts),
    appArmorAnnotation: str(annotations?.[APPARMOR_ANNOTATION_PREFIX + name]),
    secretEnv: secretEnv(c.env),
  };
}

/** The volume source's field name: whatever non-null field besides `name` the volume carries. */
function volume(x: unknown): VolumeSpec | null {
  const vol = record(x);
  const name = str(vol?.name);
  if (!vol || !name) return null;
  const type = Object.keys(vol).find((k) => k !== 'name' && vol[k] !== null && vol[k] !== undefined) ?? 'unknown';
  return { name, type, hostPath: type === 'hostPath' ? (str(record(vol.hostPath)?.path) ?? '') : null };
}

/**
 * The compact spec of a pod (its `spec`) or of a workload's pod template
 * (`spec.template.spec`). `annotations` are the pod's or the template's
 * `metadata.annotations`; only the AppArmor beta ones are read.
 */
export function podSecuritySpec(rawPodSpec: unknown, annotations?: unknown): PodSecuritySpec {
  const spec = record(rawPodSpec) ?? {};
  const notes = record(annotations);
  const containers = [
    ...list(spec.initContainers).map((c) => container(c, 'init', notes)),
    ...list(spec.containers).map((c) => container(c, 'container', notes)),
    ...list(spec.ephemeralContainers).map((c) => container(c, 'ephemeral', notes)),
  ].filter((c): c is ContainerSecuritySpec => c !== null);
  return {
    hostNetwork: spec.hostNetwork === true,
    hostPID: spec.hostPID === true,
    hostIPC: spec.hostIPC === true,
    os: str(record(spec.os)?.name),
    securityContext: podSecurityContext(spec.securityContext),
    // `serviceAccount` is the deprecated alias the API still fills; empty means `default`.
    serviceAccountName: str(spec.serviceAccountName) || str(spec.serviceAccount) || 'default',
    automountServiceAccountToken: bool(spec.automountServiceAccountToken),
    volumes: list(spec.volumes)
      .map(volume)
      .filter((vol): vol is VolumeSpec => vol !== null),
    containers,
  };
}
