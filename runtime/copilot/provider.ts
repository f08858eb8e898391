// A language model from AI Settings, through the Vercel AI SDK's providers. The key is used
// for the client it builds and nowhere else: not logged, not returned, not kept by this module.
// Every request goes through the outbound client's fetch (docs/security.md "Outbound calls").
import { createAnthropic } from '@ai-sdk/anthropic';
import { createAzure } from '@ai-sdk/azure';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import type { ProviderName } from '../../schema/copilot.ts';

export interface ModelChoice {
  provider: ProviderName;
  model: string;
  /** Already checked against residency and the egress allowlist (domain/copilot/egress.ts). */
  url: string;
  apiKey: string | null;
  /** The outbound client's fetch (runtime/outbound/client.ts): pinned to checked addresses, no redirects, capped. */
  fetch: typeof fetch;
}

export function languageModel(choice: ModelChoice): LanguageModel {
  const apiKey = choice.apiKey ?? undefined;
  switch (choice.provider) {
    case 'openai':
      // Chat Completions, the protocol every OpenAI-compatible server also speaks.
      return createOpenAI({ baseURL: choice.url, apiKey: apiKey ?? '', fetch: choice.fetch }).chat(choice.model);
    case 'anthropic':
      return createAnthropic({ baseURL: choice.url, apiKey: apiKey ?? '', fetch: choice.fetch })(choice.model);
    case 'azure':
      return createAzure({ baseURL: choice.url, apiKey: apiKey ?? '', fetch: choice.fetch }).chat(choice.model);
    case 'openai_compatible':
    case 'ollama':
      return createOpenAICompatible({ name: choice.provider, baseURL: choice.url, includeUsage: true, fetch: choice.fetch, ...(apiKey === undefined ? {} : { apiKey }) })(choice.model);
  }
}
