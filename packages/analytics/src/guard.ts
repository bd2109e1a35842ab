import type {
  A_Const,
  A_Expr,
  Alias,
  FuncCall,
  Node,
  ParseResult,
  RangeVar,
  SelectStmt,
  SortBy,
  TypeName,
  WindowDef,
} from 'libpg-query';
import { loadModule, parseSync } from 'libpg-query';
import { deparseSync } from 'pgsql-deparser';
import { ALLOWED_FUNCTIONS, ALLOWED_OPERATORS, ALLOWED_SQL_VALUE_FUNCTIONS, ALLOWED_TYPES } from './allowlist.ts';
import { type AnalyticsErrorCode, AnalyticsQueryError, positionAt, positionAtByte } from './errors.ts';
import { timeLowerBounds } from './timeBounds.ts';
import { boundValues, type PublicColumn, type ValueLimits } from './valueBounds.ts';

export interface PublicTable {
  /** Its columns, in order, with the largest value each can hold. */
  columns: readonly PublicColumn[];
}

export interface CompileOptions {
  /** The public tables a caller may read, by name. */
  tables: Readonly<Record<string, PublicTable>>;
  /**
   * The schema holding the public tables, as database views that return the caller's rows only
   * (docs/architecture.md, Analytics). Every reference to a public table is qualified with it, so
   * that nothing the caller names (a WITH query, say) can stand in for the table.
   */
  schema: string;
  /** The result's row limit: a missing, `ALL` or larger top-level LIMIT becomes this. */
  maxRows: number;
  /** How large the values a query builds may get (see valueBounds.ts). */
  values: ValueLimits;
}

export interface CompiledQuery {
  /** One SELECT, rebuilt from the validated and rewritten parse tree; never the caller's text. */
  sql: string;
  /** The public tables it reads (distinct, in order of first use); empty when it reads none. */
  tables: string[];
  /** The LIMIT the query now has. */
  limit: number;
  /** The most bytes a row of its result can hold (see valueBounds.ts). */
  maxRowBytes: number;
  /**
   * The lower bounds the query puts on `time` (see timeBounds.ts), each as a SELECT of its value
   * alone, so that the caller can hold them against the retention before running the query.
   */
  timeBounds: { sql: string; location: number | undefined }[];
}

/** Deeper trees than this are refused (two levels per node: about the reference's depth of 100 nodes). */
const MAX_DEPTH = 200;
const MAX_NODES = 5000;

/**
 * Parses the caller's query with PostgreSQL's own parser (libpg_query), accepts only a single
 * read-only SELECT over the public tables using allowed functions, replaces every public table
 * reference with its filtered derived table, clamps the LIMIT and prints the tree back to SQL.
 * The printed SQL is parsed again and must give the same tree: what PostgreSQL runs is exactly
 * what was checked, whatever comments, quoting or escapes the caller used.
 */
export async function compileAnalyticsQuery(query: string, options: CompileOptions): Promise<CompiledQuery> {
  await loadModule();
  const guard = new Guard(query, options);
  return guard.compile();
}

interface Scope {
  /** WITH names visible at this query level; PostgreSQL resolves them before any table. */
  ctes: Set<string>;
  parent: Scope | undefined;
}

/** Node kinds that hold no other node and mean nothing by themselves. */
const INERT_KINDS: ReadonlySet<string> = new Set(['String', 'Integer', 'Float', 'Boolean', 'BitString', 'A_Star']);

/** Tree fields that record where in the text a node was: they differ between the caller's text and the printed SQL. */
const LOCATION_FIELDS: ReadonlySet<string> = new Set([
  'location',
  'stmt_location',
  'stmt_len',
  'name_location',
  'list_start',
  'list_end',
  'rexpr_list_start',
  'rexpr_list_end',
]);

/**
 * A caller's condition wrapped so that PostgreSQL never evaluates it below a view's security
 * barrier: booland_statefunc(x, true) is x, but not leakproof. PostgreSQL moves a condition it
 * deems leakproof into the view, before the view's own filter; and it deems leakproof some
 * expressions that raise errors on the values they read (an ARRAY[…] of arrays of different
 * lengths), which would let a caller learn about rows of another workspace from whether the query
 * fails. Conditions that cannot fail (a public column compared with a constant) stay as written,
 * so that PostgreSQL can use an index for them.
 */
const FENCE_TEMPLATE = 'select pg_catalog.booland_statefunc(null, true)';
let fenceTree: FuncCall | undefined;

/** The public tables a query level reads in its FROM clause, by the name its conditions use. */
interface ConditionScope {
  tables: Map<string, string>;
  /** True when every FROM item of the level is a public table (an unqualified column is one of theirs). */
  onlyTables: boolean;
}

