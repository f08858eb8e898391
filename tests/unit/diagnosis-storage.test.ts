// The storage analyzer (domain/diagnosis/analyzers/storage.ts) at its boundaries, one table,
// one loop: each row is a hand-built object set judged at T0 + `after` seconds, and the exact
// set of findings it must produce (by id), with the fields that matter for each.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CacheSyncStatus, ClusterView, EventObject, PodObject, PvcObject, PvObject, StorageClassObject } from '../../domain/cluster/model.ts';
import { NO_PROVISIONER, PVC_PENDING_SECS, STORAGE_CODES, analyzeStorage, formatBytes } from '../../domain/diagnosis/analyzers/storage.ts';
import { diagnosisInput, type DraftFinding } from '../../domain/diagnosis/input.ts';
import { emptyCluster } from '../support/services.ts';

const T0 = new Date('2026-11-21T12:00:00Z');
const iso = (secsAfterT0: number) => new Date(T0.getTime() + secsAfterT0 * 1000).toISOString();
/** Old enough for every bound. */
const LATER = 3600;
const GI = 1024 ** 3;

function pvc(name: string, extra: Partial<PvcObject> = {}): PvcObject {
  return { namespace: 'shop', name, phase: 'Pending', volumeName: null, storageClass: 'fast', createdAt: iso(0), requestBytes: 10 * GI, accessModes: ['ReadWriteOnce'], ...extra };
}

function pv(name: string, extra: Partial<PvObject> = {}): PvObject {
  return { name, phase: 'Available', claim: null, storageClass: 'local', reason: null, message: null, capacityBytes: 10 * GI, accessModes: ['ReadWriteOnce'], reclaimPolicy: 'Retain', ...extra };
}

const sc = (name: string, extra: Partial<StorageClassObject> = {}): StorageClassObject => ({ name, provisioner: 'csi.example.com', isDefault: false, bindingMode: 'Immediate', ...extra });
const fast = sc('fast');
const local = sc('local', { provisioner: NO_PROVISIONER, bindingMode: 'WaitForFirstConsumer' });
const localNow = sc('local', { provisioner: NO_PROVISIONER });
const lazy = sc('lazy', { bindingMode: 'WaitForFirstConsumer' });

function consumer(claim: string, extra: Partial<PodObject> = {}): PodObject {
  return {
    namespace: 'shop',
    name: `uses-${claim}`,
    phase: 'Pending',
    createdAt: iso(0),
    startedAt: null,
    nodeName: null,
    labels: {},
    workload: { kind: 'StatefulSet', name: 'db' },
    owner: { kind: 'StatefulSet', name: 'db' },
    refs: { configMaps: [], secrets: [], pvcs: [claim] },
    envHosts: [],
    ready: false,
    readySince: null,
    unschedulable: null,
    containers: [],
    statuses: [],
    initContainers: [],
    initStatuses: [],
    statusReason: null,
    deletion: null,
    finalizers: [],
    nodeSelector: {},
    ...extra,
  };
}

function provisioningFailed(claim: string, message: string, extra: Partial<EventObject> = {}): EventObject {
  return {
    namespace: 'shop',
    involvedKind: 'PersistentVolumeClaim',
    involvedNamespace: 'shop',
    involvedName: claim,
    source: 'csi.example.com_provisioner',
    type: 'Warning',
    reason: 'ProvisioningFailed',
    message,
    count: 3,
    firstSeen: iso(5),
    lastSeen: iso(50),
    ...extra,
  };
}

const forbidden = (resource: string): CacheSyncStatus => ({ resource, synced: true, failing_since: null, forbidden: true, forbidden_namespaces: [] });
const unsynced = (resource: string): CacheSyncStatus => ({ resource, synced: false, failing_since: null, forbidden: false, forbidden_namespaces: [] });

interface World {
  pvcs?: PvcObject[];
  pvs?: PvObject[];
  classes?: StorageClassObject[];
  pods?: PodObject[];
  events?: EventObject[];
  sync?: CacheSyncStatus[];
}

function view(w: World): ClusterView {
  return {
    ...emptyCluster,
    pods: () => w.pods ?? [],
    events: () => w.events ?? [],
    pvcs: () => w.pvcs ?? [],
    pvs: () => w.pvs ?? [],
    storageClasses: () => w.classes ?? [],
    syncStatus: () => w.sync ?? [],
  };
}

