// PromQL as the guard handles it (./promql-guard.ts): Prometheus' own grammar
// (@prometheus-io/lezer-promql) read into a small tree of the constructs the guard knows, and
// printed back. Anything the reader does not know is refused, never passed through: the query
// sent upstream is always printed from this tree, never the caller's text. The subset is what
// Prometheus 2.x evaluates; newer syntax (duration arithmetic, fill modifiers, quoted UTF-8
// names, `info`) is refused as not supported.
import type { SyntaxNode } from '@lezer/common';
import { parser } from '@prometheus-io/lezer-promql';

export type MatchOp = '=' | '!=' | '=~' | '!~';
export interface Matcher {
  label: string;
  op: MatchOp;
  value: string;
}
/** A duration as written (`5m`, `1h30m`) and its length. */
export interface Duration {
  text: string;
  ms: number;
}

export type Expr =
  | { kind: 'number'; text: string }
  | { kind: 'string'; value: string }
  | { kind: 'selector'; name: string | null; matchers: Matcher[] }
  | { kind: 'matrix'; selector: Extract<Expr, { kind: 'selector' }>; range: Duration }
  | { kind: 'subquery'; expr: Expr; range: Duration; step: Duration | null }
  | { kind: 'offset'; expr: Expr; negative: boolean; offset: Duration }
  | { kind: 'at'; expr: Expr; at: string }
  | { kind: 'paren'; expr: Expr }
  | { kind: 'unary'; op: '-' | '+'; expr: Expr }
  | { kind: 'binary'; op: string; left: Expr; right: Expr; bool: boolean; matching: { on: boolean; labels: string[] } | null; group: { side: 'group_left' | 'group_right'; labels: string[] } | null }
  | { kind: 'aggregate'; op: string; modifier: { without: boolean; labels: string[] } | null; args: Expr[] }
  | { kind: 'call'; fn: string; args: Expr[] };

export class PromqlRefusal extends Error {
  override readonly name = 'PromqlRefusal';
  constructor(
    message: string,
    /** Where in the query, a character offset, when it is one place. */
    readonly position: number | null = null,
  ) {
    super(message);
  }
}

/**
 * Functions evaluated only over their arguments. Not here, so refused: `info` (it reads
 * `target_info` series no selector names, which no matcher could confine) and anything newer.
 */
export const FUNCTIONS = new Set([
  'abs', 'absent', 'absent_over_time', 'acos', 'acosh', 'asin', 'asinh', 'atan', 'atanh', 'avg_over_time', 'ceil', 'changes', 'clamp', 'clamp_max', 'clamp_min', 'cos', 'cosh', 'count_over_time',
  'days_in_month', 'day_of_month', 'day_of_week', 'day_of_year', 'deg', 'delta', 'deriv', 'exp', 'floor', 'histogram_count', 'histogram_fraction', 'histogram_quantile', 'histogram_stddev', 'histogram_stdvar',
  'histogram_sum', 'histogram_avg', 'hour', 'idelta', 'increase', 'irate', 'label_replace', 'label_join', 'last_over_time', 'ln', 'log10', 'log2', 'mad_over_time', 'max_over_time', 'min_over_time', 'minute',
  'month', 'pi', 'predict_linear', 'present_over_time', 'quantile_over_time', 'rad', 'rate', 'resets', 'round', 'scalar', 'sgn', 'sin', 'sinh', 'sort', 'sort_desc', 'sqrt', 'stddev_over_time',
  'stdvar_over_time', 'sum_over_time', 'tan', 'tanh', 'timestamp', 'time', 'vector', 'year',
]);
export const AGGREGATES = new Set(['sum', 'min', 'max', 'avg', 'group', 'stddev', 'stdvar', 'count', 'count_values', 'bottomk', 'topk', 'quantile']);
const BINARY_OPS: Record<string, string> = { Add: '+', Sub: '-', Mul: '*', Div: '/', Mod: '%', Pow: '^', Eql: '==', Neq: '!=', Gtr: '>', Lss: '<', Gte: '>=', Lte: '<=', And: 'and', Or: 'or', Unless: 'unless', Atan2: 'atan2' };
const MATCH_OPS: Record<string, MatchOp> = { EqlSingle: '=', Neq: '!=', EqlRegex: '=~', NeqRegex: '!~' };

const DURATION = /^(?:[0-9]+(?:ms|[smhdwy]))+$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000, y: 31_536_000_000 };
const NUMBER = /^(?:[+-]?(?:inf|nan)|0x[0-9a-f]+|(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:e[+-]?[0-9]+)?)$/i;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const METRIC = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
/** Nodes a query may have; past it the query is refused before anything is built. */
export const MAX_NODES = 4000;