const SAFE_COMPARISONS: ReadonlySet<string> = new Set(['=', '<>', '<', '>', '<=', '>=']);

class Guard {
  private readonly query: string;
  private readonly options: CompileOptions;
  /** Every node body the checks below accepted; anything else in the tree is refused (see assertAllChecked). */
  private readonly checked = new WeakSet<object>();
  private readonly tablesUsed: string[] = [];
  /** Table replacements, applied once the whole tree has passed the checks (the backstop must not see them). */
  private readonly rewrites: Array<() => void> = [];

  constructor(query: string, options: CompileOptions) {
    this.query = query;
    this.options = options;
  }

  compile(): CompiledQuery {
    const parsed = this.parse();
    const statements = parsed.stmts ?? [];
    if (statements.length === 0) this.fail('invalid_analytics_query', 'The query is empty.');
    if (statements.length > 1) {
      this.fail(
        'invalid_analytics_query_type',
        'Send exactly one SELECT statement; several statements separated by ";" are not allowed.',
        statements[1]?.stmt_location,
      );
    }
    const stmt = statements[0]?.stmt;
    if (!stmt || !('SelectStmt' in stmt)) {
      const kind = stmt ? statementKind(stmt) : 'unknown';
      this.fail('invalid_analytics_query_type', `Only SELECT queries are allowed; this is a ${kind} statement.`, 0);
    }
    assertShape(this, stmt);
    this.checkSelect(stmt.SelectStmt, undefined);
    this.assertAllChecked(stmt);
    const maxRowBytes = boundValues(stmt.SelectStmt, {
      tables: this.options.tables,
      limits: this.options.values,
      refuse: (reason, location) => this.fail('invalid_analytics_query', reason, location),
    });
    // Before the rewrites, which wrap the conditions the time bounds are read from.
    const timeBounds = timeLowerBounds(stmt.SelectStmt).map(({ expression, location }) => ({
      sql: this.printExpression(parsed.version, expression),
      location,
    }));
    for (const rewrite of this.rewrites) rewrite();
    const limit = this.clampLimit(stmt.SelectStmt);

    const sql = this.print({ version: parsed.version, stmts: [{ stmt }] });
    return { sql, tables: [...new Set(this.tablesUsed)], limit, timeBounds, maxRowBytes };
  }

  /** The tree as SQL, which must parse back to exactly the tree that was checked. */
  private print(tree: ParseResult): string {
    const refuse = (): never =>
      this.fail('invalid_analytics_query', 'This query uses syntax the analytics service cannot run; simplify it.');
    let sql: string;
    let reparsed: ParseResult;
    try {
      sql = deparseSync(tree);
      reparsed = parseSync(sql);
    } catch {
      return refuse();
    }
    const statements = reparsed.stmts ?? [];
    if (statements.length !== 1 || !sameTree(statements[0]?.stmt, tree.stmts?.[0]?.stmt)) refuse();
    return sql;
  }

  /** `SELECT <expression>` for an expression of the checked tree (which the whole query's print verifies). */
  private printExpression(version: number | undefined, expression: Node): string {
    const select: SelectStmt = {
      targetList: [{ ResTarget: { val: expression } }],
      limitOption: 'LIMIT_OPTION_DEFAULT',
      op: 'SETOP_NONE',
    };
    return this.print({ version, stmts: [{ stmt: { SelectStmt: select } }] });
  }

  private parse(): ParseResult {
    try {
      return parseSync(this.query);
    } catch (error) {
      const details = sqlErrorDetails(error);
      if (!details) {
        this.fail(
          'invalid_analytics_query',
          this.query.trim() === '' ? 'The query is empty.' : 'The query could not be parsed.',
        );
      }
      throw new AnalyticsQueryError(
        'invalid_analytics_query',
        `Syntax error: ${details.message}.`,
        positionAt(this.query, details.cursorPosition),
      );
    }
  }

  fail(code: AnalyticsErrorCode, reason: string, byteLocation?: number): never {
    throw new AnalyticsQueryError(
      code,
      reason,
      byteLocation === undefined ? undefined : positionAtByte(this.query, byteLocation),
    );
  }

  private accept(body: object): void {
    this.checked.add(body);
  }

  // ---- statements ----------------------------------------------------------------------------

