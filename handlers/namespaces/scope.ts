import type { AppError } from '../result.ts';

/** The structured 403 for a namespace outside what Capstan may show (never its data). */
export function outOfScope(namespace: string): AppError {
  return { code: 'forbidden', message: `namespace ${namespace} is outside what Capstan may show` };
}
