import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { expectedCounts, OBJECTS_PER_NAMESPACE, SCALES, scaleScenario, type ScaleShape } from '../../scripts/generate-scale-scenario.ts';

interface Obj {
  kind: string;
  name: string;
  namespace: string | null;
  replicas: number;
  behavior: string | null;
  cpuRequest: string | null;
  nodes: number | null;
}

/**
 * The generator writes one flow-style object a line; read those lines with patterns, since a
 * YAML parse of scale-20000 takes seconds. The first test checks this reading against a real
 * parse of scale-1000.
 */
function objects(text: string): Obj[] {
  const header = /^spec:\n {2}nodes: (\d+)$/m.exec(text);
  const out: Obj[] = [{ kind: 'Scenario', name: /^metadata: \{name: ([\w-]+)\}$/m.exec(text)?.[1] ?? '', namespace: null, replicas: 0, behavior: null, cpuRequest: null, nodes: Number(header?.[1]) }];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{apiVersion')) continue;
    out.push({
      kind: /kind: (\w+)/.exec(line)?.[1] ?? '',
      name: /metadata: \{name: ([\w-]+)/.exec(line)?.[1] ?? '',
      namespace: /namespace: ([\w-]+)\}/.exec(line)?.[1] ?? null,
      replicas: Number(/replicas: (\d+)/.exec(line)?.[1] ?? 0),
      behavior: /sim\.capstan\.dev\/behavior: (\w+)/.exec(line)?.[1] ?? null,
      cpuRequest: /requests: \{cpu: "([^"]+)"/.exec(line)?.[1] ?? null,
      nodes: null,
    });
  }
  return out;
}

function parsed(text: string): Obj[] {
  return parseAllDocuments(text).map((d) => {
    const o = d.toJS() as { kind: string; metadata: { name: string; namespace?: string }; spec?: { replicas?: number; nodes?: number; template?: { metadata: { labels: Record<string, string> }; spec: { containers: { resources: { requests: { cpu: string } } }[] } } } };
    return {
      kind: o.kind,
      name: o.metadata.name,
      namespace: o.metadata.namespace ?? null,
      replicas: o.spec?.replicas ?? 0,
      behavior: o.spec?.template?.metadata.labels['sim.capstan.dev/behavior'] ?? null,
      cpuRequest: o.spec?.template?.spec.containers[0]?.resources.requests.cpu ?? null,
      nodes: o.kind === 'Scenario' ? (o.spec?.nodes ?? null) : null,
    };
  });
}

const generated = new Map<string, Obj[]>();
const of = (shape: ScaleShape): Obj[] => {
  const cached = generated.get(shape.name) ?? objects(scaleScenario(shape));
  generated.set(shape.name, cached);
  return cached;
};

describe('scale scenarios', () => {
  it('reads the generated lines as a YAML parser does', () => {
    const small = SCALES[0];
    assert.ok(small);
    assert.deepEqual(objects(scaleScenario(small)), parsed(scaleScenario(small)));
  });

  it('scale-1000, scale-5000 and scale-20000 have the namespaces, pods and nodes they are named for, and room for every pod', () => {
    const want = { 'scale-1000': [100, 1000, 10], 'scale-5000': [500, 5000, 50], 'scale-20000': [2000, 20000, 200] } as const;
    for (const shape of SCALES) {
      const [namespaces, pods, nodes] = want[shape.name as keyof typeof want];
      const objs = of(shape);
      const header = objs.find((o) => o.kind === 'Scenario');
      assert.ok(header);
      assert.equal(header.name, shape.name);
      assert.equal(header.nodes, nodes);
      assert.equal(new Set(objs.filter((o) => o.kind === 'Namespace').map((o) => o.name)).size, namespaces, shape.name);
      assert.equal(objs.filter((o) => o.kind === 'Service').length, namespaces, shape.name);
      assert.equal(objs.filter((o) => o.kind === 'Deployment').reduce((n, o) => n + o.replicas, 0), pods, shape.name);
      const counts = expectedCounts(shape);
      assert.deepEqual([counts.namespaces, counts.pods, counts.nodes], [namespaces, pods, nodes]);
      assert.ok(counts.nodePodCapacity >= pods * 1.1, `${shape.name}: ${counts.nodePodCapacity} pod slots for ${pods} pods`);
    }
  });

  it('every namespace has the same shape at every scale', () => {
    for (const shape of SCALES) {
      const byNamespace = new Map<string, string[]>();
      for (const o of of(shape)) {
        if (o.namespace !== null) byNamespace.set(o.namespace, [...(byNamespace.get(o.namespace) ?? []), `${o.kind}/${o.name}/${o.replicas}`]);
      }
      const shapes = new Set([...byNamespace.values()].map((objs) => objs.join(',')));
      assert.deepEqual(shapes, new Set(['Deployment/api/8,Deployment/worker/2,Service/api/0']), shape.name);
    }
  });

  it('counts as Pending exactly the workers that cannot pull their image or cannot be placed', () => {
    for (const shape of SCALES) {
      const pending = of(shape)
        .filter((o) => o.kind === 'Deployment' && o.name === 'worker' && (o.cpuRequest === '500' || o.behavior === 'imagepull'))
        .reduce((n, o) => n + o.replicas, 0);
      assert.equal(expectedCounts(shape).pendingPods, pending, shape.name);
      assert.ok(pending > 0);
    }
  });

  it('a smaller scenario is the start of a larger one, object for object, so one control plane can grow through them', () => {
    const body = (text: string) => text.slice(text.indexOf('\n---\n'));
    for (let i = 1; i < SCALES.length; i++) {
      const [smaller, larger] = [SCALES[i - 1], SCALES[i]];
      assert.ok(smaller && larger);
      const small = body(scaleScenario(smaller));
      assert.ok(body(scaleScenario(larger)).startsWith(small), `${smaller.name} is the start of ${larger.name}`);
      assert.equal(of(smaller).length - 1, smaller.namespaces * OBJECTS_PER_NAMESPACE);
    }
  });

  it('the committed scenario files are what the generator writes (scale-5000 unchanged)', () => {
    for (const shape of SCALES) {
      assert.equal(readFileSync(new URL(`../scenarios/${shape.name}.yaml`, import.meta.url), 'utf8'), scaleScenario(shape), shape.name);
    }
  });
});