  private checkSelect(select: SelectStmt, outer: Scope | undefined): void {
    this.accept(select);
    if (select.intoClause) {
      this.fail('invalid_analytics_query_type', 'SELECT … INTO creates a table; only plain SELECT is allowed.');
    }
    if (select.lockingClause && select.lockingClause.length > 0) {
      const location = firstLocation(select.lockingClause);
      this.fail(
        'invalid_analytics_query_type',
        'FOR UPDATE / FOR SHARE lock rows; only plain SELECT is allowed.',
        location,
      );
    }
    const scope = select.withClause ? this.checkWith(select.withClause, outer) : outer;

    if (select.op && select.op !== 'SETOP_NONE') {
      // UNION / INTERSECT / EXCEPT: each side is its own query level below this one.
      if (!select.larg || !select.rarg) this.fail('invalid_analytics_query', 'Incomplete set operation.');
      this.checkSelect(select.larg, scope);
      this.checkSelect(select.rarg, scope);
    } else {
      for (const item of select.fromClause ?? []) this.checkFromItem(item, scope);
      const from = select.fromClause;
      if (from)
        this.rewrites.push(() => from.splice(0, from.length, ...from.map((item) => this.rewriteFromItem(item))));
      const conditions = this.conditionScope(from ?? [], scope);
      this.rewrites.push(() => {
        select.whereClause = fenced(select.whereClause, conditions, this.options.tables);
        select.havingClause = fenced(select.havingClause, conditions, this.options.tables);
        for (const item of from ?? []) fenceJoins(item, conditions, this.options.tables);
      });
      this.checkExprs(select.targetList, scope);
      this.checkExprs(select.distinctClause, scope);
      this.checkExpr(select.whereClause, scope);
      this.checkExprs(select.groupClause, scope);
      this.checkExpr(select.havingClause, scope);
      for (const window of select.windowClause ?? []) {
        if (!('WindowDef' in window)) this.unsupported(window);
        this.accept(window.WindowDef);
        this.checkWindow(window.WindowDef, scope);
      }
      for (const row of select.valuesLists ?? []) this.checkExpr(row, scope);
    }
    this.checkExprs(select.sortClause, scope);
    this.checkExpr(select.limitOffset, scope);
    this.checkExpr(select.limitCount, scope);
  }

  private checkWith(withClause: NonNullable<SelectStmt['withClause']>, outer: Scope | undefined): Scope {
    this.accept(withClause);
    if (withClause.recursive) {
      this.fail('invalid_analytics_query', 'WITH RECURSIVE is not allowed.', withClause.location);
    }
    // Non-recursive WITH: each query sees the ones before it, as in PostgreSQL.
    const scope: Scope = { ctes: new Set(), parent: outer };
    for (const node of withClause.ctes ?? []) {
      if (!('CommonTableExpr' in node)) this.unsupported(node);
      const cte = node.CommonTableExpr;
      this.accept(cte);
      const name = cte.ctename ?? '';
      if (cte.search_clause || cte.cycle_clause) {
        this.fail('invalid_analytics_query', 'SEARCH and CYCLE clauses are not allowed.', cte.location);
      }
      if (Object.hasOwn(this.options.tables, name)) {
        this.fail(
          'invalid_analytics_query',
          `The WITH query "${name}" would hide the table of that name.`,
          cte.location,
        );
      }
      const body = cte.ctequery;
      if (!body || !('SelectStmt' in body)) {
        const kind = body ? statementKind(body) : 'empty';
        this.fail(
          'invalid_analytics_query_type',
          `WITH queries must be SELECTs; "${name}" is a ${kind} statement.`,
          cte.location,
        );
      }
      this.checkNames(cte.aliascolnames);
      this.checkSelect(body.SelectStmt, scope);
      scope.ctes.add(name);
    }
    return scope;
  }

  // ---- FROM ----------------------------------------------------------------------------------

  private checkFromItem(item: Node, scope: Scope | undefined): void {
    if ('RangeVar' in item) {
      this.checkTableReference(item.RangeVar, scope);
    } else if ('RangeSubselect' in item) {
      const { subquery, alias } = item.RangeSubselect;
      this.accept(item.RangeSubselect);
      if (!subquery || !('SelectStmt' in subquery))
        this.fail('invalid_analytics_query', 'Unsupported subquery in FROM.');
      this.checkAlias(alias);
      this.checkSelect(subquery.SelectStmt, scope);
    } else if ('JoinExpr' in item) {
      const join = item.JoinExpr;
      this.accept(join);
      if (join.larg) this.checkFromItem(join.larg, scope);
      if (join.rarg) this.checkFromItem(join.rarg, scope);
      this.checkNames(join.usingClause);
      this.checkAlias(join.alias);
      this.checkAlias(join.join_using_alias);
      this.checkExpr(join.quals, scope);
    } else if ('RangeFunction' in item) {
      // unnest(tags) and the like: the functions inside are checked like any other call.
      const range = item.RangeFunction;
      this.accept(range);
      if (range.coldeflist && range.coldeflist.length > 0) {
        this.fail('invalid_analytics_query', 'Column definition lists are not allowed.');
      }
      this.checkAlias(range.alias);
      for (const entry of range.functions ?? []) {
        if (!('List' in entry)) this.unsupported(entry);
        this.accept(entry.List);
        for (const part of entry.List.items ?? []) this.checkExpr(part, scope);
      }
    } else {
      this.unsupported(item);
    }
  }

