import type { NamespaceList } from '../../schema/namespaces.ts';
import type { HandlerContext } from '../context.ts';
import { ok, type Result } from '../result.ts';

export function listNamespaces(_input: object, ctx: HandlerContext): Result<NamespaceList> {
  const namespaces = ctx.cluster
    .namespaces()
    .map((ns) => ({ name: ns.name, phase: ns.phase, created_at: ns.createdAt, labels: { ...ns.labels } }))
    .sort((a, b) => a.name.localeCompare(b.name));
  return ok({ namespaces });
}
