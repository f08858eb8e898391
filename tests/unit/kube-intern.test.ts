import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { writeHeapSnapshot } from 'node:v8';
import { intern } from '../../runtime/kube/intern.ts';
import { slimPod } from '../../runtime/kube/slim-pod.ts';

/** How many distinct string objects in this process's heap hold exactly `value`. */
function copiesInHeap(value: string): number {
  const dir = mkdtempSync(join(tmpdir(), 'intern-'));
  try {
    const snapshot = JSON.parse(readFileSync(writeHeapSnapshot(join(dir, 'h.heapsnapshot')), 'utf8')) as { snapshot: { meta: { node_fields: string[]; node_types: [string[]] } }; nodes: number[]; strings: string[] };
    const width = snapshot.snapshot.meta.node_fields.length;
    const stringType = snapshot.snapshot.meta.node_types[0].indexOf('string');
    let copies = 0;
    for (let i = 0; i < snapshot.nodes.length; i += width) if (snapshot.nodes[i] === stringType && snapshot.strings[snapshot.nodes[i + 1] ?? -1] === value) copies += 1;
    return copies;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('interned informer strings', () => {
  it('returns an equal string, and keeps working past its bound', () => {
    for (let i = 0; i < 25_000; i++) assert.equal(intern(`value-${i}`), `value-${i}`);
    assert.equal(intern(['a', 'b'].join('')), 'ab');
  });

  it('slimmed pods share one copy of their namespace, node, image and owner names', () => {
    // Each pod from its own JSON.parse, as the informer gets them: 1000 copies of each value to begin with.
    const pods = Array.from({ length: 1000 }, (_, i) =>
      slimPod(
        JSON.parse(
          JSON.stringify({
            metadata: { name: `api-7f9c-${i}`, namespace: 'tenant-interned-ns', ownerReferences: [{ kind: 'ReplicaSet', name: 'api-interned-rs', controller: true }] },
            spec: { nodeName: 'kwok-interned-node', containers: [{ name: 'api', image: 'ghcr.io/acme/interned:1.0.0' }] },
            status: { phase: 'Running' },
          }),
        ),
      ),
    );
    assert.equal(pods.length, 1000);
    for (const value of ['tenant-interned-ns', 'kwok-interned-node', 'ghcr.io/acme/interned:1.0.0', 'api-interned-rs']) {
      // One kept copy, plus at most the one in this file's source and the pod's last parse.
      assert.ok(copiesInHeap(value) <= 3, `${value}: ${copiesInHeap(value)} copies`);
    }
    assert.equal(pods[999]?.namespace, 'tenant-interned-ns');
  });
});