  private checkTableReference(table: RangeVar, scope: Scope | undefined): void {
    const name = table.relname ?? '';
    const printed = [table.catalogname, table.schemaname, name].filter(Boolean).join('.');
    if (table.catalogname || table.schemaname) {
      this.fail(
        'invalid_analytics_table',
        `The table "${printed}" is not available: name a public table without a schema (${this.tableList()}).`,
        table.location,
      );
    }
    if (resolvesToCte(scope, name)) {
      this.accept(table);
      this.checkAlias(table.alias);
      return;
    }
    if (!Object.hasOwn(this.options.tables, name)) {
      this.fail(
        'invalid_analytics_table',
        `The table "${printed}" is not available; query one of ${this.tableList()}.`,
        table.location,
      );
    }
    this.accept(table);
    this.checkAlias(table.alias);
  }

  /** Qualifies public table references (already checked) with the views' schema, recursing into joins. */
  private rewriteFromItem(item: Node): Node {
    if ('RangeVar' in item) {
      const name = item.RangeVar.relname ?? '';
      // A WITH reference of the same name cannot exist (checkWith refuses such names), so only CTEs stay.
      if (!Object.hasOwn(this.options.tables, name) || item.RangeVar.schemaname) return item;
      this.tablesUsed.push(name);
      item.RangeVar.schemaname = this.options.schema;
      return item;
    }
    if ('JoinExpr' in item) {
      const join = item.JoinExpr;
      if (join.larg) join.larg = this.rewriteFromItem(join.larg);
      if (join.rarg) join.rarg = this.rewriteFromItem(join.rarg);
    }
    return item;
  }

  /** The public tables of a level's FROM clause, as its conditions name them (see ConditionScope). */
  private conditionScope(from: Node[], scope: Scope | undefined): ConditionScope {
    const conditions: ConditionScope = { tables: new Map(), onlyTables: true };
    const visit = (item: Node): void => {
      if ('RangeVar' in item) {
        const { relname = '', alias } = item.RangeVar;
        // A WITH query, or a table whose columns the alias renames, is not read as the public table.
        if (resolvesToCte(scope, relname) || (alias?.colnames?.length ?? 0) > 0) {
          conditions.onlyTables = false;
          return;
        }
        conditions.tables.set(alias?.aliasname ?? relname, relname);
      } else if ('JoinExpr' in item && !item.JoinExpr.alias && !item.JoinExpr.join_using_alias) {
        if (item.JoinExpr.larg) visit(item.JoinExpr.larg);
        if (item.JoinExpr.rarg) visit(item.JoinExpr.rarg);
      } else {
        conditions.onlyTables = false;
      }
    };
    for (const item of from) visit(item);
    return conditions;
  }

  private checkAlias(alias: Alias | undefined): void {
    if (!alias) return;
    this.accept(alias);
    this.checkNames(alias.colnames);
  }

  private checkNames(names: Node[] | undefined): void {
    for (const name of names ?? []) {
      if (!('String' in name)) this.unsupported(name);
    }
  }

  // ---- expressions ---------------------------------------------------------------------------

  private checkExprs(nodes: Node[] | undefined, scope: Scope | undefined): void {
    for (const node of nodes ?? []) this.checkExpr(node, scope);
  }

