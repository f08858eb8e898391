// The dashboard's copilot text handling, at its boundaries: SSE framing as the chat endpoint
// sends it (split anywhere by the network), and an answer's lines and inline marks, where a
// citation is linked only when the server verified it; the dock's focus from the URL and its
// handling of each streamed event.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { answerBlocks, inlineTokens, type CitationRef } from '../../ui/web/src/copilot/answer-text.ts';
import type { ChatEvent } from '../../ui/web/src/api/chat.js';
import { applyEvent, type Exchange } from '../../ui/web/src/copilot/exchange.ts';
import { focusOf } from '../../ui/web/src/copilot/focus.ts';
import { readMessages, splitMessages } from '../../ui/web/src/copilot/sse.ts';

describe('splitMessages', () => {
  const cases: { name: string; buffer: string; data: string[]; rest: string }[] = [
    { name: 'nothing yet', buffer: '', data: [], rest: '' },
    { name: 'an unfinished message stays in the rest', buffer: 'event: text\ndata: {"a":1}', data: [], rest: 'event: text\ndata: {"a":1}' },
    { name: 'one whole message', buffer: 'event: text\ndata: {"a":1}\n\n', data: ['{"a":1}'], rest: '' },
    { name: 'two and a partial one', buffer: 'data: 1\n\ndata: 2\n\nda', data: ['1', '2'], rest: 'da' },
    { name: 'CRLF line ends', buffer: 'event: x\r\ndata: 3\r\n\r\n', data: ['3'], rest: '' },
    { name: 'multi-line data joined by newlines', buffer: 'data: a\ndata: b\n\n', data: ['a\nb'], rest: '' },
    { name: 'data without the optional space', buffer: 'data:7\n\n', data: ['7'], rest: '' },
    { name: 'a comment-only block yields nothing', buffer: ': ping\n\n', data: [], rest: '' },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(splitMessages(c.buffer), { data: c.data, rest: c.rest }));
  }
});

describe('readMessages', () => {
  it('parses messages split across chunks at any byte, multi-byte characters included', async () => {
    const text = 'event: text\ndata: {"type":"text","delta":"Grüße "}\n\nevent: done\ndata: {"type":"done"}\n\n';
    const bytes = new TextEncoder().encode(text);
    for (const size of [1, 2, 3, 7, bytes.length]) {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < bytes.length; i += size) controller.enqueue(bytes.slice(i, i + size));
          controller.close();
        },
      });
      const seen: unknown[] = [];
      for await (const m of readMessages(body)) seen.push(m);
      assert.deepEqual(seen, [{ type: 'text', delta: 'Grüße ' }, { type: 'done' }], `chunks of ${size}`);
    }
  });

  it('reads a last message the stream ends without a blank line after', async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('data: {"n":1}'));
        controller.close();
      },
    });
    const seen: unknown[] = [];
    for await (const m of readMessages(body)) seen.push(m);
    assert.deepEqual(seen, [{ n: 1 }]);
  });
});

