// The one way the dashboard talks to the agent: openapi-fetch over the types generated from
// the agent's OpenAPI document (schema.d.ts), and one error type carrying the spec's body.
import createClient from 'openapi-fetch';
import type { components, operations, paths } from './schema';

export type ErrorBody = components['schemas']['Error'];

/** The JSON body of an operation's 200 answer. */
export type Answer<Op extends keyof operations> = operations[Op]['responses'] extends { 200: { content: { 'application/json': infer T } } } ? T : never;

/** The JSON body an operation takes. */
export type Body<Op extends keyof operations> = NonNullable<operations[Op]['requestBody']> extends { content: { 'application/json': infer T } } ? T : never;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(body.message);
  }
}

export const api = createClient<paths>({ baseUrl: '/api/agent', credentials: 'same-origin' });

/** The value of a call, or an ApiError with the agent's `{error, message, ...}`. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok || data === undefined) {
    const body = (error ?? {}) as Partial<ErrorBody>;
    throw new ApiError(response.status, { error: body.error ?? `http_${response.status}`, message: body.message ?? response.statusText, ...body });
  }
  return data;
}

/** An error as a person reads it: the agent's message, prefixed by the field it names. */
export function errorText(err: unknown): string {
  if (err instanceof ApiError) return `${err.body.field ? `${err.body.field}: ` : ''}${err.body.message}`;
  return err instanceof Error ? err.message : String(err);
}