  private checkExpr(node: Node | undefined, scope: Scope | undefined): void {
    // An empty node stands for an absent one (plain DISTINCT is a list holding one).
    if (!node || Object.keys(node).length === 0) return;
    if ('ColumnRef' in node) {
      this.accept(node.ColumnRef);
      this.checkNames(node.ColumnRef.fields?.filter((field) => !('A_Star' in field)));
    } else if ('A_Const' in node) {
      this.accept(node.A_Const);
    } else if ('ResTarget' in node) {
      this.accept(node.ResTarget);
      if (node.ResTarget.indirection && node.ResTarget.indirection.length > 0) this.unsupported(node);
      this.checkExpr(node.ResTarget.val, scope);
    } else if ('TypeCast' in node) {
      this.accept(node.TypeCast);
      this.checkType(node.TypeCast.typeName, node.TypeCast.location);
      this.checkExpr(node.TypeCast.arg, scope);
    } else if ('A_Expr' in node) {
      this.checkOperator(node.A_Expr);
      this.checkExpr(node.A_Expr.lexpr, scope);
      this.checkExpr(node.A_Expr.rexpr, scope);
    } else if ('List' in node) {
      this.accept(node.List);
      this.checkExprs(node.List.items, scope);
    } else if ('BoolExpr' in node) {
      this.accept(node.BoolExpr);
      this.checkExprs(node.BoolExpr.args, scope);
    } else if ('NullTest' in node) {
      this.accept(node.NullTest);
      this.checkExpr(node.NullTest.arg, scope);
    } else if ('BooleanTest' in node) {
      this.accept(node.BooleanTest);
      this.checkExpr(node.BooleanTest.arg, scope);
    } else if ('FuncCall' in node) {
      this.checkFunction(node.FuncCall, scope);
    } else if ('CaseExpr' in node) {
      const caseExpr = node.CaseExpr;
      this.accept(caseExpr);
      this.checkExpr(caseExpr.arg, scope);
      for (const when of caseExpr.args ?? []) {
        if (!('CaseWhen' in when)) this.unsupported(when);
        this.accept(when.CaseWhen);
        this.checkExpr(when.CaseWhen.expr, scope);
        this.checkExpr(when.CaseWhen.result, scope);
      }
      this.checkExpr(caseExpr.defresult, scope);
    } else if ('CoalesceExpr' in node) {
      this.accept(node.CoalesceExpr);
      this.checkExprs(node.CoalesceExpr.args, scope);
    } else if ('MinMaxExpr' in node) {
      this.accept(node.MinMaxExpr);
      this.checkExprs(node.MinMaxExpr.args, scope);
    } else if ('SubLink' in node) {
      const link = node.SubLink;
      if (link.subLinkType === 'ARRAY_SUBLINK') {
        this.fail(
          'invalid_analytics_query',
          'ARRAY(SELECT …) is not allowed: it gathers every row of the subquery into one value. Aggregate instead (count, min, max, …), or select the rows.',
          link.location,
        );
      }
      this.accept(link);
      this.checkOperatorNames(link.operName, link.location);
      this.checkExpr(link.testexpr, scope);
      const subselect = link.subselect;
      if (!subselect || !('SelectStmt' in subselect)) this.unsupported(node);
      this.checkSelect(subselect.SelectStmt, scope);
    } else if ('A_ArrayExpr' in node) {
      this.accept(node.A_ArrayExpr);
      this.checkExprs(node.A_ArrayExpr.elements, scope);
    } else if ('A_Indirection' in node) {
      this.accept(node.A_Indirection);
      this.checkExpr(node.A_Indirection.arg, scope);
      for (const step of node.A_Indirection.indirection ?? []) {
        if ('A_Indices' in step) {
          this.accept(step.A_Indices);
          this.checkExpr(step.A_Indices.lidx, scope);
          this.checkExpr(step.A_Indices.uidx, scope);
        } else if (!('String' in step) && !('A_Star' in step)) {
          this.unsupported(step);
        }
      }
    } else if ('RowExpr' in node) {
      this.accept(node.RowExpr);
      this.checkExprs(node.RowExpr.args, scope);
      this.checkNames(node.RowExpr.colnames);
    } else if ('CollateClause' in node) {
      this.accept(node.CollateClause);
      this.checkNames(node.CollateClause.collname);
      this.checkExpr(node.CollateClause.arg, scope);
    } else if ('SQLValueFunction' in node) {
      const op = node.SQLValueFunction.op ?? '';
      if (!ALLOWED_SQL_VALUE_FUNCTIONS.has(op)) {
        const name = op.replace(/^SVFOP_/, '');
        this.fail('invalid_analytics_function', `The function ${name} is not allowed.`, node.SQLValueFunction.location);
      }
      this.accept(node.SQLValueFunction);
    } else if ('SortBy' in node) {
      this.checkSortBy(node.SortBy, scope);
    } else if ('GroupingSet' in node) {
      this.accept(node.GroupingSet);
      this.checkExprs(node.GroupingSet.content, scope);
    } else if ('GroupingFunc' in node) {
      this.accept(node.GroupingFunc);
      this.checkExprs(node.GroupingFunc.args, scope);
    } else if ('ParamRef' in node) {
      this.fail(
        'invalid_analytics_query',
        'Parameters ($1, …) are not supported; write values inline.',
        node.ParamRef.location,
      );
    } else {
      this.unsupported(node);
    }
  }

  private checkSortBy(sort: SortBy, scope: Scope | undefined): void {
    this.accept(sort);
    this.checkOperatorNames(sort.useOp, sort.location);
    this.checkExpr(sort.node, scope);
  }

