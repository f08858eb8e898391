// The chat endpoint's answer and its streamed events, as the OpenAPI document declares them.
// Apart from the client so that pure modules (and their unit tests under Node) can name them.
import type { operations } from './schema.js';

type ChatContent = operations['post_copilot_chat']['responses'][200]['content'];

/** The finished answer (the JSON answer, and the `done` event's fields). */
export type ChatAnswer = ChatContent['application/json'];
/** One streamed event: tool steps, text, then `done` or `error`. */
export type ChatEvent = ChatContent['text/event-stream'];
