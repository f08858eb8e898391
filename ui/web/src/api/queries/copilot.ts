// The copilot for everyone signed in: asking (a streamed chat), Diagnose on a namespace, the
// stored Diagnose results and SRE reports, and your own conversations.
import { mutationOptions, queryOptions, type QueryClient } from '@tanstack/react-query';
import { api, ApiError, unwrap, type Answer, type Body, type ErrorBody } from '../client';
import type { ChatAnswer, ChatEvent } from '../chat';
import { readMessages } from '../../copilot/sse';

export type ChatRequest = Body<'post_copilot_chat'>;
export type { ChatAnswer, ChatEvent };
export type StoredAnswer = Answer<'get_copilot_answers_by_id'>;
export type StoredAnswerSummary = Answer<'get_copilot_answers'>['items'][number];
export type Citation = StoredAnswer['citations'][number];

const answersKey = ['copilot', 'answers'] as const;

/**
 * Asks the copilot and hands each streamed event to `onEvent` as it arrives; resolves with the
 * finished answer. A refusal before the stream starts (403, 402, 429...) is an ApiError; an
 * abort (the stop button) rejects with the AbortError, and the agent stops the run.
 */
export async function askCopilot(request: ChatRequest, onEvent: (event: ChatEvent) => void, signal: AbortSignal): Promise<ChatAnswer> {
  const { data, error, response } = await api.POST('/copilot/chat', { body: request, parseAs: 'stream', headers: { accept: 'text/event-stream' }, signal });
  if (!response.ok || !data) {
    // parseAs: 'stream' leaves an error body unread: read the agent's {error, message} here.
    const body = ((await response.json().catch(() => error ?? {})) ?? {}) as Partial<ErrorBody>;
    throw new ApiError(response.status, { error: body.error ?? `http_${response.status}`, message: body.message ?? response.statusText, ...body });
  }
  for await (const message of readMessages(data)) {
    const event = message as ChatEvent;
    onEvent(event);
    if (event.type === 'done') return event;
    if (event.type === 'error') throw new ApiError(500, { error: event.error, message: event.message });
  }
  throw new ApiError(502, { error: 'stream_ended', message: 'the answer stopped before it was finished' });
}

export const answers = (filter: { kind?: 'diagnose' | 'report'; scope?: string }) =>
  queryOptions({ queryKey: [...answersKey, 'list', filter], queryFn: () => unwrap(api.GET('/copilot/answers', { params: { query: filter } })) });

export const storedAnswer = (id: string) =>
  queryOptions({ queryKey: [...answersKey, 'by-id', id], queryFn: () => unwrap(api.GET('/copilot/answers/{id}', { params: { path: { id } } })), staleTime: Infinity });

/** Diagnose a namespace: the result is stored, so the lists of stored answers are refreshed. */
export const diagnose = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: (namespace: string) => unwrap(api.POST('/namespaces/{namespace}/diagnose', { params: { path: { namespace } }, body: {} })),
    onSuccess: (stored) => {
      queryClient.setQueryData(storedAnswer(stored.id).queryKey, stored);
      return queryClient.invalidateQueries({ queryKey: [...answersKey, 'list'] });
    },
  });

const conversationsKey = ['copilot', 'conversations'] as const;

export const conversations = () => queryOptions({ queryKey: [...conversationsKey, 'list'], queryFn: () => unwrap(api.GET('/copilot/conversations')) });

export const conversation = (id: string) =>
  queryOptions({ queryKey: [...conversationsKey, 'by-id', id], queryFn: () => unwrap(api.GET('/copilot/conversations/{id}', { params: { path: { id } } })) });

/** After a chat turn is stored: the conversation list (and that conversation) change. */
export const conversationsChanged = (queryClient: QueryClient) => queryClient.invalidateQueries({ queryKey: conversationsKey });
