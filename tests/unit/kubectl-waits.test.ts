import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { waitForCrdsEstablished, waitForNodesReady } from '../../dev/localcluster/kubectl.ts';

/** kubectl as the API server answers over time: one answer (or failure) per call, the last repeated. */
function kubectlAnswering(answers: readonly (string | Error)[]) {
  const calls: string[][] = [];
  const run = (args: string[]) => {
    calls.push(args);
    const answer = answers[Math.min(calls.length - 1, answers.length - 1)];
    return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer ?? '');
  };
  return { run, calls };
}

describe('waitForCrdsEstablished', () => {
  it('keeps waiting while a new CRD has no conditions yet (where kubectl wait fails at once), until Established is True', async () => {
    const api = kubectlAnswering(['', '', 'False', 'True']);
    await waitForCrdsEstablished(api.run, ['vulnerabilityreports.aquasecurity.github.io'], 5_000, 1);
    assert.equal(api.calls.length, 4);
    assert.deepEqual(api.calls[0], ['get', 'crd', 'vulnerabilityreports.aquasecurity.github.io', '-o', 'jsonpath={.status.conditions[?(@.type=="Established")].status}']);
  });

  it('rides over a CRD not found yet', async () => {
    const api = kubectlAnswering([new Error('NotFound'), 'True']);
    await waitForCrdsEstablished(api.run, ['a.example.com'], 5_000, 1);
    assert.equal(api.calls.length, 2);
  });

  it('waits for each CRD in turn', async () => {
    const api = kubectlAnswering(['True']);
    await waitForCrdsEstablished(api.run, ['a.example.com', 'b.example.com'], 5_000, 1);
    assert.deepEqual(api.calls.map((c) => c[2]), ['a.example.com', 'b.example.com']);
  });

  it('gives up after its bound, naming the CRD and the last error', async () => {
    const api = kubectlAnswering([new Error('connection refused')]);
    await assert.rejects(waitForCrdsEstablished(api.run, ['a.example.com'], 30, 5), /timed out .* CRD a\.example\.com Established: connection refused/);
  });
});

describe('waitForNodesReady', () => {
  const node = (name: string, ready: string) => `${name}=${ready}\n`;
  it('waits while a node has no Ready condition yet or is not Ready, and until every expected node is listed', async () => {
    const api = kubectlAnswering([node('kwok-node-1', ''), node('kwok-node-1', 'True'), node('kwok-node-1', 'True') + node('kwok-node-2', 'False'), node('kwok-node-1', 'True') + node('kwok-node-2', 'True')]);
    await waitForNodesReady(api.run, 2, 5_000, 1);
    assert.equal(api.calls.length, 4);
  });

  it('gives up after its bound', async () => {
    const api = kubectlAnswering([node('kwok-node-1', 'Unknown')]);
    await assert.rejects(waitForNodesReady(api.run, 1, 30, 5), /timed out .* 1 nodes Ready/);
  });
});