  private checkWindow(window: WindowDef, scope: Scope | undefined): void {
    this.checkExprs(window.partitionClause, scope);
    this.checkExprs(window.orderClause, scope);
    this.checkExpr(window.startOffset, scope);
    this.checkExpr(window.endOffset, scope);
  }

  private checkFunction(call: FuncCall, scope: Scope | undefined): void {
    const names = (call.funcname ?? []).map((part) => ('String' in part ? (part.String.sval ?? '') : ''));
    const name = names.at(-1) ?? '';
    const schema = names.length === 2 ? names[0] : undefined;
    const printed = names.join('.');
    if (names.length > 2 || (schema !== undefined && schema !== 'pg_catalog') || !ALLOWED_FUNCTIONS.has(name)) {
      this.fail('invalid_analytics_function', `The function ${printed}() is not allowed.`, call.location);
    }
    this.accept(call);
    // Always the built-in, whatever a search_path might put in front of pg_catalog.
    call.funcname = [{ String: { sval: 'pg_catalog' } }, { String: { sval: name } }];
    this.checkExprs(call.args, scope);
    this.checkExprs(call.agg_order, scope);
    this.checkExpr(call.agg_filter, scope);
    if (call.over) {
      this.accept(call.over);
      this.checkWindow(call.over, scope);
    }
  }

  private checkOperator(expr: A_Expr): void {
    this.accept(expr);
    switch (expr.kind) {
      case 'AEXPR_OP':
      case 'AEXPR_OP_ANY':
      case 'AEXPR_OP_ALL':
      case 'AEXPR_DISTINCT':
      case 'AEXPR_NOT_DISTINCT':
      case 'AEXPR_NULLIF':
      case 'AEXPR_IN':
      case 'AEXPR_LIKE':
      case 'AEXPR_ILIKE':
      case 'AEXPR_SIMILAR':
        this.checkOperatorNames(expr.name, expr.location);
        return;
      case 'AEXPR_BETWEEN':
      case 'AEXPR_NOT_BETWEEN':
      case 'AEXPR_BETWEEN_SYM':
      case 'AEXPR_NOT_BETWEEN_SYM':
        // Named by the keyword (BETWEEN …), which stands for the ordinary comparisons.
        this.checkNames(expr.name);
        return;
      default:
        this.fail('invalid_analytics_query', 'This kind of expression is not supported.', expr.location);
    }
  }

  private checkOperatorNames(names: Node[] | undefined, location: number | undefined): void {
    if (!names || names.length === 0) return;
    const parts = names.map((part) => ('String' in part ? (part.String.sval ?? '') : ''));
    const operator = parts.at(-1) ?? '';
    const schema = parts.length === 2 ? parts[0] : undefined;
    if (parts.length > 2 || (schema !== undefined && schema !== 'pg_catalog') || !ALLOWED_OPERATORS.has(operator)) {
      this.fail('invalid_analytics_function', `The operator ${parts.join('.')} is not allowed.`, location);
    }
    this.checkNames(names);
  }

  private checkType(type: TypeName | undefined, location: number | undefined): void {
    if (!type) return;
    const names = (type.names ?? []).map((part) => ('String' in part ? (part.String.sval ?? '') : ''));
    const name = names.at(-1) ?? '';
    const schema = names.length === 2 ? names[0] : undefined;
    if (
      names.length > 2 ||
      (schema !== undefined && schema !== 'pg_catalog') ||
      !ALLOWED_TYPES.has(name) ||
      type.setof ||
      type.pct_type
    ) {
      this.fail('invalid_analytics_function', `Casting to the type ${names.join('.')} is not allowed.`, location);
    }
    this.accept(type);
    this.checkNames(type.names);
    for (const modifier of type.typmods ?? []) {
      if (!('A_Const' in modifier)) this.unsupported(modifier);
      this.accept(modifier.A_Const);
    }
    for (const bound of type.arrayBounds ?? []) {
      if (!('Integer' in bound)) this.unsupported(bound);
    }
  }

  // ---- LIMIT ---------------------------------------------------------------------------------

  private clampLimit(select: SelectStmt): number {
    const { maxRows } = this.options;
    if (select.limitOption === 'LIMIT_OPTION_WITH_TIES') {
      this.fail('invalid_analytics_query', 'FETCH … WITH TIES is not allowed at the top level; use LIMIT.');
    }
    const count = select.limitCount;
    let limit = maxRows;
    if (count && 'A_Const' in count && !count.A_Const.isnull) {
      const requested = integerOf(count.A_Const);
      if (requested === undefined || requested < 0) {
        this.fail('invalid_analytics_query', 'LIMIT must be a whole number of rows.', count.A_Const.location);
      }
      limit = Math.min(requested, maxRows);
    } else if (count && !('A_Const' in count)) {
      this.fail('invalid_analytics_query', 'LIMIT must be a whole number of rows.', firstLocation([count]));
    }
    select.limitCount = { A_Const: { ival: limit === 0 ? {} : { ival: limit } } };
    select.limitOption = 'LIMIT_OPTION_COUNT';
    return limit;
  }

