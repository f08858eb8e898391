// What a kubelet message says is missing: the ConfigMap, Secret, key or claim a container
// cannot start without. Read from a CreateContainerConfigError waiting message and from
// FailedMount events. The kubelet's wordings (facts, not copied code):
//
//   configmap "app-config" not found                      env/envFrom: the object is missing
//   secret "db" not found
//   couldn't find key url in ConfigMap shop/app-config    env valueFrom: the key is missing
//   couldn't find key password in Secret shop/db
//   MountVolume.SetUp failed for volume "cfg" : configmap "app-config" not found
//   MountVolume.SetUp failed for volume "cfg" : configmap references non-existent config key: a
//   MountVolume.SetUp failed for volume "tls" : references non-existent secret key: tls.crt
//   ... persistentvolumeclaim "data" not found
//
// The API server's NotFound text uses the resource's plural on some paths ("configmaps
// \"x\" not found"), so both spellings are read.

export type MissingKind = 'ConfigMap' | 'Secret' | 'PersistentVolumeClaim';

export interface MissingObject {
  kind: MissingKind;
  /** Null when the message names only the key (a volume's items referencing a missing key). */
  name: string | null;
  /** Null when the message does not say (then it is the pod's own namespace). */
  namespace: string | null;
  /** The missing key; null when the whole object is missing. */
  key: string | null;
  /** The pod volume the kubelet was mounting, for FailedMount messages. */
  volume: string | null;
}

function kindOf(word: string | undefined): MissingKind | null {
  switch (word?.toLowerCase()) {
    case 'configmap':
    case 'configmaps':
      return 'ConfigMap';
    case 'secret':
    case 'secrets':
      return 'Secret';
    case 'persistentvolumeclaim':
    case 'persistentvolumeclaims':
      return 'PersistentVolumeClaim';
    default:
      return null;
  }
}

const NOT_FOUND = /\b(configmaps?|secrets?|persistentvolumeclaims?) "([^"]+)" not found/i;
const KEY_NOT_FOUND = /couldn't find key (\S+) in (ConfigMap|Secret) (?:([^/\s]+)\/)?([^\s,;]+)/i;
const VOLUME_KEY_MISSING = /(?:(configmap) references non-existent config key|references non-existent (secret) key): (\S+)/i;
const VOLUME = /for volume "([^"]+)"/;

/** The object (or key) a kubelet message says is missing; null when it names none. */
export function parseMissingObject(message: string | null): MissingObject | null {
  if (!message) return null;
  const volume = VOLUME.exec(message)?.[1] ?? null;
  const key = KEY_NOT_FOUND.exec(message);
  const keyKind = kindOf(key?.[2]);
  if (key?.[1] && key[4] && keyKind) return { kind: keyKind, name: key[4], namespace: key[3] ?? null, key: key[1], volume };
  const missing = NOT_FOUND.exec(message);
  const missingKind = kindOf(missing?.[1]);
  if (missing?.[2] && missingKind) return { kind: missingKind, name: missing[2], namespace: null, key: null, volume };
  const volumeKey = VOLUME_KEY_MISSING.exec(message);
  if (volumeKey?.[3]) return { kind: volumeKey[1] ? 'ConfigMap' : 'Secret', name: null, namespace: null, key: volumeKey[3], volume };
  return null;
}

export type ProbeKind = 'liveness' | 'readiness' | 'startup';

/** Which probe an Unhealthy event is about: "Readiness probe failed: HTTP probe failed with statuscode: 503". */
export function probeOfMessage(message: string): ProbeKind | null {
  const word = /^(liveness|readiness|startup) probe (?:failed|errored)/i.exec(message.trim())?.[1]?.toLowerCase();
  return word === 'liveness' || word === 'readiness' || word === 'startup' ? word : null;
}
