import * as v from 'valibot';
import { Timestamp } from './common.ts';

export const NamespaceEntry = v.object({
  name: v.string(),
  phase: v.string(),
  created_at: v.nullable(Timestamp),
  labels: v.record(v.string(), v.string()),
});
export type NamespaceEntry = v.InferOutput<typeof NamespaceEntry>;

export const NamespaceList = v.object({ namespaces: v.array(NamespaceEntry) });
export type NamespaceList = v.InferOutput<typeof NamespaceList>;