function durationOf(text: string, at: number): Duration {
  if (!DURATION.test(text)) throw new PromqlRefusal(`"${text}" is not a duration this guard accepts (like 5m or 1h30m)`, at);
  let ms = 0;
  for (const m of text.matchAll(/([0-9]+)(ms|[smhdwy])/g)) ms += Number(m[1]) * (UNIT_MS[m[2] ?? 's'] ?? 0);
  return { text, ms };
}

/** A Go-quoted PromQL string (double, single or backtick), decoded as strconv.Unquote does; anything else refused. */
export function unquote(raw: string, at: number): string {
  const quote = raw[0];
  if (raw.length < 2 || raw.at(-1) !== quote) throw new PromqlRefusal('an unterminated string', at);
  const body = raw.slice(1, -1);
  if (quote === '`') return body;
  if (quote !== '"' && quote !== "'") throw new PromqlRefusal('a string must be quoted', at);
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i] ?? '';
    if (c === '\n' || c === quote) throw new PromqlRefusal('a string with a bare newline or quote', at);
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = body[++i] ?? '';
    const simple: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', '"': '"', "'": "'" };
    if (e in simple) {
      if ((e === '"' || e === "'") && e !== quote) throw new PromqlRefusal(`\\${e} is not an escape inside ${quote}…${quote}`, at);
      out += simple[e] ?? '';
      continue;
    }
    const hex = (n: number) => {
      const digits = body.slice(i + 1, i + 1 + n);
      if (!new RegExp(`^[0-9a-fA-F]{${String(n)}}$`).test(digits)) throw new PromqlRefusal('a malformed escape in a string', at);
      i += n;
      return parseInt(digits, 16);
    };
    let code: number;
    if (e === 'x') code = hex(2);
    else if (e === 'u') code = hex(4);
    else if (e === 'U') code = hex(8);
    else if (/[0-7]/.test(e)) {
      const digits = body.slice(i, i + 3);
      if (!/^[0-7]{3}$/.test(digits)) throw new PromqlRefusal('a malformed octal escape in a string', at);
      i += 2;
      code = parseInt(digits, 8);
    } else throw new PromqlRefusal(`\\${e} is not an escape PromQL knows`, at);
    if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) throw new PromqlRefusal('an escape that is not a character', at);
    out += String.fromCodePoint(code);
  }
  return out;
}

/** Reads `query` into the tree, or throws PromqlRefusal (a syntax error names its position). */
export function readPromql(query: string): Expr {
  const tree = parser.parse(query);
  // Set inside the walk's callback, which flow analysis does not follow.
  const seen: { nodes: number; error: number | null } = { nodes: 0, error: null };
  tree.iterate({
    enter: (n) => {
      seen.nodes++;
      if (n.type.isError && seen.error === null) seen.error = n.from;
    },
  });
  if (seen.error !== null) throw new PromqlRefusal(`syntax error at position ${String(seen.error)}`, seen.error);
  if (seen.nodes > MAX_NODES) throw new PromqlRefusal(`the query has more than ${String(MAX_NODES)} parts`);
  const [top, ...more] = kids(tree.topNode);
  if (!top || more.length > 0) throw new PromqlRefusal('the query must be one expression');
  return read(top, query);
}

const text = (n: SyntaxNode, q: string) => q.slice(n.from, n.to);
/** The node's children that carry meaning (comments dropped). */
function kids(n: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (let c = n.firstChild; c; c = c.nextSibling) if (c.type.name !== 'LineComment') out.push(c);
  return out;
}
const unsupported = (n: SyntaxNode, q: string): PromqlRefusal => new PromqlRefusal(`"${text(n, q).slice(0, 60)}" (${n.type.name}) is not supported`, n.from);

function labels(n: SyntaxNode, q: string): string[] {
  return kids(n).map((l) => {
    if (l.type.name !== 'LabelName' || !LABEL.test(text(l, q))) throw unsupported(l, q);
    return text(l, q);
  });
}

function durationNode(n: SyntaxNode, q: string): Duration {
  const parts = kids(n);
  const only = parts[0];
  if (n.type.name === 'NumberDurationLiteralInDurationContext') return durationOf(text(n, q), n.from);
  if (parts.length !== 1 || !only || only.type.name !== 'NumberDurationLiteralInDurationContext') throw unsupported(n, q);
  return durationOf(text(only, q), only.from);
}

