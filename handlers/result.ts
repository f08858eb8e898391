// The one typed error union every handler and middleware speaks. Codes are stable API:
// clients branch on `error`. The HTTP status of each code lives in runtime/http/status.ts.

export type AppError =
  | { code: 'invalid_input'; field: string; message: string }
  | { code: 'unauthenticated'; message: string }
  | { code: 'forbidden'; message: string }
  | { code: 'not_found'; message: string }
  | { code: 'not_ready'; message: string }
  | { code: 'internal'; message: string };

export type ErrorCode = AppError['code'];

export type Result<T> = { ok: true; value: T } | { ok: false; error: AppError };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = <T = never>(error: AppError): Result<T> => ({ ok: false, error });