/** The fields a row checks on one finding; anything left out is not checked. */
type Want = { id: string } & Partial<Pick<DraftFinding, 'severity' | 'suspects' | 'attributes' | 'since' | 'namespace'>> & { evidenceNodes?: string[]; evidenceSources?: string[]; summaryIncludes?: string };

const C = 'pvc:shop/data';
const rows: { name: string; world: World; after?: number; want: Want[] }[] = [
  // The age bound and the phases that are never judged.
  { name: 'a bound claim: quiet', world: { pvcs: [pvc('data', { phase: 'Bound', volumeName: 'pv-1' })], classes: [fast], pvs: [pv('pv-1', { phase: 'Bound', storageClass: 'fast' })] }, want: [] },
  { name: 'Pending just under the bound: not judged yet', world: { pvcs: [pvc('data', { storageClass: 'nope' })], classes: [fast] }, after: PVC_PENDING_SECS - 1, want: [] },
  { name: 'Pending exactly at the bound: judged', world: { pvcs: [pvc('data', { storageClass: 'nope' })], classes: [fast] }, after: PVC_PENDING_SECS, want: [{ id: `${C}#PvcStorageClassMissing` }] },
  { name: 'no creation time: judged (its age is unknown, not young)', world: { pvcs: [pvc('data', { storageClass: 'nope', createdAt: null })], classes: [fast] }, after: 0, want: [{ id: `${C}#PvcStorageClassMissing` }] },
  // PvcStorageClassMissing and default-class handling.
  {
    name: 'a named class that does not exist: absence evidence, no suspect',
    world: { pvcs: [pvc('data', { storageClass: 'nope' })], classes: [fast] },
    want: [{ id: `${C}#PvcStorageClassMissing`, severity: 'warning', namespace: 'shop', suspects: [], attributes: { storage_class: 'nope' }, evidenceNodes: ['storageclass:nope'], evidenceSources: ['absence'], since: iso(0) }],
  },
  {
    name: 'no class named and no default class: the default is missing',
    world: { pvcs: [pvc('data', { storageClass: null })], classes: [fast] },
    want: [{ id: `${C}#PvcStorageClassMissing`, attributes: { storage_class: '', default_class_missing: true }, evidenceNodes: [C] }],
  },
  {
    name: 'no class named, no default, but a classless volume fits: not a missing class (the fallback remains)',
    world: { pvcs: [pvc('data', { storageClass: null })], classes: [fast], pvs: [pv('pv-1', { storageClass: null })] },
    want: [{ id: `${C}#PvcPending`, attributes: { storage_class: '' } }],
  },
  {
    name: 'no class named and a default class exists: the default applies and is suspected',
    world: { pvcs: [pvc('data', { storageClass: null })], classes: [sc('standard', { isDefault: true })] },
    want: [{ id: `${C}#PvcPending`, suspects: ['storageclass:standard'], attributes: { storage_class: 'standard', provisioner: 'csi.example.com' } }],
  },
  { name: 'StorageClasses forbidden: no class is judged missing, an unused claim gets no fallback', world: { pvcs: [pvc('data', { storageClass: 'nope' })], sync: [forbidden('storageclasses')] }, want: [] },
  { name: 'StorageClasses not synced: same as forbidden', world: { pvcs: [pvc('data', { storageClass: null })], sync: [unsynced('storageclasses')] }, want: [] },
  {
    name: 'StorageClasses forbidden, a pod uses the claim: the fallback, with no class suspect',
    world: { pvcs: [pvc('data', { storageClass: 'nope' })], pods: [consumer('data')], sync: [forbidden('storageclasses')] },
    want: [{ id: `${C}#PvcPending`, suspects: [], attributes: { storage_class: 'nope' } }],
  },
  // PvcProvisioningFailed.
  {
    name: 'ProvisioningFailed events: the provisioner message, redacted, suspects the class',
    world: { pvcs: [pvc('data')], classes: [fast], events: [provisioningFailed('data', 'create volume: rpc error: password=hunter2 quota exceeded')] },
    want: [{ id: `${C}#PvcProvisioningFailed`, suspects: ['storageclass:fast'], attributes: { message: 'create volume: rpc error: password=[REDACTED] quota exceeded', provisioner: 'csi.example.com', storage_class: 'fast' }, evidenceSources: ['event'], since: iso(5) }],
  },
  { name: 'a Normal event with that reason does not count', world: { pvcs: [pvc('data')], classes: [fast], events: [provisioningFailed('data', 'x', { type: 'Normal' })] }, want: [{ id: `${C}#PvcPending` }] },
  { name: 'a Warning event with another reason does not count', world: { pvcs: [pvc('data')], classes: [fast], events: [provisioningFailed('data', 'x', { reason: 'VolumeResizeFailed' })] }, want: [{ id: `${C}#PvcPending` }] },
  { name: "another claim's ProvisioningFailed does not count", world: { pvcs: [pvc('data')], classes: [fast], events: [provisioningFailed('logs', 'x')] }, want: [{ id: `${C}#PvcPending` }] },
  { name: 'a missing class wins over the provisioning events it causes', world: { pvcs: [pvc('data', { storageClass: 'nope' })], classes: [fast], events: [provisioningFailed('data', 'storageclass "nope" not found')] }, want: [{ id: `${C}#PvcStorageClassMissing` }] },
  // PvcNoMatchingVolume.
  {
    name: "a no-provisioner Immediate class: the PV controller's ProvisioningFailed is not the cause, the missing volume is",
    world: { pvcs: [pvc('data', { storageClass: 'local' })], classes: [localNow], pvs: [], events: [provisioningFailed('data', 'no volume plugin matched name: kubernetes.io/no-provisioner')] },
    want: [{ id: `${C}#PvcNoMatchingVolume`, attributes: { storage_class: 'local', request_bytes: 10 * GI, access_modes: 'ReadWriteOnce', available_volumes: 0 } }],
  },
  {
    name: 'a no-provisioner class with no Available volume of it',
    world: { pvcs: [pvc('data', { storageClass: 'local' })], classes: [localNow], pvs: [pv('pv-1', { storageClass: 'other' })] },
    want: [{ id: `${C}#PvcNoMatchingVolume`, suspects: ['storageclass:local'], attributes: { storage_class: 'local', request_bytes: 10 * GI, access_modes: 'ReadWriteOnce', available_volumes: 0 } }],
  },
  { name: 'a no-provisioner class with a volume exactly the size asked: the fallback, not a missing volume', world: { pvcs: [pvc('data', { storageClass: 'local' })], classes: [localNow], pvs: [pv('pv-1')] }, want: [{ id: `${C}#PvcPending` }] },
  { name: 'a volume one byte too small does not fit', world: { pvcs: [pvc('data', { storageClass: 'local' })], classes: [localNow], pvs: [pv('pv-1', { capacityBytes: 10 * GI - 1 })] }, want: [{ id: `${C}#PvcNoMatchingVolume`, attributes: { storage_class: 'local', request_bytes: 10 * GI, access_modes: 'ReadWriteOnce', available_volumes: 1 } }] },
  { name: 'a volume without the access mode asked does not fit', world: { pvcs: [pvc('data', { storageClass: 'local', accessModes: ['ReadWriteMany'] })], classes: [localNow], pvs: [pv('pv-1')] }, want: [{ id: `${C}#PvcNoMatchingVolume` }] },
  { name: 'a Bound volume of the class does not fit', world: { pvcs: [pvc('data', { storageClass: 'local' })], classes: [localNow], pvs: [pv('pv-1', { phase: 'Bound' })] }, want: [{ id: `${C}#PvcNoMatchingVolume` }] },
  { name: 'an Available volume reserved for another claim does not fit', world: { pvcs: [pvc('data', { storageClass: 'local' })], classes: [localNow], pvs: [pv('pv-1', { claim: { namespace: 'shop', name: 'logs' } })] }, want: [{ id: `${C}#PvcNoMatchingVolume` }] },
  { name: 'an Available volume with unknown capacity is given the benefit of the doubt', world: { pvcs: [pvc('data', { storageClass: 'local' })], classes: [localNow], pvs: [pv('pv-1', { capacityBytes: null })] }, want: [{ id: `${C}#PvcPending` }] },
  { name: "class '' with no classless volume", world: { pvcs: [pvc('data', { storageClass: '' })], classes: [fast], pvs: [pv('pv-1')] }, want: [{ id: `${C}#PvcNoMatchingVolume`, suspects: [], attributes: { storage_class: '', request_bytes: 10 * GI, access_modes: 'ReadWriteOnce', available_volumes: 0 } }] },
  { name: 'PersistentVolumes forbidden: no claim is judged to lack a volume', world: { pvcs: [pvc('data', { storageClass: 'local' })], classes: [localNow], sync: [forbidden('persistentvolumes')] }, want: [{ id: `${C}#PvcPending` }] },
  // WaitForFirstConsumer.
  { name: 'WaitForFirstConsumer and no pod uses it: healthy', world: { pvcs: [pvc('data', { storageClass: 'lazy' })], classes: [lazy] }, want: [] },
  { name: 'WaitForFirstConsumer, used only by a finished pod: healthy even with no volume to bind', world: { pvcs: [pvc('data', { storageClass: 'local' })], classes: [local], pods: [consumer('data', { phase: 'Succeeded' })] }, want: [] },
  { name: 'WaitForFirstConsumer, a pod uses it, nothing failed: no fallback (the pod says why)', world: { pvcs: [pvc('data', { storageClass: 'lazy' })], classes: [lazy], pods: [consumer('data')] }, want: [] },
  { name: 'WaitForFirstConsumer, a pod uses it, provisioning failed', world: { pvcs: [pvc('data', { storageClass: 'lazy' })], classes: [lazy], pods: [consumer('data')], events: [provisioningFailed('data', 'no capacity')] }, want: [{ id: `${C}#PvcProvisioningFailed`, suspects: ['storageclass:lazy'] }] },
  {
    name: 'local volumes (no-provisioner, WaitForFirstConsumer), a pod uses the claim, none fits',
    world: { pvcs: [pvc('data', { storageClass: 'local' })], classes: [local], pods: [consumer('data')], pvs: [pv('pv-1', { capacityBytes: GI })] },
    want: [{ id: `${C}#PvcNoMatchingVolume`, suspects: ['storageclass:local'] }],
  },
  { name: 'local volumes, no pod uses the claim: healthy', world: { pvcs: [pvc('data', { storageClass: 'local' })], classes: [local] }, want: [] },
  // Pre-bound claims.
  {
    name: 'pre-bound to a volume that does not exist',
    world: { pvcs: [pvc('data', { volumeName: 'pv-9' })], classes: [fast] },
    want: [{ id: `${C}#PvcNoMatchingVolume`, suspects: [], attributes: { volume: 'pv-9' }, evidenceNodes: ['pv:pv-9'], evidenceSources: ['absence'] }],
  },
  {
    name: 'pre-bound to a Released volume: suspects it, and the volume is its own finding',
    world: { pvcs: [pvc('data', { volumeName: 'pv-1' })], classes: [fast], pvs: [pv('pv-1', { phase: 'Released', claim: { namespace: 'shop', name: 'old-data' } })] },
    want: [
      { id: `${C}#PvcNoMatchingVolume`, suspects: ['pv:pv-1'], attributes: { volume: 'pv-1', volume_phase: 'Released' } },
      { id: 'pv:pv-1#PvReleased', severity: 'warning', namespace: null, suspects: [], attributes: { claim: 'shop/old-data' }, evidenceNodes: ['pv:pv-1'] },
    ],
  },
  {
    name: 'pre-bound to a Failed volume that names this claim: suspects it',
    world: { pvcs: [pvc('data', { volumeName: 'pv-1' })], classes: [fast], pvs: [pv('pv-1', { phase: 'Failed', claim: { namespace: 'shop', name: 'data' } })] },
    want: [{ id: `${C}#PvcNoMatchingVolume`, suspects: ['pv:pv-1'], attributes: { volume: 'pv-1', volume_phase: 'Failed' } }, { id: 'pv:pv-1#PvFailed' }],
  },
  { name: 'pre-bound to an Available volume that fits: the fallback', world: { pvcs: [pvc('data', { volumeName: 'pv-1', storageClass: 'fast' })], classes: [fast], pvs: [pv('pv-1', { storageClass: 'fast' })] }, want: [{ id: `${C}#PvcPending` }] },
  // PvcPending fallback.
  {
    name: 'a provisioning class, no events, no cause found: the fallback suspects the class',
    world: { pvcs: [pvc('data')], classes: [fast] },
    want: [{ id: `${C}#PvcPending`, severity: 'warning', suspects: ['storageclass:fast'], attributes: { storage_class: 'fast', provisioner: 'csi.example.com' }, evidenceSources: ['status'], summaryIncludes: 'data' }],
  },
  // Volumes.
  {
    name: 'a Failed volume with its reason and message (redacted)',
    world: { pvs: [pv('pv-1', { phase: 'Failed', reason: 'VolumeFailedDelete', message: 'delete failed: token=abcdef0123456789' })] },
    want: [{ id: 'pv:pv-1#PvFailed', severity: 'warning', namespace: null, attributes: { reason: 'VolumeFailedDelete', message: 'delete failed: token=[REDACTED]' }, evidenceSources: ['status'] }],
  },
  { name: 'a Failed volume with no reason or message', world: { pvs: [pv('pv-1', { phase: 'Failed' })] }, want: [{ id: 'pv:pv-1#PvFailed', attributes: {} }] },
  { name: 'a Released volume whose claim reference was cleared', world: { pvs: [pv('pv-1', { phase: 'Released' })] }, want: [{ id: 'pv:pv-1#PvReleased', attributes: {} }] },
  { name: 'Available and Bound volumes: quiet', world: { pvs: [pv('pv-1'), pv('pv-2', { phase: 'Bound' })] }, want: [] },
  { name: 'PersistentVolumes forbidden: no volume is judged', world: { pvs: [pv('pv-1', { phase: 'Failed' })], sync: [forbidden('persistentvolumes')] }, want: [] },
];

