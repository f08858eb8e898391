// The kubelet's wording of what a container misses (CreateContainerConfigError waiting
// messages and FailedMount events) and of probe failures, one table each.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseMissingObject, probeOfMessage, type MissingObject } from '../../domain/diagnosis/container-message.ts';

const none = { namespace: null, key: null, volume: null };

const rows: { name: string; message: string | null; want: MissingObject | null }[] = [
  { name: 'env from a missing ConfigMap', message: 'configmap "app-config" not found', want: { ...none, kind: 'ConfigMap', name: 'app-config' } },
  { name: 'env from a missing Secret', message: 'secret "db-credentials" not found', want: { ...none, kind: 'Secret', name: 'db-credentials' } },
  { name: 'the API server plural spelling', message: 'configmaps "app-config" not found', want: { ...none, kind: 'ConfigMap', name: 'app-config' } },
  { name: 'event text with the Error: prefix', message: 'Error: secret "db" not found', want: { ...none, kind: 'Secret', name: 'db' } },
  { name: 'a missing ConfigMap key, namespace named', message: "couldn't find key url in ConfigMap shop/app-config", want: { kind: 'ConfigMap', name: 'app-config', namespace: 'shop', key: 'url', volume: null } },
  { name: 'a missing Secret key', message: "couldn't find key password in Secret shop/db", want: { kind: 'Secret', name: 'db', namespace: 'shop', key: 'password', volume: null } },
  { name: 'older capitalised key wording', message: "Couldn't find key url in ConfigMap shop/app-config", want: { kind: 'ConfigMap', name: 'app-config', namespace: 'shop', key: 'url', volume: null } },
  {
    name: 'FailedMount of a missing ConfigMap names the volume',
    message: 'MountVolume.SetUp failed for volume "config" : configmap "redis-config" not found',
    want: { kind: 'ConfigMap', name: 'redis-config', namespace: null, key: null, volume: 'config' },
  },
  { name: 'FailedMount of a missing Secret', message: 'MountVolume.SetUp failed for volume "tls" : secret "tls-cert" not found', want: { kind: 'Secret', name: 'tls-cert', namespace: null, key: null, volume: 'tls' } },
  {
    name: 'FailedMount of a missing ConfigMap key names no object',
    message: 'MountVolume.SetUp failed for volume "config-volume" : configmap references non-existent config key: missing-key',
    want: { kind: 'ConfigMap', name: null, namespace: null, key: 'missing-key', volume: 'config-volume' },
  },
  {
    name: 'FailedMount of a missing Secret key',
    message: 'MountVolume.SetUp failed for volume "creds" : references non-existent secret key: token',
    want: { kind: 'Secret', name: null, namespace: null, key: 'token', volume: 'creds' },
  },
  { name: 'a missing claim', message: 'persistentvolumeclaim "data" not found', want: { ...none, kind: 'PersistentVolumeClaim', name: 'data' } },
  { name: 'a mount timeout names nothing', message: 'Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[data]: timed out waiting for the condition', want: null },
  { name: 'a security-context error names nothing', message: 'container has runAsNonRoot and image will run as root', want: null },
  { name: 'no message', message: null, want: null },
];

describe('parseMissingObject', () => {
  for (const row of rows) it(row.name, () => assert.deepEqual(parseMissingObject(row.message), row.want));
});

describe('probeOfMessage', () => {
  const probes: [string, ReturnType<typeof probeOfMessage>][] = [
    ['Readiness probe failed: HTTP probe failed with statuscode: 503', 'readiness'],
    ['Liveness probe failed: Get "http://10.0.0.5:8080/healthz": dial tcp 10.0.0.5:8080: connect: connection refused', 'liveness'],
    ['Startup probe failed: command timed out', 'startup'],
    ['Readiness probe errored: rpc error: code = NotFound', 'readiness'],
    ['Back-off restarting failed container', null],
  ];
  for (const [message, want] of probes) it(message, () => assert.equal(probeOfMessage(message), want));
});