function read(n: SyntaxNode, q: string): Expr {
  const c = kids(n);
  switch (n.type.name) {
    case 'NumberDurationLiteral': {
      const t = text(n, q);
      if (!NUMBER.test(t)) throw new PromqlRefusal(`"${t}" is not a number this guard accepts`, n.from);
      return { kind: 'number', text: t };
    }
    case 'StringLiteral':
      return { kind: 'string', value: unquote(text(n, q), n.from) };
    case 'VectorSelector': {
      let name: string | null = null;
      const matchers: Matcher[] = [];
      for (const part of c) {
        if (part.type.name === 'Identifier') {
          if (!METRIC.test(text(part, q))) throw unsupported(part, q);
          name = text(part, q);
        } else if (part.type.name === 'LabelMatchers') {
          for (const m of kids(part)) {
            if (m.type.name !== 'UnquotedLabelMatcher') throw unsupported(m, q);
            const [label, op, value] = kids(m);
            const opKind = op?.firstChild?.type.name ?? '';
            if (!label || label.type.name !== 'LabelName' || !LABEL.test(text(label, q)) || !(opKind in MATCH_OPS) || !value || value.type.name !== 'StringLiteral') throw unsupported(m, q);
            matchers.push({ label: text(label, q), op: MATCH_OPS[opKind] ?? '=', value: unquote(text(value, q), value.from) });
          }
        } else throw unsupported(part, q);
      }
      return { kind: 'selector', name, matchers };
    }
    case 'MatrixSelector': {
      const [sel, range] = c;
      if (c.length !== 2 || !sel || !range || sel.type.name !== 'VectorSelector' || range.type.name !== 'DurationExpr') throw unsupported(n, q);
      const selector = read(sel, q);
      if (selector.kind !== 'selector') throw unsupported(n, q);
      return { kind: 'matrix', selector, range: durationNode(range, q) };
    }
    case 'SubqueryExpr': {
      const [inner, range, step] = c;
      if (!inner || !range || range.type.name !== 'DurationExpr' || (step && step.type.name !== 'DurationExpr') || c.length > 3) throw unsupported(n, q);
      return { kind: 'subquery', expr: read(inner, q), range: durationNode(range, q), step: step ? durationNode(step, q) : null };
    }
    case 'OffsetExpr': {
      const [inner, kw, dur] = c;
      if (c.length !== 3 || !inner || kw?.type.name !== 'Offset' || !dur || dur.type.name !== 'OffsetDurationExpr') throw unsupported(n, q);
      const dk = kids(dur);
      const negative = dk[0]?.type.name === 'UnaryOp';
      const literal = negative ? dk[1] : dur;
      if (!literal || (negative && (dk.length !== 2 || text(dk[0] as SyntaxNode, q) !== '-'))) throw unsupported(dur, q);
      return { kind: 'offset', expr: read(inner, q), negative, offset: durationNode(literal, q) };
    }
    case 'StepInvariantExpr': {
      const [inner, at, when, call] = c;
      if (!inner || at?.type.name !== 'At' || !when) throw unsupported(n, q);
      if (when.type.name === 'NumberDurationLiteral') {
        if (c.length !== 3 || !/^[0-9]+(\.[0-9]+)?$/.test(text(when, q))) throw unsupported(n, q);
        return { kind: 'at', expr: read(inner, q), at: text(when, q) };
      }
      const which = when.firstChild?.type.name;
      if (when.type.name !== 'AtModifierPreprocessors' || (which !== 'AtStart' && which !== 'AtEnd') || call !== undefined) throw unsupported(n, q);
      return { kind: 'at', expr: read(inner, q), at: which === 'AtStart' ? 'start()' : 'end()' };
    }
    case 'ParenExpr': {
      if (c.length !== 1 || !c[0]) throw unsupported(n, q);
      return { kind: 'paren', expr: read(c[0], q) };
    }
    case 'UnaryExpr': {
      const [op, inner] = c;
      const sign = op ? text(op, q) : '';
      if (c.length !== 2 || op?.type.name !== 'UnaryOp' || (sign !== '-' && sign !== '+') || !inner) throw unsupported(n, q);
      return { kind: 'unary', op: sign, expr: read(inner, q) };
    }
    case 'BinaryExpr': {
      const left = c[0];
      const right = c.at(-1);
      const opNode = c[1];
      const op = opNode ? BINARY_OPS[opNode.type.name] : undefined;
      if (!left || !right || c.length < 3 || op === undefined) throw unsupported(n, q);
      let bool = false;
      let matching: { on: boolean; labels: string[] } | null = null;
      let group: { side: 'group_left' | 'group_right'; labels: string[] } | null = null;
      for (const mod of c.slice(2, -1)) {
        if (mod.type.name === 'BoolModifier') bool = true;
        else if (mod.type.name === 'MatchingModifierClause') {
          const mk = kids(mod);
          const [onOrIgnoring, onLabels, groupKw, groupLabels] = mk;
          if (!onOrIgnoring || (onOrIgnoring.type.name !== 'On' && onOrIgnoring.type.name !== 'Ignoring') || onLabels?.type.name !== 'GroupingLabels') throw unsupported(mod, q);
          matching = { on: onOrIgnoring.type.name === 'On', labels: labels(onLabels, q) };
          if (groupKw) {
            if ((groupKw.type.name !== 'GroupLeft' && groupKw.type.name !== 'GroupRight') || mk.length > 4 || (groupLabels && groupLabels.type.name !== 'GroupingLabels')) throw unsupported(mod, q);
            group = { side: groupKw.type.name === 'GroupLeft' ? 'group_left' : 'group_right', labels: groupLabels ? labels(groupLabels, q) : [] };
          }
        } else throw unsupported(mod, q);
      }
      return { kind: 'binary', op, left: read(left, q), right: read(right, q), bool, matching, group };
    }
    case 'AggregateExpr': {
      const opNode = c.find((x) => x.type.name === 'AggregateOp');
      const body = c.find((x) => x.type.name === 'FunctionCallBody');
      const mod = c.find((x) => x.type.name === 'AggregateModifier');
      const op = opNode ? text(opNode, q) : '';
      if (!AGGREGATES.has(op) || !body || c.length !== (mod ? 3 : 2)) throw unsupported(n, q);
      let modifier: { without: boolean; labels: string[] } | null = null;
      if (mod) {
        const [kw, grouping] = kids(mod);
        if (!kw || (kw.type.name !== 'By' && kw.type.name !== 'Without') || grouping?.type.name !== 'GroupingLabels') throw unsupported(mod, q);
        modifier = { without: kw.type.name === 'Without', labels: labels(grouping, q) };
      }
      return { kind: 'aggregate', op, modifier, args: kids(body).map((a) => read(a, q)) };
    }
    case 'FunctionCall': {
      const [id, body] = c;
      const fn = id ? text(id, q) : '';
      if (c.length !== 2 || id?.type.name !== 'FunctionIdentifier' || body?.type.name !== 'FunctionCallBody') throw unsupported(n, q);
      if (!FUNCTIONS.has(fn)) throw new PromqlRefusal(`the function ${fn} is not allowed${fn === 'info' ? ' (it reads series no selector names)' : ''}`, n.from);
      return { kind: 'call', fn, args: kids(body).map((a) => read(a, q)) };
    }
    default:
      throw unsupported(n, q);
  }
}

