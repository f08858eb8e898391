// Counts writes to chosen tables as they pass through this process's database handle, so a
// cache of rows from those tables can tell, without a query, whether anything it holds may
// have changed. Every insert, update, delete and merge that names a watched table counts, from
// any caller (services, the recovery CLIs run in-process, tests writing rows directly); a raw
// statement that is not a SELECT counts against every watched table, since its tables are not
// parsed. Writes by another process are not seen here: caches bound those by time.
import type { KyselyPlugin, OperationNode, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';

const WRITES = new Set(['InsertQueryNode', 'UpdateQueryNode', 'DeleteQueryNode', 'MergeQueryNode']);

/** Every table a query's tree names (targets, joins, subqueries). */
function tablesIn(node: unknown, found: Set<string>): void {
  if (Array.isArray(node)) {
    for (const item of node) tablesIn(item, found);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const operation = node as OperationNode & { table?: { identifier?: { name?: unknown } } };
  if (operation.kind === 'TableNode' && typeof operation.table?.identifier?.name === 'string') found.add(operation.table.identifier.name);
  for (const value of Object.values(node)) if (typeof value === 'object' && value !== null) tablesIn(value, found);
}

/** Whether a raw statement only reads (its first keyword). */
function rawReadsOnly(node: RootOperationNode): boolean {
  if (node.kind !== 'RawNode') return false;
  const first = node.sqlFragments[0]?.trimStart().slice(0, 6).toUpperCase() ?? '';
  return first === 'SELECT' || first.startsWith('PRAGMA');
}

export class TableWriteWatch implements KyselyPlugin {
  private generation = 0;
  private readonly pending = new WeakSet<object>();

  constructor(private readonly watched: ReadonlySet<string>) {}

  /** Changes whenever a watched table may have been written: read it before a query, compare it after. */
  current(): number {
    return this.generation;
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (this.touchesWatched(args.node)) {
      // Counted before the statement runs and again once it has: a read that began in between
      // saw a generation that is stale by the time its rows could be cached.
      this.generation++;
      this.pending.add(args.queryId);
    }
    return args.node;
  }

  transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    if (this.pending.has(args.queryId)) {
      this.pending.delete(args.queryId);
      this.generation++;
    }
    return Promise.resolve(args.result);
  }

  private touchesWatched(node: RootOperationNode): boolean {
    if (node.kind === 'RawNode') return !rawReadsOnly(node);
    if (!WRITES.has(node.kind)) return false;
    const tables = new Set<string>();
    tablesIn(node, tables);
    for (const table of tables) if (this.watched.has(table)) return true;
    return false;
  }
}
