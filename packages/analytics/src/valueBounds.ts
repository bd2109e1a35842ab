import type { A_Const, FuncCall, Node, ResTarget, SelectStmt, TypeName } from 'libpg-query';

/**
 * How large a value of a caller's query can get, worked out from the query alone, before it runs.
 * PostgreSQL evaluates a single function call without looking at the clock: building one huge string
 * or multiplying two numbers of many digits runs to its end whatever statement_timeout says, and
 * holds its memory meanwhile. So the guard refuses a query whose values could grow large, however
 * few rows it reads (docs/contract.md#analytics).
 *
 * Growth only comes from calls and operators that combine values (concat, ||, arrays, rows,
 * arithmetic on numerics, …); every value read from a table or written in the query has a known
 * bound, and a derived table, WITH query or subquery passes on the bounds of its columns, so nesting
 * cannot hide growth. The bounds are upper bounds, not estimates of what a query usually makes.
 */
export interface ValueBound {
  /** The size of the value: a string, an array, a row, a number as text. */
  bytes: number;
  /**
   * For a numeric, the powers of ten of its highest and lowest digits, and how many digits lie
   * between them (what PostgreSQL stores and multiplies: 1e1000 is one digit, 1e1000 + 1 is 1001).
   * For text, what a cast to numeric could make of it: a literal's numbers as written, any other
   * text anything PostgreSQL accepts (`'1e100000'::numeric` has 100,001 digits).
   */
  top: number;
  bottom: number;
  digits: number;
  /** A double precision: fixed size, and arithmetic with it is done in double precision. */
  float?: boolean;
}

/** A column of a public table: text (its largest value in bytes), bigint, double precision or boolean. */
export type PublicColumn =
  | { name: string; type: 'text'; bytes: number }
  | { name: string; type: 'bigint' | 'double' | 'boolean' };

export interface ValueLimits {
  /** The largest value (string, array, row) a query may build. */
  maxValueBytes: number;
  /** The most digits a numeric of the query may have (from its highest to its lowest). */
  maxNumberDigits: number;
  /**
   * What one row may cost at one level of the query: the bytes of every value it builds, plus a
   * numeric multiplication or division counted as 16 bytes per pair of 4-digit groups it multiplies.
   */
  maxRowWork: number;
}

/** PostgreSQL's numerics: up to 131,072 digits before the decimal point and 16,383 after it. */
const NUMERIC_TOP = 131_071;
const NUMERIC_BOTTOM = -16_383;
/** The most a numeric division or average keeps after the decimal point (NUMERIC_MAX_DISPLAY_SCALE). */
const DIVISION_SCALE = 1000;

/** Text cast to numeric, as far as PostgreSQL lets it go. */
const ANY_NUMBER = { top: NUMERIC_TOP, bottom: NUMERIC_BOTTOM, digits: NUMERIC_TOP - NUMERIC_BOTTOM + 1 };

function textBound(bytes: number): ValueBound {
  return { bytes, ...ANY_NUMBER };
}

/** A numeric from its highest to its lowest digit, with its digits and its size as text. */
function numeric(top: number, bottom: number, digits = top - bottom + 1): ValueBound {
  const low = Math.min(bottom, top);
  return {
    bytes: Math.max(top, 0) + 1 + Math.max(-low, 0) + 2,
    top,
    bottom: low,
    digits: Math.max(1, Math.min(digits, top - low + 1)),
  };
}

const BOOLEAN: ValueBound = { bytes: 5, top: 0, bottom: 0, digits: 1 };
const BIGINT: ValueBound = { bytes: 20, top: 18, bottom: 0, digits: 19 };
/**
 * A double precision as a numeric: 15 significant digits, the highest at most at 10^308, the lowest
 * at least at 10^-338 (the smallest double, 4.9e-324, written with its 15 digits).
 */
const DOUBLE: ValueBound = { bytes: 25, top: 308, bottom: -338, digits: 17, float: true };
/** Timestamps, dates, intervals: printed in under 64 bytes. */
const TIME: ValueBound = { bytes: 64, top: 0, bottom: 0, digits: 1 };
/** extract(… from …): an interval's epoch has up to 12 digits before the point and 6 after. */
const EXTRACTED = numeric(12, -6);
const NOTHING: ValueBound = { bytes: 0, top: 0, bottom: 0, digits: 0 };