describe('storage analyzer', () => {
  for (const row of rows) {
    it(row.name, () => {
      const now = new Date(T0.getTime() + (row.after ?? LATER) * 1000);
      const found = analyzeStorage(diagnosisInput(view(row.world), now));
      assert.deepEqual(found.map((f) => f.id).sort(), row.want.map((w) => w.id).sort());
      for (const want of row.want) {
        const f = found.find((x) => x.id === want.id);
        assert.ok(f);
        assert.equal(f.id, `${f.object}#${f.code}`);
        if (want.severity) assert.equal(f.severity, want.severity);
        if (want.namespace !== undefined) assert.equal(f.namespace, want.namespace);
        if (want.suspects) assert.deepEqual(f.suspects, want.suspects);
        if (want.attributes) assert.deepEqual(f.attributes, want.attributes);
        if (want.since !== undefined) assert.equal(f.since, want.since);
        if (want.evidenceNodes) assert.deepEqual(f.evidence.map((e) => e.node_id), want.evidenceNodes);
        if (want.evidenceSources) assert.deepEqual(f.evidence.map((e) => e.source), want.evidenceSources);
        if (want.summaryIncludes) assert.ok(f.summary.includes(want.summaryIncludes), f.summary);
        assert.ok(f.evidence.every((e) => e.link === null));
        assert.ok(!f.summary.includes('hunter2') && !f.evidence.some((e) => e.fact.includes('hunter2')));
      }
    });
  }

  it('formats sizes as claims are written', () => {
    const table: [number, string][] = [
      [10 * GI, '10Gi'],
      [512 * 1024 ** 2, '512Mi'],
      [1.5 * GI, '1.5Gi'],
      [2 * 1024 ** 4, '2Ti'],
      [1023, '1023'],
    ];
    for (const [n, text] of table) assert.equal(formatBytes(n), text);
  });

  it('declares every code it emits, each with a rule', () => {
    assert.deepEqual(STORAGE_CODES.map((c) => c.code).sort(), ['PvFailed', 'PvReleased', 'PvcNoMatchingVolume', 'PvcPending', 'PvcProvisioningFailed', 'PvcStorageClassMissing']);
    for (const spec of STORAGE_CODES) assert.ok(spec.rule.length > 20, spec.code);
  });
});