  // ---- refusing the rest ---------------------------------------------------------------------

  unsupported(node: Node): never {
    const kind = Object.keys(node)[0] ?? 'unknown';
    this.fail(
      'invalid_analytics_query',
      `This syntax is not supported in analytics queries (${kind}).`,
      firstLocation([node]),
    );
  }

  private tableList(): string {
    return Object.keys(this.options.tables).join(', ');
  }

  /**
   * The backstop: every node in the caller's tree must have been accepted by a check above. A
   * field the checks do not know (a new clause, a node kind in an unexpected place) is refused
   * instead of passing through unchecked.
   */
  private assertAllChecked(root: Node): void {
    const visit = (value: unknown): void => {
      if (Array.isArray(value)) {
        for (const item of value) visit(item);
        return;
      }
      if (typeof value !== 'object' || value === null) return;
      const kind = nodeKind(value);
      if (kind !== undefined) {
        const body = (value as Record<string, unknown>)[kind];
        if (!INERT_KINDS.has(kind) && (typeof body !== 'object' || body === null || !this.checked.has(body))) {
          this.unsupported(value as Node);
        }
        visit(body);
        return;
      }
      for (const child of Object.values(value)) visit(child);
    };
    visit(root);
  }
}

/** Depth and size limits, checked before anything recursive runs over the tree. */
function assertShape(guard: Guard, root: unknown): void {
  let nodes = 0;
  const visit = (value: unknown, depth: number): void => {
    if (typeof value !== 'object' || value === null) return;
    if (depth > MAX_DEPTH) guard.fail('invalid_analytics_query', 'The query is nested too deeply.');
    nodes += 1;
    if (nodes > MAX_NODES) guard.fail('invalid_analytics_query', 'The query is too large.');
    for (const child of Array.isArray(value) ? value : Object.values(value)) visit(child, depth + 1);
  };
  visit(root, 0);
}

/** A wrapped parse-tree node is an object with one key, its kind, which starts with a capital letter. */
function nodeKind(value: object): string | undefined {
  const keys = Object.keys(value);
  const key = keys[0];
  if (keys.length !== 1 || key === undefined || !/^[A-Z]/.test(key)) return undefined;
  return key;
}

function statementKind(node: Node): string {
  const kind = Object.keys(node)[0] ?? 'unknown';
  return kind.replace(/Stmt$/, '').toUpperCase();
}

function resolvesToCte(scope: Scope | undefined, name: string): boolean {
  for (let level = scope; level; level = level.parent) {
    if (level.ctes.has(name)) return true;
  }
  return false;
}

function integerOf(constant: A_Const): number | undefined {
  if (constant.ival) return constant.ival.ival ?? 0;
  return undefined;
}

/** The first `location` found in these nodes, for pointing at them. */
function firstLocation(nodes: readonly unknown[]): number | undefined {
  const stack: unknown[] = [...nodes];
  while (stack.length > 0) {
    const value = stack.shift();
    if (typeof value !== 'object' || value === null) continue;
    if (!Array.isArray(value) && 'location' in value && typeof value.location === 'number') return value.location;
    stack.push(...(Array.isArray(value) ? value : Object.values(value)));
  }
  return undefined;
}

/** The conjuncts of an AND (nested ones too), or the condition alone. */
function conjuncts(condition: Node): Node[] {
  if ('BoolExpr' in condition && condition.BoolExpr.boolop === 'AND_EXPR') {
    return (condition.BoolExpr.args ?? []).flatMap(conjuncts);
  }
  return [condition];
}

/** A condition with every conjunct that could fail on a row wrapped in the fence (see FENCE_TEMPLATE). */
function fenced(
  condition: Node | undefined,
  scope: ConditionScope,
  tables: Readonly<Record<string, PublicTable>>,
): Node | undefined {
  if (!condition || Object.keys(condition).length === 0) return condition;
  const parts = conjuncts(condition).map((part) => (cannotFail(part, scope, tables) ? part : fence(part)));
  if (parts.length === 1) return parts[0];
  return { BoolExpr: { boolop: 'AND_EXPR', args: parts } };
}

function fenceJoins(item: Node, scope: ConditionScope, tables: Readonly<Record<string, PublicTable>>): void {
  if (!('JoinExpr' in item)) return;
  const join = item.JoinExpr;
  if (join.larg) fenceJoins(join.larg, scope, tables);
  if (join.rarg) fenceJoins(join.rarg, scope, tables);
  join.quals = fenced(join.quals, scope, tables);
}

