// The scheduler's PodScheduled=False / FailedScheduling wording, one table: each message as
// the scheduler writes it (current and older wordings), the cause it must yield and what it
// names (taint keys, claims, node counts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeVerdict, parseSchedulerMessage, type UnschedulableCause } from '../../domain/diagnosis/scheduler-message.ts';

const PREEMPTION = ' preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.';

const rows: { name: string; message: string | null; cause: UnschedulableCause; total?: number | null; taints?: string[]; claims?: string[]; reasons?: number; phrase?: string }[] = [
  { name: 'insufficient cpu on every node', message: `0/3 nodes are available: 3 Insufficient cpu.${PREEMPTION}`, cause: 'insufficient_cpu', total: 3, reasons: 1, phrase: 'not enough free cpu (3/3 nodes)' },
  { name: 'insufficient memory', message: '0/2 nodes are available: 2 Insufficient memory.', cause: 'insufficient_memory', total: 2 },
  { name: 'too many pods', message: '0/1 nodes are available: 1 Too many pods.', cause: 'insufficient_pods' },
  { name: 'untolerated taint names its key', message: `0/3 nodes are available: 3 node(s) had untolerated taint {dedicated: gpu}.${PREEMPTION}`, cause: 'taint', taints: ['dedicated'], phrase: 'untolerated taint dedicated (3/3 nodes)' },
  {
    name: 'older taint wording keeps its inner comma inside one reason',
    message: "0/3 nodes are available: 1 node(s) had taint {node-role.kubernetes.io/master: }, that the pod didn't tolerate, 2 Insufficient memory.",
    cause: 'insufficient_memory',
    taints: ['node-role.kubernetes.io/master'],
    reasons: 2,
  },
  { name: 'node affinity/selector', message: "0/4 nodes are available: 4 node(s) didn't match Pod's node affinity/selector.", cause: 'node_affinity' },
  { name: 'older node selector wording', message: "0/4 nodes are available: 4 node(s) didn't match node selector.", cause: 'node_affinity' },
  { name: 'pod affinity is not node affinity', message: "0/4 nodes are available: 4 node(s) didn't match pod affinity rules.", cause: 'other' },
  { name: 'volume zone conflict is not node affinity', message: '0/4 nodes are available: 4 node(s) had volume node affinity conflict.', cause: 'other' },
  { name: 'unbound immediate claims (PreFilter, no count)', message: `0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims.${PREEMPTION}`, cause: 'unbound_pvc', reasons: 1, phrase: 'its claims are not bound' },
  { name: 'a claim that does not exist is named', message: '0/3 nodes are available: persistentvolumeclaim "data" not found.', cause: 'unbound_pvc', claims: ['data'], phrase: 'claim data does not exist' },
  { name: 'no persistent volume to bind', message: "0/3 nodes are available: 3 node(s) didn't find available persistent volumes to bind.", cause: 'unbound_pvc' },
  { name: 'cordoned nodes', message: '0/2 nodes are available: 2 node(s) were unschedulable.', cause: 'node_unschedulable', phrase: 'nodes cordoned (2/2 nodes)' },
  // Several reasons: the one rejecting the most nodes wins; on a tie, TIE_ORDER decides.
  {
    name: 'the most nodes win: a control-plane taint on 1 node loses to cpu on 4',
    message: '0/5 nodes are available: 4 Insufficient cpu, 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }.',
    cause: 'insufficient_cpu',
    taints: ['node-role.kubernetes.io/control-plane'],
    reasons: 2,
    phrase: 'not enough free cpu (4/5 nodes)',
  },
  { name: 'taints elsewhere never outweigh a lack of room where the pod may go', message: '0/4 nodes are available: 2 Insufficient cpu, 2 node(s) had untolerated taint {a: b}.', cause: 'insufficient_cpu', taints: ['a'] },
  // Placement (taints, node affinity) decides only when nothing else turned the pod away.
  { name: 'many tainted nodes, fewer without room: cpu (1.34 wording, shared cluster)', message: `0/22 nodes are available: 1 node(s) were unschedulable, 18 node(s) had untolerated taint(s), 3 Insufficient cpu.${PREEMPTION}`, cause: 'insufficient_cpu' },
  { name: 'a selector pinning the pod to a tainted pool: the taint, not the selector', message: "0/8 nodes are available: 1 node(s) had untolerated taint(s), 7 node(s) didn't match Pod's node affinity/selector.", cause: 'taint' },
  { name: 'a selector pinning the pod to a cordoned pool: the cordon', message: "0/9 nodes are available: 1 node(s) were unschedulable, 2 node(s) had untolerated taint(s), 6 node(s) didn't match Pod's node affinity/selector.", cause: 'node_unschedulable' },
  { name: 'a claim with no volume beside placement reasons: the claim', message: "0/9 nodes are available: 1 node(s) didn't find available persistent volumes to bind, 2 node(s) had untolerated taint(s), 6 node(s) didn't match Pod's node affinity/selector.", cause: 'unbound_pvc' },
  { name: 'tie: cordon before taint', message: '0/4 nodes are available: 2 node(s) had untolerated taint {a: b}, 2 node(s) were unschedulable.', cause: 'node_unschedulable', taints: ['a'] },
  { name: 'tie: memory before cpu', message: '0/2 nodes are available: 1 Insufficient cpu, 1 Insufficient memory.', cause: 'insufficient_memory' },
  { name: 'an unrecognised reason on most nodes wins', message: "0/5 nodes are available: 4 node(s) didn't match pod anti-affinity rules, 1 Insufficient cpu.", cause: 'other', phrase: "node(s) didn't match pod anti-affinity rules (4/5 nodes)" },
  { name: 'an unrecognised reason loses a tie', message: "0/2 nodes are available: 1 node(s) didn't have free ports for the requested pod ports, 1 Insufficient cpu.", cause: 'insufficient_cpu' },
  { name: 'no nodes at all', message: 'no nodes available to schedule pods', cause: 'other', total: null },
  { name: 'no message', message: null, cause: 'other', total: null, reasons: 0, phrase: 'no node fits' },
  { name: 'empty message', message: '', cause: 'other', reasons: 0 },
];

describe('parseSchedulerMessage', () => {
  for (const row of rows) {
    it(row.name, () => {
      const verdict = parseSchedulerMessage(row.message);
      assert.equal(verdict.cause, row.cause);
      if (row.total !== undefined) assert.equal(verdict.totalNodes, row.total);
      assert.deepEqual(verdict.taintKeys, row.taints ?? []);
      assert.deepEqual(verdict.claims, row.claims ?? []);
      if (row.reasons !== undefined) assert.equal(verdict.reasons.length, row.reasons);
      if (row.phrase !== undefined) assert.equal(describeVerdict(verdict), row.phrase);
    });
  }

  it('keeps each reason with its node count, in the scheduler order', () => {
    const verdict = parseSchedulerMessage('0/6 nodes are available: 1 Insufficient memory, 2 Insufficient cpu, 3 node(s) were unschedulable.');
    assert.deepEqual(
      verdict.reasons.map((r) => [r.cause, r.nodes]),
      [
        ['insufficient_memory', 1],
        ['insufficient_cpu', 2],
        ['node_unschedulable', 3],
      ],
    );
    assert.equal(verdict.cause, 'node_unschedulable');
  });
});
