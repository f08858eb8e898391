// Citations in a copilot answer: bracketed cluster-model node ids (`[pod:shop/web-1]`). The
// model is asked to cite what it states; the server then checks every citation against the
// node ids this run actually showed the model. An id it never saw (invented, misspelt, or from
// an earlier conversation) comes back `verified: false` with no link, so the dashboard shows it
// as unverified instead of deep-linking to something the model made up.
import type { Citation } from '../../schema/copilot.ts';
import { CLUSTER_SCOPED_KINDS, isNodeKind, linkOf, nodeId, parseNodeId, type NodeKind } from '../cluster/node-id.ts';

// `[` id `]`, where an id is a known kind prefix, a colon and no whitespace or brackets. A
// Markdown link's text (`[pod:shop/web-1](...)`) is a citation too; `[note: ...]` is not (no
// kind is named `note`, and a space follows the colon).
const BRACKETED = /\[([a-z]+:[^\s[\]]+)\]/g;

/** Every distinct node id cited in `text`, in order of first appearance. */
export function citedIds(text: string): string[] {
  const seen = new Set<string>();
  for (const match of text.matchAll(BRACKETED)) {
    const id = match[1] ?? '';
    if (parseNodeId(id) !== null) seen.add(id);
  }
  return [...seen];
}

/** The answer's citations, each verified against `given` (every node id the run showed the model). */
export function checkCitations(text: string, given: ReadonlySet<string>): Citation[] {
  return citedIds(text).map((id) => (given.has(id) ? { id, verified: true, link: linkOf(id) } : { id, verified: false, link: null }));
}

/** List fields of the read tools whose items are objects of one kind, named by `name` (namespace from the item or the enclosing result). */
const LIST_KINDS: Readonly<Record<string, NodeKind>> = { pods: 'Pod', services: 'Service', nodes: 'Node', namespaces: 'Namespace' };

function namedItemId(item: Record<string, unknown>, kind: NodeKind | null, namespace: string | null): string | null {
  const name = item.name;
  if (typeof name !== 'string' || name === '') return null;
  const ownKind = typeof item.kind === 'string' && isNodeKind(item.kind) ? item.kind : kind;
  if (ownKind === null) return null;
  const ns = typeof item.namespace === 'string' ? item.namespace : namespace;
  if (CLUSTER_SCOPED_KINDS.has(ownKind)) return nodeId(ownKind, null, name);
  return ns === null ? null : nodeId(ownKind, ns, name);
}

/**
 * Node ids a value shown to the model names (a tool result, the context): every string that is
 * a node id (graph nodes, findings, evidence), every `{kind, namespace, name}` record, the
 * items of the list tools' `pods`, `services`, `nodes`, `namespaces` and `workloads` fields, a
 * log's `pod` and an event's `object` (`Pod/web-1`) within their namespace. So
 * a pod the model saw in `list_pods` may be cited as `[pod:<namespace>/<name>]`. `into` collects.
 */
export function collectNodeIds(value: unknown, into: Set<string>, hint: { kind: NodeKind | null; namespace: string | null } = { kind: null, namespace: null }, depth = 0): void {
  if (depth > 64) return;
  if (typeof value === 'string') {
    if (value.length <= 600 && /^[a-z]+:\S+$/.test(value) && parseNodeId(value) !== null) into.add(value);
    return;
  }
  if (Array.isArray(value)) {
    for (const item of value) collectNodeIds(item, into, hint, depth + 1);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const record = value as Record<string, unknown>;
  const id = namedItemId(record, hint.kind, hint.namespace);
  if (id !== null) into.add(id);
  const namespace = typeof record.namespace === 'string' ? record.namespace : hint.namespace;
  // get_logs names its pod as `pod`; get_events names each event's object as `Kind/name`.
  if (typeof record.pod === 'string' && namespace !== null) into.add(nodeId('Pod', namespace, record.pod));
  const kindSlashName = typeof record.object === 'string' ? /^([A-Za-z]+)\/([^/\s]+)$/.exec(record.object) : null;
  if (kindSlashName && isNodeKind(kindSlashName[1] ?? '')) {
    const kind = kindSlashName[1] as NodeKind;
    const name = kindSlashName[2] ?? '';
    if (CLUSTER_SCOPED_KINDS.has(kind)) into.add(nodeId(kind, null, name));
    else if (namespace !== null) into.add(nodeId(kind, namespace, name));
  }
  for (const [key, item] of Object.entries(record)) {
    const kind = LIST_KINDS[key] ?? null;
    collectNodeIds(item, into, { kind: Array.isArray(item) ? kind : null, namespace }, depth + 1);
  }
}