function fence(condition: Node): Node {
  if (!fenceTree) {
    const stmt = parseSync(FENCE_TEMPLATE).stmts?.[0]?.stmt;
    const target = stmt && 'SelectStmt' in stmt ? stmt.SelectStmt.targetList?.[0] : undefined;
    const value = target && 'ResTarget' in target ? target.ResTarget.val : undefined;
    if (!value || !('FuncCall' in value)) throw new Error('the fence template is not a function call');
    fenceTree = value.FuncCall;
  }
  const call = structuredClone(fenceTree);
  call.args = [condition, ...(call.args ?? []).slice(1)];
  return { FuncCall: call };
}

/**
 * Conditions PostgreSQL may evaluate before the views' filter without any risk: a public table's
 * column as it is, alone or compared with a constant or another such column. Their operators are
 * the built-in comparisons, which PostgreSQL marks leakproof (they never fail) where it lets them
 * through; constants are converted when the query is planned, whatever the rows.
 */
function cannotFail(node: Node, scope: ConditionScope, tables: Readonly<Record<string, PublicTable>>): boolean {
  const column = (value: Node | undefined): boolean =>
    value !== undefined && 'ColumnRef' in value && isPublicColumn(value.ColumnRef.fields ?? [], scope, tables);
  const constant = (value: Node | undefined): boolean =>
    value !== undefined &&
    ('A_Const' in value ||
      ('TypeCast' in value && value.TypeCast.arg !== undefined && 'A_Const' in value.TypeCast.arg));
  const constants = (value: Node | undefined): boolean =>
    value !== undefined && 'List' in value && (value.List.items ?? []).every(constant);
  if (column(node)) return true;
  if ('NullTest' in node) return column(node.NullTest.arg);
  if (!('A_Expr' in node)) return false;
  const { kind, lexpr, rexpr, name } = node.A_Expr;
  const operator = (name ?? []).map((part) => ('String' in part ? part.String.sval : '')).join('.');
  switch (kind) {
    case 'AEXPR_OP':
      return (
        SAFE_COMPARISONS.has(operator) &&
        ((column(lexpr) && (constant(rexpr) || column(rexpr))) || (constant(lexpr) && column(rexpr)))
      );
    case 'AEXPR_IN':
      return column(lexpr) && constants(rexpr);
    case 'AEXPR_BETWEEN':
    case 'AEXPR_NOT_BETWEEN':
      return column(lexpr) && constants(rexpr);
    default:
      return false;
  }
}

function isPublicColumn(fields: Node[], scope: ConditionScope, tables: Readonly<Record<string, PublicTable>>): boolean {
  const names = fields.map((field) => ('String' in field ? field.String.sval : undefined));
  if (names.some((name) => name === undefined)) return false;
  const hasColumn = (table: string | undefined, column: string) =>
    table !== undefined && (tables[table]?.columns ?? []).some((candidate) => candidate.name === column);
  if (names.length === 1) {
    const [column = ''] = names as string[];
    return scope.onlyTables && [...scope.tables.values()].some((table) => hasColumn(table, column));
  }
  if (names.length === 2) {
    const [reference = '', column = ''] = names as string[];
    return hasColumn(scope.tables.get(reference), column);
  }
  return false;
}

/** Structural equality of two parse trees, ignoring where in the text each node was. */
function sameTree(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const aRecord = a as Record<string, unknown>;
  const bRecord = b as Record<string, unknown>;
  // A key holding undefined is an absent field, as in the parser's own output.
  const keysOf = (record: Record<string, unknown>) =>
    Object.keys(record).filter((key) => !LOCATION_FIELDS.has(key) && record[key] !== undefined);
  const aKeys = keysOf(aRecord);
  const bKeys = keysOf(bRecord);
  if (aKeys.length !== bKeys.length) return false;
  return aKeys.every((key) => Object.hasOwn(bRecord, key) && sameTree(aRecord[key], bRecord[key]));
}

interface SqlErrorDetails {
  message: string;
  cursorPosition: number;
}

function sqlErrorDetails(error: unknown): SqlErrorDetails | undefined {
  if (typeof error !== 'object' || error === null || !('sqlDetails' in error)) return undefined;
  const details = error.sqlDetails;
  if (typeof details !== 'object' || details === null) return undefined;
  const message = 'message' in details && typeof details.message === 'string' ? details.message : 'invalid SQL';
  const cursorPosition =
    'cursorPosition' in details && typeof details.cursorPosition === 'number' ? details.cursorPosition : 0;
  return { message, cursorPosition };
}
