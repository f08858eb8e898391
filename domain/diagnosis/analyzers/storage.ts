// Storage findings: claims that stay Pending, with the cause when the cluster shows one, and
// volumes that Failed or were Released. Pure: cached state in, draft findings out.
//
// Decisions (docs/diagnosis.md repeats them):
// - A claim Pending for less than PVC_PENDING_SECS is not judged: dynamic provisioning takes
//   seconds, and a claim applied just before its StorageClass would otherwise raise an alarm.
//   A claim with no creation time is judged (its age is unknown, not young).
// - One finding per claim, the most specific cause first: the class does not exist; the
//   provisioner reported ProvisioningFailed; a static class (no provisioner, or class '') has
//   no Available volume that fits; else PvcPending.
// - A claim with no storageClassName takes the default class. When no class is marked default
//   the claim can only bind a volume without a class: unless such a volume fits, that is
//   PvcStorageClassMissing with `default_class_missing` (the usual intent was dynamic
//   provisioning, and the fix is a default class or a named one).
// - A WaitForFirstConsumer claim that no pod uses is healthy (it waits by design): no finding.
//   One that a pod uses is judged for provisioning failures and missing volumes, but never gets
//   the PvcPending fallback: it waits for its pod to be scheduled, and the pod's own finding
//   (Unschedulable, ...) says why.
// - While StorageClasses are forbidden or not synced, no class is judged missing and a claim no
//   pod uses gets no fallback (its class may be WaitForFirstConsumer); while PersistentVolumes
//   are, no claim is judged to lack a volume.
// - A claim pre-bound to a volume (`spec.volumeName`) waits for that one volume: missing, or
//   held elsewhere (Released, Failed, bound to another claim), it is PvcNoMatchingVolume and
//   suspects that volume, so a PvReleased or PvFailed finding becomes the root.
// - A Pending claim suspects its StorageClass when the class exists.
// - PvReleased: a Retain volume stays Released until someone clears it; a Delete volume is
//   Released only for the moment before its deleter removes it (or marks it Failed), so a
//   lasting Released phase there means a deleter that is not running. The policy is in the evidence.
import { listTrust } from '../list-trust.ts';
import type { PodObject, PvcObject, PvObject, StorageClassObject } from '../../cluster/model.ts';
import { nodeId } from '../../cluster/node-id.ts';
import { redactText } from '../../redaction/redact.ts';
import type { CodeSpec } from '../codes.ts';
import { warningsAbout, type Analyzer, type DiagnosisInput, type DraftFinding } from '../input.ts';
import { fact, findingBuilder } from '../draft.ts';

/** A claim Pending for less than this is not judged yet (seconds). */
export const PVC_PENDING_SECS = 60;
/** Provisioners that never create volumes: a claim of such a class needs a volume made by hand. */
export const NO_PROVISIONER = 'kubernetes.io/no-provisioner';
/** Cluster messages in attributes are cut to this length (after redaction). */
const MAX_MESSAGE = 300;

export const STORAGE_CODES: readonly CodeSpec[] = [
  {
    code: 'PvcStorageClassMissing',
    kind: 'PersistentVolumeClaim',
    severity: 'warning',
    rule: `A claim Pending for ${PVC_PENDING_SECS}s or more names a StorageClass that does not exist, or names none while no class is marked default and no volume without a class fits it.`,
  },
  {
    code: 'PvcProvisioningFailed',
    kind: 'PersistentVolumeClaim',
    severity: 'warning',
    rule: `A claim Pending for ${PVC_PENDING_SECS}s or more has Warning ProvisioningFailed events; the provisioner's message, redacted, is an attribute.`,
  },
  {
    code: 'PvcNoMatchingVolume',
    kind: 'PersistentVolumeClaim',
    severity: 'warning',
    rule: `A claim Pending for ${PVC_PENDING_SECS}s or more whose class provisions nothing (${NO_PROVISIONER}, or class '') finds no Available volume of that class with the capacity and access modes it asks for, or whose pre-bound volume is missing or held elsewhere.`,
  },
  {
    code: 'PvcPending',
    kind: 'PersistentVolumeClaim',
    severity: 'warning',
    rule: `A claim Pending for ${PVC_PENDING_SECS}s or more with no more specific cause; a WaitForFirstConsumer claim is never reported this way.`,
  },
  {
    code: 'PvFailed',
    kind: 'PersistentVolume',
    severity: 'warning',
    rule: "A volume in phase Failed (its recycler or deleter failed); the volume's reason and message are attributes.",
  },
  {
    code: 'PvReleased',
    kind: 'PersistentVolume',
    severity: 'warning',
    rule: 'A volume in phase Released: its claim is gone, it still holds the data and will not bind again until an administrator clears its claim reference.',
  },
];