describe('answer text', () => {
  const verified: CitationRef = { id: 'pod:shop/web-1', verified: true, link: '/namespaces/shop/pods/web-1' };
  const invented: CitationRef = { id: 'pod:shop/ghost', verified: false, link: null };
  const known = new Map([verified, invented].map((c) => [c.id, c]));

  const cases: { name: string; line: string; citations: ReadonlyMap<string, CitationRef> | null; want: ReturnType<typeof inlineTokens> }[] = [
    { name: 'plain text', line: 'all fine', citations: known, want: [{ kind: 'text', text: 'all fine' }] },
    { name: 'a verified citation carries its link', line: 'see [pod:shop/web-1].', citations: known, want: [{ kind: 'text', text: 'see ' }, { kind: 'cite', id: 'pod:shop/web-1', citation: verified }, { kind: 'text', text: '.' }] },
    { name: 'an invented one is marked unverified', line: '[pod:shop/ghost]', citations: known, want: [{ kind: 'cite', id: 'pod:shop/ghost', citation: invented }] },
    { name: 'while streaming nothing is checked yet', line: '[pod:shop/web-1]', citations: null, want: [{ kind: 'cite', id: 'pod:shop/web-1', citation: null }] },
    { name: 'an id the server did not list is not linked', line: '[node:n1]', citations: known, want: [{ kind: 'cite', id: 'node:n1', citation: null }] },
    { name: 'brackets that are no node id stay text', line: 'a [note] and [Pod:x] and [pod: x]', citations: known, want: [{ kind: 'text', text: 'a [note] and [Pod:x] and [pod: x]' }] },
    { name: 'bold, code and emphasis', line: '**Down** `CrashLoopBackOff` _now_', citations: known, want: [{ kind: 'bold', text: 'Down' }, { kind: 'text', text: ' ' }, { kind: 'code', text: 'CrashLoopBackOff' }, { kind: 'text', text: ' ' }, { kind: 'em', text: 'now' }] },
    { name: 'underscores inside names are not emphasis', line: 'max_surge and my_var_name', citations: known, want: [{ kind: 'text', text: 'max_surge and my_var_name' }] },
    { name: 'markup-looking text stays text', line: '<img src=x onerror=alert(1)>', citations: known, want: [{ kind: 'text', text: '<img src=x onerror=alert(1)>' }] },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(inlineTokens(c.line, c.citations), c.want));
  }

  it('splits lines into paragraphs and numbered or nested list items, skipping blank lines', () => {
    const blocks = answerBlocks('Intro line\n\n1. **Root** [pod:shop/web-1]\n  - evidence\n- bullet', [verified]);
    assert.deepEqual(
      blocks.map((b) => [b.kind, b.depth, b.number]),
      [['paragraph', 0, null], ['item', 0, 1], ['item', 1, null], ['item', 0, null]],
    );
    assert.deepEqual(blocks[1]?.inline.at(-1), { kind: 'cite', id: 'pod:shop/web-1', citation: verified });
  });
});

describe('focusOf', () => {
  const cases: [string, string | null][] = [
    ['/overview', null],
    ['/namespaces', null],
    ['/namespaces/shop', 'namespace:shop'],
    ['/namespaces/shop/pods/web-1', 'pod:shop/web-1'],
    ['/incidents/shop/web-1', 'pod:shop/web-1'],
    ['/incidents', null],
    ['/graph/deployment%3Ashop%2Fcheckout', 'deployment:shop/checkout'],
    ['/graph/%E0%A4%A', '%E0%A4%A'],
    ['/admin/users', null],
  ];
  for (const [path, want] of cases) it(`${path} → ${String(want)}`, () => assert.equal(focusOf(path), want));
});

describe('applyEvent', () => {
  const start: Exchange = { question: 'q', focus: null, tools: [], text: '', answer: null, error: null, stopped: false };
  it('shows a tool running, then its result, text as it streams, then the finished answer', () => {
    const events: ChatEvent[] = [
      { type: 'tool-call', id: 't1', name: 'list_pods', args: { namespace: 'shop' } },
      { type: 'text', delta: 'Checkout ' },
      { type: 'tool-result', id: 't1', name: 'list_pods', ok: true, chars: 120 },
      { type: 'step', n: 1, input_tokens: 10, output_tokens: 2 },
      { type: 'text', delta: 'crashes.' },
    ];
    const streamed = events.reduce(applyEvent, start);
    assert.deepEqual(streamed.tools, [{ id: 't1', name: 'list_pods', args: { namespace: 'shop' }, ok: true, chars: 120 }]);
    assert.equal(streamed.text, 'Checkout crashes.');
    assert.equal(streamed.answer, null);
    const done: ChatEvent = { type: 'done', conversation_id: 'c1', answer: 'Checkout crashes [pod:shop/a].', citations: [], source: 'model', model: 'm', usage: { input_tokens: 1, output_tokens: 1 }, steps: 1, tool_calls: 1, finish: 'stop', error: null };
    const finished = applyEvent(streamed, done);
    assert.equal(finished.text, 'Checkout crashes [pod:shop/a].', 'the checked answer replaces the streamed text');
    assert.equal(finished.answer?.conversation_id, 'c1');
  });
  it('a result for an unknown call changes nothing', () => {
    assert.deepEqual(applyEvent(start, { type: 'tool-result', id: 'nope', name: 'x', ok: false, chars: 0 }), start);
  });
});
