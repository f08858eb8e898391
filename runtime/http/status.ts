import type { Context, Env } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { AppError, ErrorCode } from '../../handlers/result.ts';
import type { ErrorBody } from '../../schema/common.ts';

const UPGRADE_HINT = 'This feature needs a Capstan license tier that includes it; an admin can add a license under Admin → License.';

/** The one place an error code becomes an HTTP status. */
export const STATUS_OF: Readonly<Record<ErrorCode, ContentfulStatusCode>> = {
  invalid_input: 400,
  unauthenticated: 401,
  second_factor_required: 401,
  feature_not_licensed: 402,
  ip_denied: 403,
  forbidden: 403,
  mcp_disabled: 403,
  expert_mode_disabled: 403,
  expert_unavailable: 502,
  upstream_unavailable: 502,
  expert_not_installed: 409,
  ai_disabled: 403,
  ai_limit_reached: 402,
  api_key_forbidden: 403,
  api_key_insufficient_scope: 403,
  cross_site_request: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  not_ready: 503,
  overloaded: 503,
  registration_full: 503,
  locked_out: 429,
  rate_limited: 429,
  internal: 500,
  oauth_error: 400,
};

export function errorBody(error: AppError): ErrorBody {
  if (error.code === 'invalid_input') return { error: error.code, message: error.message, field: error.field, ...(error.position === undefined ? {} : { position: error.position }) };
  if (error.code === 'conflict' || error.code === 'unsupported_media_type') return { error: error.code, message: error.message, field: error.field };
  if (error.code === 'api_key_insufficient_scope') return { error: error.code, message: error.message, scope: error.scope };
  if (error.code === 'oauth_error') return { error: error.oauthError, message: error.message, error_description: error.message };
  if (error.code === 'feature_not_licensed') return { error: error.code, message: error.message, feature: error.feature, upgrade: UPGRADE_HINT };
  if (error.code === 'ai_limit_reached') return { error: error.code, message: error.message, feature: error.feature, upgrade: error.upgrade };
  return { error: error.code, message: error.message };
}

export function errorResponse<E extends Env>(c: Context<E>, error: AppError): Response {
  if ('retryAfterSecs' in error) c.header('Retry-After', String(error.retryAfterSecs));
  return c.json(errorBody(error), STATUS_OF[error.code]);
}