const ageSecs = (since: string | null, now: Date): number => (since === null ? Number.POSITIVE_INFINITY : (now.getTime() - Date.parse(since)) / 1000);


const finding = findingBuilder(STORAGE_CODES);

/** `10Gi`, `512Mi`, `1.5Gi`: binary units as claims are usually written. */
export function formatBytes(n: number): string {
  const units = ['Ti', 'Gi', 'Mi', 'Ki'] as const;
  for (const [i, unit] of units.entries()) {
    const size = 1024 ** (units.length - i);
    if (n >= size) return `${Number((n / size).toFixed(1))}${unit}`;
  }
  return `${n}`;
}

const clip = (text: string): string => {
  const clean = redactText(text);
  return clean.length > MAX_MESSAGE ? `${clean.slice(0, MAX_MESSAGE - 1)}…` : clean;
};

/** A claim's ask in words: `10Gi ReadWriteOnce`. */
const askText = (pvc: PvcObject): string => [pvc.requestBytes === null ? null : formatBytes(pvc.requestBytes), pvc.accessModes.join(',') || null].filter((s) => s !== null).join(' ') || 'a volume';

/** Whether an Available `pv` could bind `pvc`: not reserved for another claim, of the class, big enough, with every mode asked. */
function fits(pv: PvObject, pvc: PvcObject, className: string): boolean {
  if (pv.claim !== null && (pv.claim.namespace !== pvc.namespace || pv.claim.name !== pvc.name)) return false;
  if ((pv.storageClass ?? '') !== className) return false;
  // An unknown capacity is given the benefit of the doubt: a false alarm costs more than silence.
  if (pv.capacityBytes !== null && pvc.requestBytes !== null && pv.capacityBytes < pvc.requestBytes) return false;
  return pvc.accessModes.every((m) => pv.accessModes.includes(m));
}

interface StorageState {
  classes: ReadonlyMap<string, StorageClassObject> | null;
  defaultClass: StorageClassObject | null;
  pvs: ReadonlyMap<string, PvObject> | null;
  /** Available volumes by class name ('' for none). */
  availableByClass: ReadonlyMap<string, PvObject[]>;
  consumers: ReadonlyMap<string, PodObject[]>;
}

