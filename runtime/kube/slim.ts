// Slimmers turn API objects into what the service reads, dropping managedFields,
// annotations and everything else no handler uses, so 5000 pods stay small in memory.
import type { NamespaceObject } from '../../handlers/context.ts';

interface RawNamespace {
  metadata?: { name?: string; creationTimestamp?: string; labels?: Record<string, string> };
  status?: { phase?: string };
}

export function slimNamespace(raw: unknown): NamespaceObject | null {
  const ns = raw as RawNamespace;
  if (!ns.metadata?.name) return null;
  return {
    name: ns.metadata.name,
    phase: ns.status?.phase ?? 'Unknown',
    createdAt: ns.metadata.creationTimestamp ?? null,
    labels: ns.metadata.labels ?? {},
  };
}