/** Go's strconv.Quote for what PromQL strings hold: JSON's escapes are a subset it reads back. */
const quote = (s: string): string => JSON.stringify(s);

const ATOMIC = new Set<Expr['kind']>(['number', 'string', 'selector', 'matrix', 'paren', 'call', 'aggregate']);
/** An operand printed with parentheses unless it cannot be split by precedence. */
const operand = (e: Expr): string => (ATOMIC.has(e.kind) ? printPromql(e) : `(${printPromql(e)})`);

/** The query Prometheus is sent: every part printed from the tree, strings re-quoted. */
export function printPromql(e: Expr): string {
  switch (e.kind) {
    case 'number':
      return e.text;
    case 'string':
      return quote(e.value);
    case 'selector': {
      const matchers = e.matchers.map((m) => `${m.label}${m.op}${quote(m.value)}`).join(',');
      return `${e.name ?? ''}{${matchers}}`;
    }
    case 'matrix':
      return `${printPromql(e.selector)}[${e.range.text}]`;
    case 'subquery':
      return `${operand(e.expr)}[${e.range.text}:${e.step?.text ?? ''}]`;
    case 'offset':
      return `${printPromql(e.expr)} offset ${e.negative ? '-' : ''}${e.offset.text}`;
    case 'at':
      return `${printPromql(e.expr)} @ ${e.at}`;
    case 'paren':
      return `(${printPromql(e.expr)})`;
    case 'unary':
      return `${e.op}${operand(e.expr)}`;
    case 'binary': {
      const matching = e.matching ? ` ${e.matching.on ? 'on' : 'ignoring'}(${e.matching.labels.join(',')})` : '';
      const group = e.group ? ` ${e.group.side}(${e.group.labels.join(',')})` : '';
      return `${operand(e.left)} ${e.op}${e.bool ? ' bool' : ''}${matching}${group} ${operand(e.right)}`;
    }
    case 'aggregate': {
      const modifier = e.modifier ? ` ${e.modifier.without ? 'without' : 'by'} (${e.modifier.labels.join(',')}) ` : '';
      return `${e.op}${modifier}(${e.args.map(printPromql).join(', ')})`;
    }
    case 'call':
      return `${e.fn}(${e.args.map(printPromql).join(', ')})`;
  }
}