function judgeClaim(input: DiagnosisInput, pvc: PvcObject, state: StorageState): DraftFinding | null {
  const { namespace, name } = pvc;
  const id = nodeId('PersistentVolumeClaim', namespace, name);
  const since = pvc.createdAt;
  const age = ageSecs(pvc.createdAt, input.now);
  const pending = Number.isFinite(age) ? ` for ${formatAge(age)}` : '';
  const consumers = state.consumers.get(`${namespace}/${name}`) ?? [];

  // Pre-bound: the claim waits for that one volume.
  if (pvc.volumeName) {
    if (state.pvs === null) return null;
    const pvId = nodeId('PersistentVolume', null, pvc.volumeName);
    const pv = state.pvs.get(pvc.volumeName);
    if (!pv) {
      return finding(id, namespace, 'PvcNoMatchingVolume', `claim ${name} waits for volume ${pvc.volumeName}, which does not exist`, [fact(pvId, `volume ${pvc.volumeName} does not exist`, 'absence')], {
        since,
        attributes: { volume: pvc.volumeName },
      });
    }
    const heldBy = pv.claim && (pv.claim.namespace !== namespace || pv.claim.name !== name) ? `${pv.claim.namespace}/${pv.claim.name}` : null;
    if (pv.phase !== 'Available' || heldBy !== null) {
      const why = heldBy !== null ? `is ${pv.phase} and reserved for claim ${heldBy}` : `is ${pv.phase}`;
      return finding(id, namespace, 'PvcNoMatchingVolume', `claim ${name} waits for volume ${pv.name}, which ${why}`, [fact(pvId, `volume ${pv.name} ${why}`, 'status')], {
        since,
        attributes: { volume: pv.name, volume_phase: pv.phase },
        suspects: [pvId],
      });
    }
  }

  // The class the claim asks for: named, '' (none), or the default; undefined when unknowable.
  let storageClass: StorageClassObject | null = null;
  let className: string | undefined;
  if (pvc.storageClass !== null && pvc.storageClass !== '') {
    className = pvc.storageClass;
    if (state.classes !== null) {
      storageClass = state.classes.get(className) ?? null;
      if (!storageClass) {
        return finding(id, namespace, 'PvcStorageClassMissing', `claim ${name} names StorageClass ${className}, which does not exist`, [fact(nodeId('StorageClass', null, className), `StorageClass ${className} does not exist`, 'absence')], {
          since,
          attributes: { storage_class: className },
        });
      }
    }
  } else if (pvc.storageClass === '') {
    className = '';
  } else if (state.classes !== null) {
    storageClass = state.defaultClass;
    className = storageClass?.name ?? '';
    if (!storageClass && !(state.pvs !== null && (state.availableByClass.get('') ?? []).some((pv) => fits(pv, pvc, '')))) {
      return finding(id, namespace, 'PvcStorageClassMissing', `claim ${name} names no StorageClass and no class is marked default`, [fact(id, 'no storageClassName and no default StorageClass: only a volume without a class can bind it', 'spec')], {
        since,
        attributes: { storage_class: '', default_class_missing: true },
      });
    }
  }
  const suspects = storageClass ? [nodeId('StorageClass', null, storageClass.name)] : [];
  const waitsForConsumer = storageClass?.bindingMode === 'WaitForFirstConsumer';
  if (waitsForConsumer && consumers.length === 0) return null;

  // A class that provisions nothing is judged on its volumes first: the PV controller's own
  // ProvisioningFailed ("no volume plugin matched") there only repeats that nothing can make one.
  const isStatic = className === '' || storageClass?.provisioner === NO_PROVISIONER;
  if (isStatic && className !== undefined && state.pvs !== null) {
    const available = state.availableByClass.get(className) ?? [];
    if (!available.some((pv) => fits(pv, pvc, className))) {
      const classWords = className === '' ? 'without a class' : `of class ${className}`;
      const seen = available.length === 0 ? `no Available volume ${classWords}` : `${available.length} Available volume${available.length === 1 ? '' : 's'} ${classWords}, none with the capacity and access modes asked`;
      return finding(id, namespace, 'PvcNoMatchingVolume', `claim ${name} asks for ${askText(pvc)} and no volume ${classWords} fits`, [fact(id, `asks for ${askText(pvc)} ${classWords}; ${seen}`, 'spec')], {
        since,
        attributes: { storage_class: className, request_bytes: pvc.requestBytes ?? 0, access_modes: pvc.accessModes.join(','), available_volumes: available.length },
        suspects,
      });
    }
  }

  const failures = warningsAbout(input, 'PersistentVolumeClaim', namespace, name).filter((e) => e.reason === 'ProvisioningFailed');
  const latest = failures[0];
  if (latest) {
    const message = clip(latest.message);
    const firstSeen = failures.map((e) => e.firstSeen).filter((t): t is string => t !== null).sort()[0] ?? since;
    const attributes: DraftFinding['attributes'] = { message };
    if (storageClass) attributes.provisioner = storageClass.provisioner;
    if (className !== undefined) attributes.storage_class = className;
    return finding(id, namespace, 'PvcProvisioningFailed', `claim ${name} cannot be provisioned: ${message}`, [fact(id, `ProvisioningFailed (${failures.reduce((n, e) => n + e.count, 0)}x): ${message}`, 'event')], {
      since: firstSeen,
      attributes,
      suspects,
    });
  }

  if (waitsForConsumer) return null;
  // The class is unknowable: it may be WaitForFirstConsumer, so a claim no pod uses stays quiet.
  if (state.classes === null && consumers.length === 0) return null;
  const attributes: DraftFinding['attributes'] = {};
  if (className !== undefined) attributes.storage_class = className;
  if (storageClass) attributes.provisioner = storageClass.provisioner;
  const by = storageClass ? `; class ${storageClass.name} provisions through ${storageClass.provisioner}` : '';
  return finding(id, namespace, 'PvcPending', `claim ${name} has been Pending${pending}`, [fact(id, `Pending${pending}, no volume bound${by}`, 'status')], { since, attributes, suspects });
}