function columnBound(column: PublicColumn): ValueBound {
  switch (column.type) {
    case 'bigint':
      return BIGINT;
    case 'double':
      return DOUBLE;
    case 'boolean':
      return BOOLEAN;
    default:
      return textBound(column.bytes);
  }
}

const COMPARISONS: ReadonlySet<string> = new Set([
  '=',
  '<>',
  '<',
  '>',
  '<=',
  '>=',
  '~~',
  '!~~',
  '~~*',
  '!~~*',
  '~',
  '~*',
  '!~',
  '!~*',
  '@>',
  '<@',
  '&&',
]);

/** A number as it can be written (SQL literal or numeric input), e.g. 12, -1.5, .5e-3. */
const NUMBER = /[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?/gi;

/** The numbers written in `text`, as one bound (zero when it holds none: a cast to numeric fails). */
function writtenNumbers(text: string): Omit<ValueBound, 'bytes'> {
  let bound = { top: 0, bottom: 0, digits: 0 };
  for (const [match] of text.matchAll(NUMBER)) {
    const [mantissa = '', exponentText = '0'] = match.toLowerCase().replace(/^[+-]/, '').split('e');
    const exponent = Number(exponentText);
    if (!Number.isSafeInteger(exponent)) return ANY_NUMBER;
    const [whole = '', fraction = ''] = mantissa.split('.');
    const written = `${whole}${fraction}`;
    const first = written.search(/[1-9]/);
    if (first < 0) continue;
    const last = written.length - 1 - [...written].reverse().join('').search(/[1-9]/);
    // The power of ten of the digit at `index` of the written digits.
    const power = (index: number) => whole.length - 1 - index + exponent;
    const top = Math.min(power(first), NUMERIC_TOP);
    const bottom = Math.max(power(last), NUMERIC_BOTTOM);
    bound = {
      top: Math.max(bound.top, top),
      bottom: Math.min(bound.bottom, bottom),
      digits: Math.max(bound.digits, top - bottom + 1),
    };
  }
  return bound;
}

function max(bounds: readonly ValueBound[]): ValueBound {
  return bounds.reduce(
    (a, b) => ({
      bytes: Math.max(a.bytes, b.bytes),
      top: Math.max(a.top, b.top),
      bottom: Math.min(a.bottom, b.bottom),
      digits: Math.max(a.digits, b.digits),
      // PostgreSQL makes double precision the common type of a double and a numeric.
      float: a.float || b.float,
    }),
    NOTHING,
  );
}

/** A row or array of these values. */
function composite(bounds: readonly ValueBound[]): ValueBound {
  return { ...max(bounds), bytes: bounds.reduce((sum, bound) => sum + bound.bytes + 8, 16), float: false };
}

/** Work of a numeric multiplication or division: PostgreSQL multiplies every 4-digit group of one by every one of the other. */
function productWork(a: number, b: number): number {
  return 16 * Math.ceil(Math.max(a, 1) / 4) * Math.ceil(Math.max(b, 1) / 4);
}

interface Column {
  name: string;
  bound: ValueBound;
}

/** A FROM item as the query sees it: the name it is referred to by, and its columns. */
interface Source {
  name: string | undefined;
  columns: Column[];
}

interface Level {
  sources: Source[];
  parent: Level | undefined;
  /** What a row of this level costs so far (see ValueLimits.maxRowWork). */
  work: number;
}

interface WithScope {
  queries: Map<string, Column[]>;
  parent: WithScope | undefined;
}

export interface BoundsContext {
  tables: Readonly<Record<string, { columns: readonly PublicColumn[] }>>;
  limits: ValueLimits;
  /** Refuses the query: a 400 pointing at `location`. */
  refuse(reason: string, location: number | undefined): never;
}

/**
 * Walks a checked query (see guard.ts) and refuses it when a value, a number or the work of a row
 * can exceed the limits. Returns the largest size a row of its result can have.
 */
export function boundValues(select: SelectStmt, context: BoundsContext): number {
  const walker = new BoundsWalker(context);
  const columns = walker.select(select, undefined, undefined);
  return columns.reduce((sum, column) => sum + column.bound.bytes + 8, 16);
}

class BoundsWalker {
  private readonly context: BoundsContext;

  constructor(context: BoundsContext) {
    this.context = context;
  }

  // ---- query levels --------------------------------------------------------------------------

  select(select: SelectStmt, outer: Level | undefined, withScope: WithScope | undefined): Column[] {
    let scope = withScope;
    if (select.withClause) {
      scope = { queries: new Map(), parent: withScope };
      for (const node of select.withClause.ctes ?? []) {
        if (!('CommonTableExpr' in node)) continue;
        const cte = node.CommonTableExpr;
        const body = cte.ctequery;
        if (!body || !('SelectStmt' in body)) continue;
        const columns = renamed(this.select(body.SelectStmt, outer, scope), cte.aliascolnames);
        scope.queries.set(cte.ctename ?? '', columns);
      }
    }
    if (select.op && select.op !== 'SETOP_NONE' && select.larg && select.rarg) {
      const left = this.select(select.larg, outer, scope);
      const right = this.select(select.rarg, outer, scope);
      const level: Level = { sources: [], parent: outer, work: 0 };
      this.expressions(select.sortClause, level, scope);
      return left.map((column, index) => ({
        name: column.name,
        bound: max([column.bound, right[index]?.bound ?? NOTHING]),
      }));
    }
    const level: Level = { sources: [], parent: outer, work: 0 };
    for (const item of select.fromClause ?? []) level.sources.push(...this.fromItem(item, level, scope));
    let output: Column[] = [];
    if (select.valuesLists) {
      const rows = select.valuesLists.map((row) =>
        'List' in row ? (row.List.items ?? []).map((item) => this.expression(item, level, scope)) : [],
      );
      const width = Math.max(0, ...rows.map((row) => row.length));
      output = Array.from({ length: width }, (_, index) => ({
        name: `column${index + 1}`,
        bound: max(rows.map((row) => row[index] ?? NOTHING)),
      }));
    }
    for (const target of select.targetList ?? []) {
      if ('ResTarget' in target) output.push(...this.target(target.ResTarget, level, scope));
    }
    this.expression(select.whereClause, level, scope);
    this.expressions(select.groupClause, level, scope);
    this.expression(select.havingClause, level, scope);
    this.expressions(select.distinctClause, level, scope);
    for (const window of select.windowClause ?? []) {
      if (!('WindowDef' in window)) continue;
      this.expressions(window.WindowDef.partitionClause, level, scope);
      this.expressions(window.WindowDef.orderClause, level, scope);
    }
    // ORDER BY may name an output column: it is looked up among them too.
    level.sources.push({ name: undefined, columns: output });
    this.expressions(select.sortClause, level, scope);
    this.finishLevel(level, firstLocationOf(select));
    return output;
  }

  private finishLevel(level: Level, location: number | undefined): void {
    const { maxRowWork } = this.context.limits;
    if (level.work > maxRowWork) {
      this.context.refuse(
        `This query can build up to ${describeBytes(level.work)} of values for each row it reads; an analytics query may build at most ${describeBytes(maxRowWork)} per row. Build fewer or smaller values (concat, ||, arrays, arithmetic on long numbers).`,
        location,
      );
    }
  }

  private target(target: ResTarget, level: Level, scope: WithScope | undefined): Column[] {
    const value = target.val;
    if (value && 'ColumnRef' in value) {
      const fields = value.ColumnRef.fields ?? [];
      if (fields.some((field) => 'A_Star' in field)) {
        const qualifier = fields.length > 1 ? stringOf(fields[0]) : undefined;
        return level.sources
          .filter((source) => qualifier === undefined || source.name === qualifier)
          .flatMap((source) => source.columns);
      }
    }
    const bound = this.expression(value, level, scope);
    return [{ name: target.name ?? figureName(value), bound }];
  }

  private fromItem(item: Node, level: Level, scope: WithScope | undefined): Source[] {
    if ('RangeVar' in item) {
      const range = item.RangeVar;
      const name = range.relname ?? '';
      const columns =
        withQuery(scope, name) ??
        (this.context.tables[name]?.columns ?? []).map((column) => ({ name: column.name, bound: columnBound(column) }));
      return [{ name: range.alias?.aliasname ?? name, columns: renamed(columns, range.alias?.colnames) }];
    }
    if ('RangeSubselect' in item) {
      const { subquery, alias } = item.RangeSubselect;
      if (!subquery || !('SelectStmt' in subquery)) return [];
      // LATERAL or not, the FROM items before it are visible: the bound holds either way.
      const columns = this.select(subquery.SelectStmt, level, scope);
      return [{ name: alias?.aliasname, columns: renamed(columns, alias?.colnames) }];
    }
    if ('RangeFunction' in item) {
      const range = item.RangeFunction;
      const columns: Column[] = [];
      for (const entry of range.functions ?? []) {
        if (!('List' in entry)) continue;
        const call = entry.List.items?.[0];
        if (!call || !('FuncCall' in call)) continue;
        const name = functionName(call.FuncCall);
        // unnest(a, b, …): a column per array, each value no larger than its array.
        for (const argument of call.FuncCall.args ?? []) {
          columns.push({ name, bound: this.expression(argument, level, scope) });
        }
      }
      if (range.ordinality) columns.push({ name: 'ordinality', bound: BIGINT });
      const alias = range.alias;
      const named =
        alias && !alias.colnames && columns.length === 1 && columns[0]
          ? [{ ...columns[0], name: alias.aliasname ?? '' }]
          : columns;
      return [{ name: alias?.aliasname ?? named[0]?.name, columns: renamed(named, alias?.colnames) }];
    }
    if ('JoinExpr' in item) {
      const join = item.JoinExpr;
      const sources = [
        ...(join.larg ? this.fromItem(join.larg, level, scope) : []),
        ...(join.rarg ? this.fromItem(join.rarg, level, scope) : []),
      ];
      const visible = { ...level, sources: [...level.sources, ...sources] };
      this.expression(join.quals, visible, scope);
      level.work = visible.work;
      if (join.alias) {
        const columns = renamed(
          sources.flatMap((source) => source.columns),
          join.alias.colnames,
        );
        return [{ name: join.alias.aliasname, columns }];
      }
      return sources;
    }
    return [];
  }

  // ---- expressions ---------------------------------------------------------------------------

  private expressions(nodes: Node[] | undefined, level: Level, scope: WithScope | undefined): ValueBound[] {
    return (nodes ?? []).map((node) => this.expression(node, level, scope));
  }

  /** The node's bound; one it builds is checked against the limits and added to the row's work. */
  private expression(node: Node | undefined, level: Level, scope: WithScope | undefined): ValueBound {
    if (!node || Object.keys(node).length === 0) return NOTHING;
    const built = this.built(node, level, scope);
    if (built === undefined) return this.passed(node, level, scope);
    const { bound, work = 0, location } = built;
    const { maxValueBytes } = this.context.limits;
    if (bound.bytes > maxValueBytes) {
      this.context.refuse(
        `This query can build a value of up to ${describeBytes(bound.bytes)} here; an analytics value may be at most ${describeBytes(maxValueBytes)}. Build smaller values (concat, ||, arrays, to_char of long formats).`,
        location,
      );
    }
    level.work += bound.bytes + work;
    return bound;
  }

  /** Nodes that pass a value on (or test it) without building a new one. */
  private passed(node: Node, level: Level, scope: WithScope | undefined): ValueBound {
    if ('ColumnRef' in node) return this.column(node.ColumnRef.fields ?? [], level, scope);
    if ('A_Const' in node) return constant(node.A_Const);
    if ('ResTarget' in node) return this.expression(node.ResTarget.val, level, scope);
    if ('SortBy' in node) return this.expression(node.SortBy.node, level, scope);
    if ('CollateClause' in node) return this.expression(node.CollateClause.arg, level, scope);
    if ('List' in node) return max(this.expressions(node.List.items, level, scope));
    if ('GroupingSet' in node) return max(this.expressions(node.GroupingSet.content, level, scope));
    if ('GroupingFunc' in node) {
      this.expressions(node.GroupingFunc.args, level, scope);
      return BIGINT;
    }
    if ('SQLValueFunction' in node) return TIME;
    if ('BoolExpr' in node) {
      this.expressions(node.BoolExpr.args, level, scope);
      return BOOLEAN;
    }
    if ('NullTest' in node) {
      this.expression(node.NullTest.arg, level, scope);
      return BOOLEAN;
    }
    if ('BooleanTest' in node) {
      this.expression(node.BooleanTest.arg, level, scope);
      return BOOLEAN;
    }
    if ('CaseExpr' in node) {
      const caseExpr = node.CaseExpr;
      this.expression(caseExpr.arg, level, scope);
      const results: ValueBound[] = [];
      for (const when of caseExpr.args ?? []) {
        if (!('CaseWhen' in when)) continue;
        this.expression(when.CaseWhen.expr, level, scope);
        results.push(this.expression(when.CaseWhen.result, level, scope));
      }
      results.push(this.expression(caseExpr.defresult, level, scope));
      return max(results);
    }
    if ('CoalesceExpr' in node) return max(this.expressions(node.CoalesceExpr.args, level, scope));
    if ('MinMaxExpr' in node) return max(this.expressions(node.MinMaxExpr.args, level, scope));
    if ('A_Indirection' in node) {
      for (const step of node.A_Indirection.indirection ?? []) {
        if ('A_Indices' in step) {
          this.expression(step.A_Indices.lidx, level, scope);
          this.expression(step.A_Indices.uidx, level, scope);
        }
      }
      return this.expression(node.A_Indirection.arg, level, scope);
    }
    if ('SubLink' in node) {
      const link = node.SubLink;
      this.expression(link.testexpr, level, scope);
      const subselect = link.subselect;
      const columns = subselect && 'SelectStmt' in subselect ? this.select(subselect.SelectStmt, level, scope) : [];
      return link.subLinkType === 'EXPR_SUBLINK' ? (columns[0]?.bound ?? NOTHING) : BOOLEAN;
    }
    if ('A_Expr' in node) {
      const expr = node.A_Expr;
      const left = this.expression(expr.lexpr, level, scope);
      this.expression(expr.rexpr, level, scope);
      // NULLIF(a, b) is a or NULL; every other kind left here is a test.
      return expr.kind === 'AEXPR_NULLIF' ? left : BOOLEAN;
    }
    // Anything else passed the guard's checks as a part of something above; it builds nothing.
    return NOTHING;
  }

  /** The nodes that build a value: its bound, the extra work beyond its size, where it is. */
  private built(
    node: Node,
    level: Level,
    scope: WithScope | undefined,
  ): { bound: ValueBound; work?: number; location: number | undefined } | undefined {
    if ('TypeCast' in node) {
      const cast = node.TypeCast;
      const argument = this.expression(cast.arg, level, scope);
      return { bound: this.cast(argument, cast.typeName, cast.location), location: cast.location };
    }
    if ('A_Expr' in node && node.A_Expr.kind === 'AEXPR_OP') {
      const expr = node.A_Expr;
      const operator = operatorName(expr.name);
      if (COMPARISONS.has(operator)) return undefined;
      const left = expr.lexpr ? this.expression(expr.lexpr, level, scope) : undefined;
      const right = this.expression(expr.rexpr, level, scope);
      return { ...this.arithmetic(operator, left, right, expr.location), location: expr.location };
    }
    if ('FuncCall' in node) return { ...this.call(node.FuncCall, level, scope), location: node.FuncCall.location };
    if ('A_ArrayExpr' in node) {
      const bound = composite(this.expressions(node.A_ArrayExpr.elements, level, scope));
      return { bound, location: node.A_ArrayExpr.location };
    }
    if ('RowExpr' in node) {
      return { bound: composite(this.expressions(node.RowExpr.args, level, scope)), location: node.RowExpr.location };
    }
    return undefined;
  }

  /** A numeric, unless it has more digits than a query may make: by arithmetic, as written, or from text. */
  private checkNumber(
    bound: ValueBound,
    location: number | undefined,
    madeBy: 'arithmetic' | 'cast' | 'text cast' = 'arithmetic',
  ): ValueBound {
    const { maxNumberDigits } = this.context.limits;
    if (bound.digits > maxNumberDigits) {
      const most = maxNumberDigits.toLocaleString('en');
      const count = bound.digits.toLocaleString('en');
      const reason = {
        arithmetic: `This arithmetic can make a number of up to ${count} digits; an analytics number may have at most ${most}. Round, or compute in double precision.`,
        cast: `This number has up to ${count} digits; an analytics number may have at most ${most}.`,
        'text cast': `Casting text to numeric here can make a number of up to ${count} digits; an analytics number may have at most ${most}. Cast to numeric(p, s) with p at most ${most}, to bigint or to double precision.`,
      }[madeBy];
      this.context.refuse(reason, location);
    }
    return bound;
  }

  private arithmetic(
    operator: string,
    left: ValueBound | undefined,
    right: ValueBound,
    location: number | undefined,
  ): { bound: ValueBound; work?: number } {
    if (operator === '||') return { bound: textBound((left?.bytes ?? 0) + right.bytes) };
    if (left === undefined) return { bound: right }; // unary minus or plus
    // With a double precision on either side, PostgreSQL computes in double precision.
    if (left.float || right.float) return { bound: DOUBLE };
    const [a, b] = [left, right];
    switch (operator) {
      case '*': {
        const product = numeric(a.top + b.top + 1, a.bottom + b.bottom, a.digits + b.digits);
        return { bound: this.checkNumber(product, location), work: productWork(a.digits, b.digits) };
      }
      case '/': {
        // PostgreSQL keeps at least 16 significant digits of a quotient, and as many after the
        // point as either side had, but never more than DIVISION_SCALE.
        const scale = Math.min(DIVISION_SCALE, Math.max(20 + Math.max(0, b.top - a.top), -a.bottom, -b.bottom, 0));
        const quotient = numeric(a.top - b.bottom + 1, -scale);
        return { bound: this.checkNumber(quotient, location), work: productWork(quotient.digits, b.digits) };
      }
      case '%': {
        const remainder = numeric(Math.min(a.top, b.top), Math.min(a.bottom, b.bottom));
        return { bound: this.checkNumber(remainder, location), work: productWork(a.digits, b.digits) };
      }
      default:
        // + and -: from the highest digit of either (and a carry) to the lowest of either.
        return { bound: this.checkNumber(numeric(Math.max(a.top, b.top) + 1, Math.min(a.bottom, b.bottom)), location) };
    }
  }

  private cast(argument: ValueBound, type: TypeName | undefined, location: number | undefined): ValueBound {
    const names = (type?.names ?? []).map(stringOf);
    const name = names.at(-1) ?? '';
    const modifiers = (type?.typmods ?? []).map((modifier) =>
      'A_Const' in modifier && modifier.A_Const.ival ? (modifier.A_Const.ival.ival ?? 0) : undefined,
    );
    const array = (type?.arrayBounds ?? []).length > 0;
    let element: ValueBound;
    switch (name) {
      case 'numeric': {
        const [precision, scale = 0] = modifiers;
        const bound =
          precision === undefined
            ? { ...argument, float: false }
            : numeric(Math.min(argument.top, precision - scale - 1), Math.max(argument.bottom, -scale));
        const fromText = argument.digits >= ANY_NUMBER.digits;
        element = this.checkNumber(
          numeric(bound.top, bound.bottom, bound.digits),
          location,
          fromText ? 'text cast' : 'cast',
        );
        break;
      }
      case 'int2':
      case 'int4':
      case 'int8':
        element = BIGINT;
        break;
      case 'float4':
      case 'float8':
        element = DOUBLE;
        break;
      case 'bool':
        element = BOOLEAN;
        break;
      case 'varchar': {
        const length = modifiers[0];
        element = {
          ...argument,
          float: false,
          bytes: length === undefined ? argument.bytes : Math.min(argument.bytes, 4 * length),
        };
        break;
      }
      case 'bpchar':
        // char(n) pads to n characters.
        element = { ...argument, float: false, bytes: argument.bytes + (modifiers[0] ?? 1) };
        break;
      case 'text':
        element = { ...argument, float: false };
        break;
      default:
        element = TIME;
    }
    return array ? { ...element, bytes: Math.max(argument.bytes, element.bytes), float: false } : element;
  }

  private call(call: FuncCall, level: Level, scope: WithScope | undefined): { bound: ValueBound; work?: number } {
    const args = this.expressions(call.args, level, scope);
    const order = this.expressions(call.agg_order, level, scope);
    this.expression(call.agg_filter, level, scope);
    if (call.over) {
      this.expressions(call.over.partitionClause, level, scope);
      this.expressions(call.over.orderClause, level, scope);
    }
    const [first = NOTHING, second = NOTHING] = args;
    const location = call.location;
    const name = functionName(call);
    switch (name) {
      case 'concat':
        return { bound: textBound(sum(args)) };
      case 'concat_ws':
        return { bound: textBound(sum(args.slice(1)) + first.bytes * args.length) };
      case 'to_char':
        // A format pattern prints at most 8 bytes per byte of it ('RN' prints up to 15 characters).
        return { bound: textBound(8 * second.bytes + 64) };
      case 'lower':
      case 'upper':
        // Changing case can turn a 2-byte character into a 3-byte one.
        return { bound: textBound(Math.ceil(1.5 * first.bytes)) };
      case 'similar_to_escape':
        return { bound: textBound(4 * first.bytes + 16) };
      case 'substring':
      case 'substr':
      case 'left':
      case 'right':
      case 'btrim':
      case 'ltrim':
      case 'rtrim':
      case 'split_part':
        return { bound: { ...first, float: false } };
      case 'mode':
      case 'percentile_disc':
        return { bound: max(order) };
      case 'lag':
      case 'lead':
        return { bound: max([first, args[2] ?? first]) };
      case 'unnest':
      case 'min':
      case 'max':
      case 'first_value':
      case 'last_value':
        return { bound: first };
      case 'count':
      case 'row_number':
      case 'rank':
      case 'dense_rank':
      case 'ntile':
      case 'length':
      case 'char_length':
      case 'strpos':
      case 'position':
      case 'cardinality':
      case 'array_length':
      case 'array_position':
        return { bound: BIGINT };
      case 'bool_and':
      case 'bool_or':
      case 'every':
      case 'starts_with':
        return { bound: BOOLEAN };
      case 'percent_rank':
      case 'cume_dist':
      case 'percentile_cont':
        return { bound: DOUBLE };
      case 'sum':
        // Of up to 10^19 rows.
        if (first.float) return { bound: DOUBLE };
        return { bound: this.checkNumber(numeric(first.top + 19, first.bottom), location) };
      case 'avg':
        if (first.float) return { bound: DOUBLE };
        return {
          bound: this.checkNumber(
            numeric(first.top + 1, Math.max(Math.min(first.bottom, -20), -DIVISION_SCALE)),
            location,
          ),
        };
      case 'stddev':
      case 'stddev_pop':
      case 'stddev_samp':
      case 'variance':
      case 'var_pop':
      case 'var_samp':
        if (first.float) return { bound: DOUBLE };
        // Sums of squares: each row's value multiplied by itself.
        return {
          bound: this.checkNumber(
            numeric(2 * first.top + 20, Math.max(Math.min(2 * first.bottom, -20), -DIVISION_SCALE)),
            location,
          ),
          work: productWork(first.digits, first.digits),
        };
      case 'round':
      case 'trunc': {
        if (first.float) return { bound: DOUBLE };
        // The scale (second argument, as written) pads the printed number with zeros, 2000 at most.
        const scale =
          args.length > 1 ? Math.min(Math.max(second.top, 0) + 1 > 4 ? 2000 : 10 ** (second.top + 1), 2000) : 0;
        const rounded = numeric(first.top + 1, Math.max(first.bottom, -scale));
        return { bound: { ...rounded, bytes: rounded.bytes + scale } };
      }
      case 'floor':
      case 'ceil':
      case 'ceiling':
        if (first.float) return { bound: DOUBLE };
        return { bound: numeric(first.top + 1, Math.max(first.bottom, 0)) };
      case 'abs':
      case 'sign':
        return { bound: first.float ? DOUBLE : numeric(first.top, first.bottom, first.digits) };
      case 'mod':
        if (first.float || second.float) return { bound: DOUBLE };
        return {
          bound: this.checkNumber(
            numeric(Math.min(first.top, second.top), Math.min(first.bottom, second.bottom)),
            location,
          ),
          work: productWork(first.digits, second.digits),
        };
      case 'extract':
      case 'date_part':
        return { bound: EXTRACTED };
      default:
        // Dates and times: now, date_trunc, date_bin, to_timestamp, timezone, age, make_interval.
        return { bound: TIME };
    }
  }

  private column(fields: Node[], level: Level, scope: WithScope | undefined): ValueBound {
    const names = fields.map(stringOf);
    const columnName = names.at(-1) ?? '';
    const qualifier = names.length > 1 ? names.at(-2) : undefined;
    for (let current: Level | undefined = level; current; current = current.parent) {
      for (const source of current.sources) {
        if (qualifier !== undefined && source.name !== qualifier) continue;
        const found = source.columns.filter((column) => column.name === columnName);
        if (found.length > 0) return max(found.map((column) => column.bound));
        // A FROM item's name alone is its whole row.
        if (qualifier === undefined && source.name === columnName) {
          return composite(source.columns.map((column) => column.bound));
        }
      }
    }
    // Not found (PostgreSQL will say so, or it names something this walk does not follow): the
    // widest value in sight stands for it.
    const visible: ValueBound[] = [];
    for (let current: Level | undefined = level; current; current = current.parent) {
      for (const source of current.sources) {
        visible.push(composite(source.columns.map((column) => column.bound)));
      }
    }
    for (let current = scope; current; current = current.parent) {
      for (const columns of current.queries.values()) visible.push(composite(columns.map((column) => column.bound)));
    }
    return max(visible);
  }
}

function sum(bounds: readonly ValueBound[]): number {
  return bounds.reduce((total, bound) => total + bound.bytes, 0);
}

function constant(value: A_Const): ValueBound {
  if (value.isnull) return NOTHING;
  if (value.sval) {
    const text = value.sval.sval ?? '';
    return { bytes: Buffer.byteLength(text), ...writtenNumbers(text) };
  }
  if (value.fval) {
    const text = value.fval.fval ?? '';
    return { ...writtenNumbers(text), bytes: text.length + 2 + writtenNumbers(text).top };
  }
  if (value.ival) return numeric(String(Math.abs(value.ival.ival ?? 0)).length - 1, 0);
  if (value.boolval) return BOOLEAN;
  if (value.bsval) return textBound((value.bsval.bsval ?? '').length);
  return NOTHING;
}

function withQuery(scope: WithScope | undefined, name: string): Column[] | undefined {
  for (let current = scope; current; current = current.parent) {
    const columns = current.queries.get(name);
    if (columns) return columns;
  }
  return undefined;
}

function renamed(columns: Column[], names: Node[] | undefined): Column[] {
  if (!names || names.length === 0) return columns;
  return columns.map((column, index) => {
    const name = names[index];
    return name ? { ...column, name: stringOf(name) } : column;
  });
}

function stringOf(node: Node | undefined): string {
  return node && 'String' in node ? (node.String.sval ?? '') : '';
}

function functionName(call: FuncCall): string {
  return stringOf(call.funcname?.at(-1));
}

function operatorName(names: Node[] | undefined): string {
  return stringOf(names?.at(-1));
}

/** The name PostgreSQL gives an unnamed output column, where it matters here (references by name). */
function figureName(value: Node | undefined): string {
  if (!value) return '?column?';
  if ('ColumnRef' in value) return stringOf(value.ColumnRef.fields?.at(-1));
  if ('FuncCall' in value) return functionName(value.FuncCall);
  if ('TypeCast' in value) {
    const inner = figureName(value.TypeCast.arg);
    return inner === '?column?' ? stringOf(value.TypeCast.typeName?.names?.at(-1)) : inner;
  }
  if ('A_Indirection' in value) {
    const last = value.A_Indirection.indirection?.at(-1);
    return last && 'String' in last ? stringOf(last) : figureName(value.A_Indirection.arg);
  }
  if ('CaseExpr' in value) return 'case';
  return '?column?';
}

function firstLocationOf(select: SelectStmt): number | undefined {
  const target = select.targetList?.[0];
  return target && 'ResTarget' in target ? target.ResTarget.location : undefined;
}

function describeBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 * 1024) return `${Number((bytes / 1024 / 1024 / 1024).toFixed(1))} GiB`;
  if (bytes >= 1024 * 1024) return `${Number((bytes / 1024 / 1024).toFixed(1))} MiB`;
  if (bytes >= 1024) return `${Number((bytes / 1024).toFixed(1))} KiB`;
  return `${bytes} bytes`;
}
