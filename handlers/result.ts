// The one typed error union every handler and middleware speaks. Codes are stable API:
// clients branch on `error`. The HTTP status of each code lives in runtime/http/status.ts.

export type AppError =
  | { code: 'invalid_input'; field: string; message: string; position?: number }
  | { code: 'unauthenticated'; message: string }
  | { code: 'second_factor_required'; message: string }
  | { code: 'feature_not_licensed'; message: string; feature: string }
  | { code: 'ip_denied'; message: string }
  | { code: 'forbidden'; message: string }
  /** An admin closed the MCP surface (the kill switch). */
  | { code: 'mcp_disabled'; message: string }
  /** Expert mode is off at run time, or the chart did not install the expert pod: every Helm route answers this. */
  | { code: 'expert_mode_disabled'; message: string }
  /** A configured observability source (Prometheus, Grafana) did not answer, or refused Capstan's credentials. */
  | { code: 'upstream_unavailable'; message: string }
  /** The expert pod did not answer, or refused the agent (docs/expert-mode.md). */
  | { code: 'expert_unavailable'; message: string }
  /** The switch is on but the chart no longer installs the expert pod (expertMode.enabled was turned off). */
  | { code: 'expert_not_installed'; message: string }
  /** AI Guardrails' master switch is off: every AI-backed call is refused (MCP read tools keep working). */
  | { code: 'ai_disabled'; message: string }
  /** A daily AI allowance is spent (the Free tier's chat prompts, a viewer's runs, a token cap): `upgrade` says what lifts it. */
  | { code: 'ai_limit_reached'; message: string; feature: string; upgrade: string }
  | { code: 'api_key_forbidden'; message: string }
  | { code: 'api_key_insufficient_scope'; message: string; scope: string }
  | { code: 'not_found'; message: string }
  /** The request clashes with what exists (a name already taken). */
  | { code: 'conflict'; field: string; message: string }
  | { code: 'not_ready'; message: string }
  | { code: 'locked_out'; message: string; retryAfterSecs: number }
  | { code: 'rate_limited'; message: string; retryAfterSecs: number }
  | { code: 'overloaded'; message: string; retryAfterSecs: number }
  /** Anonymous OAuth client registration is full (its cap); a slot frees when an unused client expires or an admin deletes one. */
  | { code: 'registration_full'; message: string; retryAfterSecs: number }
  | { code: 'internal'; message: string }
  /** The body is larger than the route accepts (its bodyLimitBytes, 1 MiB unless it declares more). */
  | { code: 'payload_too_large'; message: string }
  /** The body's content type is not one the route reads (JSON, and forms only where declared); `field` is `content-type`. */
  | { code: 'unsupported_media_type'; field: string; message: string }
  /** A state-changing request sent from another site (its Origin or Sec-Fetch-Site says so). */
  | { code: 'cross_site_request'; message: string }
  /** An OAuth endpoint's error (RFC 6749 §5.2): `error` is the OAuth code, `error_description` the message. */
  | { code: 'oauth_error'; oauthError: 'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unsupported_grant_type' | 'invalid_target' | 'invalid_redirect_uri' | 'invalid_client_metadata'; message: string };

export type ErrorCode = AppError['code'];

/** What a handler asks the runtime to do besides answering; the runtime owns cookies. */
export type ResponseEffect =
  /** SameSite is Strict for password sign-in, Lax after SSO (spec §5 "Password login" 3). */
  | { kind: 'set-session'; token: string; username: string; sameSite?: 'Strict' | 'Lax' }
  | { kind: 'clear-session' }
  /**
   * Any other cookie (the SSO flow cookies); an empty value with `maxAgeSecs: 0` clears it. The
   * runtime decides `Secure` from security.cookieSecure, as for the session cookie, and always
   * for `SameSite=None` (browsers drop a None cookie without it).
   */
  | { kind: 'cookie'; name: string; value: string; maxAgeSecs: number; path: string; sameSite: 'Strict' | 'Lax' | 'None'; httpOnly: boolean }
  /** Answer 302 to this URL (OAuth's authorization endpoint). */
  | { kind: 'redirect'; location: string }
  | { kind: 'headers'; headers: Readonly<Record<string, string>> }
  /** Answer with this body instead of the JSON value (an export in another format). */
  | { kind: 'download'; filename: string; contentType: string; body: string };

/**
 * What a handler answers, and what a service answers when it can refuse: a service's refusal
 * is the AppError itself (code, message, the field at fault), so a handler passes it through
 * unchanged and every capability reports the same clash the same way (a taken name is 409
 * `conflict` whether it is a username or an application). No service returns string verdicts
 * for a handler to translate.
 */
export type Result<T> = { ok: true; value: T; effects?: ResponseEffect[] } | { ok: false; error: AppError };

export const ok = <T>(value: T, effects?: ResponseEffect[]): Result<T> => (effects ? { ok: true, value, effects } : { ok: true, value });
export const fail = <T = never>(error: AppError): Result<T> => ({ ok: false, error });

/** A name or other unique value already taken: the one shape of that refusal, for every service. */
export const taken = (field: string, message: string): AppError => ({ code: 'conflict', field, message });
