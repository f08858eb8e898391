import type { Context, Env } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { AppError, ErrorCode } from '../../handlers/result.ts';
import type { ErrorBody } from '../../schema/common.ts';

/** The one place an error code becomes an HTTP status. */
export const STATUS_OF: Readonly<Record<ErrorCode, ContentfulStatusCode>> = {
  invalid_input: 400,
  unauthenticated: 401,
  forbidden: 403,
  api_key_forbidden: 403,
  api_key_insufficient_scope: 403,
  not_found: 404,
  not_ready: 503,
  overloaded: 503,
  locked_out: 429,
  internal: 500,
};

export function errorBody(error: AppError): ErrorBody {
  if (error.code === 'invalid_input') return { error: error.code, message: error.message, field: error.field };
  if (error.code === 'api_key_insufficient_scope') return { error: error.code, message: error.message, scope: error.scope };
  return { error: error.code, message: error.message };
}

export function errorResponse<E extends Env>(c: Context<E>, error: AppError): Response {
  if ('retryAfterSecs' in error) c.header('Retry-After', String(error.retryAfterSecs));
  return c.json(errorBody(error), STATUS_OF[error.code]);
}
