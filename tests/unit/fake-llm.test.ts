// The fake provider speaks the real wire protocols: driven here by the Vercel AI SDK's own
// provider clients, a streamed two-step tool conversation comes out as the SDK's parts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createAzure } from '@ai-sdk/azure';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, jsonSchema, stepCountIs, streamText, tool, type LanguageModel } from 'ai';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.ts';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(async () => {
  await llm.close();
});

const models: [string, () => LanguageModel, 'openai' | 'anthropic'][] = [
  ['OpenAI chat completions', () => createOpenAI({ baseURL: `${llm.url}/v1`, apiKey: 'sk-test-openai' }).chat('gpt-test'), 'openai'],
  ['OpenAI-compatible (Ollama)', () => createOpenAICompatible({ name: 'ollama', baseURL: `${llm.url}/v1`, includeUsage: true })('llama-test'), 'openai'],
  ['Azure OpenAI', () => createAzure({ baseURL: `${llm.url}/openai`, apiKey: 'azure-test' }).chat('deployment-test'), 'openai'],
  ['Anthropic messages', () => createAnthropic({ baseURL: `${llm.url}/v1`, apiKey: 'sk-ant-test' })('claude-test'), 'anthropic'],
];

describe('fake LLM server', () => {
  for (const [name, model, protocol] of models) {
    it(`${name}: a streamed tool call, its result sent back, then streamed text with usage`, async () => {
      llm.requests.length = 0;
      llm.script({ text: 'Looking.', toolCalls: [{ name: 'list_pods', args: { namespace: 'shop' } }], usage: { input: 50, output: 7 } }, { text: 'Pod [pod:shop/web-1] is crashing.', usage: { input: 80, output: 9 } });
      const calls: unknown[] = [];
      const result = streamText({
        model: model(),
        system: 'You are a test.',
        prompt: 'What is wrong in shop?',
        stopWhen: stepCountIs(4),
        tools: {
          list_pods: tool({
            description: 'Pods of a namespace',
            inputSchema: jsonSchema<{ namespace: string }>({ type: 'object', properties: { namespace: { type: 'string' } }, required: ['namespace'], additionalProperties: false }),
            execute: (input) => {
              calls.push(input);
              return Promise.resolve({ pods: [{ name: 'web-1', phase: 'Running', restarts: 12 }] });
            },
          }),
        },
      });
      const kinds: string[] = [];
      let text = '';
      for await (const part of result.fullStream) {
        if (part.type === 'error') throw part.error instanceof Error ? part.error : new Error(JSON.stringify(part.error));
        kinds.push(part.type);
        if (part.type === 'text-delta') text += part.text;
      }
      assert.deepEqual(calls, [{ namespace: 'shop' }]);
      assert.equal(text, 'Looking.Pod [pod:shop/web-1] is crashing.');
      assert.ok(kinds.filter((k) => k === 'text-delta').length > 3, 'text arrives in several deltas');
      for (const k of ['tool-input-start', 'tool-call', 'tool-result', 'finish-step', 'finish']) assert.ok(kinds.includes(k), `${k} in ${kinds.join(',')}`);
      const usage = await result.totalUsage;
      assert.equal(usage.inputTokens, 130);
      assert.equal(usage.outputTokens, 16);
      assert.equal(llm.requests.length, 2);
      assert.ok(llm.requests.every((r) => r.protocol === protocol && r.body.stream === true));
      // The second request carries the tool's result back to the model.
      assert.match(llm.requests[1]?.raw ?? '', /restarts/);
      assert.equal(llm.pending(), 0);
    });
  }

  it('answers without streaming too (a connection test), and a scripted failure with the status', async () => {
    llm.script({ text: 'ok' }, { failWith: 401 });
    const openai = createOpenAI({ baseURL: `${llm.url}/v1`, apiKey: 'sk-test' }).chat('gpt-test');
    assert.equal((await generateText({ model: openai, prompt: 'ping', maxOutputTokens: 5 })).text, 'ok');
    await assert.rejects(generateText({ model: createAnthropic({ baseURL: `${llm.url}/v1`, apiKey: 'bad' })('claude-test'), prompt: 'ping', maxRetries: 0 }), /401|scripted/);
  });

  for (const [name, model, protocol] of models.filter(([, , p], i) => i === 0 || p === 'anthropic')) {
    it(`${name}: a scripted pause after the first piece holds the rest back (a slow model the dashboard test watches)`, async () => {
      llm.script({ text: 'Partial answer, then the rest.', pauseAfterFirstPieceMs: 400 });
      const seen: { text: string; at: number }[] = [];
      for await (const text of streamText({ model: model(), prompt: 'ping' }).textStream) seen.push({ text, at: performance.now() });
      assert.equal(seen.map((s) => s.text).join(''), 'Partial answer, then the rest.');
      const [first, second] = seen;
      assert.ok(first && second, JSON.stringify(seen));
      assert.equal(first.text, 'Partial ');
      // The server sleeps 400 ms between the first piece and the second; timers never fire early by more than a millisecond.
      assert.ok(second.at - first.at >= 350, JSON.stringify(seen));
      assert.equal(llm.requests.at(-1)?.protocol, protocol);
      assert.equal(llm.requests.at(-1)?.abandoned, false, 'a finished answer is not recorded as abandoned');
    });
  }
});