function formatAge(secs: number): string {
  if (secs < 120) return `${Math.floor(secs)}s`;
  if (secs < 7200) return `${Math.floor(secs / 60)}m`;
  if (secs < 172800) return `${Math.floor(secs / 3600)}h`;
  return `${Math.floor(secs / 86400)}d`;
}

function judgeVolume(pv: PvObject): DraftFinding | null {
  const id = nodeId('PersistentVolume', null, pv.name);
  if (pv.phase === 'Failed') {
    const attributes: DraftFinding['attributes'] = {};
    if (pv.reason) attributes.reason = pv.reason;
    if (pv.message) attributes.message = clip(pv.message);
    const why = [pv.reason, pv.message === null ? null : clip(pv.message)].filter((s) => s !== null && s !== '').join(': ');
    return finding(id, null, 'PvFailed', `volume ${pv.name} failed${why ? `: ${why}` : ''}`, [fact(id, `phase Failed${why ? `: ${why}` : ''}`, 'status')], { attributes });
  }
  if (pv.phase === 'Released') {
    const claim = pv.claim ? `${pv.claim.namespace}/${pv.claim.name}` : null;
    const attributes: DraftFinding['attributes'] = {};
    if (claim) attributes.claim = claim;
    const from = claim ? ` by claim ${claim}` : '';
    return finding(id, null, 'PvReleased', `volume ${pv.name} was released${from} and will not bind again`, [fact(id, `phase Released${from} (reclaim policy ${pv.reclaimPolicy}): it still holds the data and will not bind again until its claim reference is cleared`, 'status')], { attributes });
  }
  return null;
}

export const analyzeStorage: Analyzer = (input) => {
  const trusted = listTrust(input);
  const classesTrusted = trusted('storageclasses', null);
  const pvsTrusted = trusted('persistentvolumes', null);
  const classList = input.view.storageClasses();
  const pvList = input.view.pvs();
  const availableByClass = new Map<string, PvObject[]>();
  for (const pv of pvList) {
    if (pv.phase !== 'Available') continue;
    const key = pv.storageClass ?? '';
    const list = availableByClass.get(key);
    if (list) list.push(pv);
    else availableByClass.set(key, [pv]);
  }
  const consumers = new Map<string, PodObject[]>();
  for (const pod of input.view.pods()) {
    if (pod.phase === 'Succeeded' || pod.phase === 'Failed') continue;
    for (const claim of pod.refs.pvcs) {
      const key = `${pod.namespace}/${claim}`;
      const list = consumers.get(key);
      if (list) list.push(pod);
      else consumers.set(key, [pod]);
    }
  }
  const state: StorageState = {
    classes: classesTrusted ? new Map(classList.map((c) => [c.name, c])) : null,
    // Several defaults: the API server picks the newest; the cache keeps no creation time, so
    // the first by name stands in (it only names the suspect and the binding mode).
    defaultClass: classesTrusted ? ([...classList].filter((c) => c.isDefault).sort((a, b) => a.name.localeCompare(b.name))[0] ?? null) : null,
    pvs: pvsTrusted ? new Map(pvList.map((pv) => [pv.name, pv])) : null,
    availableByClass,
    consumers,
  };

  const findings: DraftFinding[] = [];
  for (const pvc of input.view.pvcs()) {
    if (pvc.phase !== 'Pending' || ageSecs(pvc.createdAt, input.now) < PVC_PENDING_SECS) continue;
    const found = judgeClaim(input, pvc, state);
    if (found) findings.push(found);
  }
  if (pvsTrusted) {
    for (const pv of pvList) {
      const found = judgeVolume(pv);
      if (found) findings.push(found);
    }
  }
  return findings;
};
