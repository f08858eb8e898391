// The PromQL guard (docs/observability.md, "The guard"): a caller's query read with
// Prometheus' own grammar (./promql-ast.ts), every vector and range selector confined to the
// namespaces the caller may see, the time bounds checked, and the query printed again from the
// checked tree. It fails closed: syntax it does not know is refused, never passed on.
//
// Confinement follows prom-label-proxy's idea (enforce the namespace label on every selector)
// with two differences: the caller's own namespace matchers are kept and ours is added beside
// them (Prometheus ANDs matchers on one label, so the answer is the intersection and no
// regex of the caller's can widen it), and a `namespace="x"` naming a namespace the caller may
// not see is refused outright rather than silently answered empty.
import { printPromql, PromqlRefusal, readPromql, type Duration, type Expr, type Matcher } from './promql-ast.ts';

export interface PromqlVisibility {
  /** The namespaces the caller may see (the tenant allowlist, system namespaces already out). */
  namespaces: readonly string[];
  /** Series with no namespace label (API server, nodes, Prometheus itself): admins only. */
  unnamespaced: boolean;
}

export interface PromqlBounds {
  /** The longest range a selector, subquery or offset may reach back (and a query_range may span). */
  maxLookbackMs: number;
  /** A subquery's points (range / step) at most, as a query_range's. */
  maxPoints: number;
}

export const DEFAULT_BOUNDS: PromqlBounds = { maxLookbackMs: 7 * 86_400_000, maxPoints: 11_000 };
/** The query text a caller may send. */
export const MAX_QUERY_CHARS = 16 * 1024;

export type GuardedQuery = { ok: true; query: string } | { ok: false; message: string; position: number | null };

/** A regex matching exactly these values (Prometheus anchors it), each escaped. */
function alternation(values: readonly string[]): string {
  return values.map((v) => v.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&')).join('|');
}

function checkDuration(d: Duration, what: string, bounds: PromqlBounds): void {
  if (d.ms > bounds.maxLookbackMs) throw new PromqlRefusal(`${what} ${d.text} reaches back more than ${String(bounds.maxLookbackMs / 86_400_000)} days`);
}

function confineSelector(e: Extract<Expr, { kind: 'selector' }>, v: PromqlVisibility): Expr {
  const visible = new Set(v.namespaces);
  for (const m of e.matchers) {
    if (m.label === 'namespace' && m.op === '=') {
      if (m.value === '' ? !v.unnamespaced : !visible.has(m.value)) throw new PromqlRefusal(m.value === '' ? 'series without a namespace are for admins only' : `namespace "${m.value}" is not one you may see`);
    }
  }
  if (v.namespaces.length === 0 && !v.unnamespaced) throw new PromqlRefusal('you may see no namespace, so no series');
  // The empty alternative lets an admin's query reach series without the label; ours is added to theirs.
  const allowed = v.unnamespaced ? [...v.namespaces, ''] : [...v.namespaces];
  const ours: Matcher = { label: 'namespace', op: '=~', value: alternation(allowed) };
  return { ...e, matchers: [...e.matchers, ours] };
}

/** Offset and @ apply to a selector, a range selector or a subquery, each at most once (as Prometheus requires). */
function checkModified(e: Expr, seen: { offset: boolean; at: boolean }): void {
  if (e.kind === 'offset' || e.kind === 'at') {
    if (seen[e.kind]) throw new PromqlRefusal(`${e.kind === 'at' ? '@' : 'offset'} twice on one selector`);
    checkModified(e.expr, { ...seen, [e.kind]: true });
    return;
  }
  if (e.kind !== 'selector' && e.kind !== 'matrix' && e.kind !== 'subquery') throw new PromqlRefusal('offset and @ must follow a selector, a range selector or a subquery');
}

function confine(e: Expr, v: PromqlVisibility, bounds: PromqlBounds): Expr {
  const go = (x: Expr) => confine(x, v, bounds);
  switch (e.kind) {
    case 'number':
    case 'string':
      return e;
    case 'selector':
      return confineSelector(e, v);
    case 'matrix': {
      checkDuration(e.range, 'a range', bounds);
      const selector = confineSelector(e.selector, v);
      return { ...e, selector: selector as Extract<Expr, { kind: 'selector' }> };
    }
    case 'subquery': {
      checkDuration(e.range, 'a subquery range', bounds);
      if (e.step !== null && e.step.ms === 0) throw new PromqlRefusal('a subquery step must be more than zero');
      if (e.step !== null && e.range.ms / e.step.ms > bounds.maxPoints) throw new PromqlRefusal(`a subquery of ${e.range.text} at ${e.step.text} has more than ${String(bounds.maxPoints)} points`);
      return { ...e, expr: go(e.expr) };
    }
    case 'offset':
      checkModified(e, { offset: false, at: false });
      checkDuration(e.offset, 'an offset', bounds);
      return { ...e, expr: go(e.expr) };
    case 'at':
      checkModified(e, { offset: false, at: false });
      return { ...e, expr: go(e.expr) };
    case 'paren':
    case 'unary':
      return { ...e, expr: go(e.expr) };
    case 'binary':
      return { ...e, left: go(e.left), right: go(e.right) };
    case 'aggregate':
    case 'call':
      return { ...e, args: e.args.map(go) };
  }
}

/**
 * The query to send upstream for this caller, or why not. Every selector carries a namespace
 * matcher within `visibility`; ranges, subqueries and offsets stay within `bounds`.
 */
export function guardPromql(query: string, visibility: PromqlVisibility, bounds: PromqlBounds = DEFAULT_BOUNDS): GuardedQuery {
  if (query.length > MAX_QUERY_CHARS) return { ok: false, message: `the query is longer than ${String(MAX_QUERY_CHARS)} characters`, position: null };
  if (query.trim() === '') return { ok: false, message: 'the query is empty', position: null };
  try {
    return { ok: true, query: printPromql(confine(readPromql(query), visibility, bounds)) };
  } catch (err) {
    if (err instanceof PromqlRefusal) return { ok: false, message: err.message, position: err.position };
    throw err;
  }
}
