import { firstHidden, type ScopedClusterView } from '../../domain/cluster/scoped.ts';
import type { AppError } from '../result.ts';

/** `namespace=*` asks for every namespace the caller may see (it is never a namespace's name). */
export const ALL_NAMESPACES = '*';

/**
 * The one out-of-scope refusal: the structured 403 for the first of `namespaces` outside what
 * Capstan may show (never its data), or null. The runtime calls it for a route's declared
 * namespace parameter and an MCP tool's declared namespace argument; handlers only for a
 * namespace they derive themselves (a cluster-model id).
 */
export function namespaceRefusal(cluster: ScopedClusterView, namespaces: string | readonly string[] | null | undefined): AppError | null {
  const names = typeof namespaces === 'string' ? [namespaces] : (namespaces ?? []);
  const hidden = firstHidden(cluster, names.filter((ns) => ns !== ALL_NAMESPACES));
  return hidden === undefined ? null : { code: 'forbidden', message: `namespace ${hidden} is outside what Capstan may show` };
}
