import type { A_Expr, Node, SelectStmt } from 'libpg-query';

/** A lower bound a query puts on `time`: the expression, and where the condition is in the query. */
export interface TimeBound {
  expression: Node;
  /** Byte offset of the condition in the caller's text. */
  location: number | undefined;
}

const LOWER_BOUND_OPERATORS = new Set(['>', '>=', '=']);
/** The same comparisons written the other way round (`X < time`). */
const MIRRORED_OPERATORS = new Set(['<', '<=', '=']);

/**
 * The lower bounds on a `time` column that a query's rows must meet: each `time >= X` (`>`, `=`,
 * `X <= time`, `time BETWEEN X AND …`) that is one of the AND-ed conditions of a WHERE, at any
 * level of the query, where X refers to no column and holds no subquery. A condition under OR or
 * NOT bounds nothing for sure, so it is not one.
 */
export function timeLowerBounds(statement: SelectStmt): TimeBound[] {
  const bounds: TimeBound[] = [];
  visit({ SelectStmt: statement }, (select) => {
    if (select.whereClause) collectConjuncts(select.whereClause, bounds);
  });
  return bounds;
}

/** Calls `onSelect` for every SELECT in the tree, this one included (subqueries, CTEs, set operations). */
function visit(value: unknown, onSelect: (select: SelectStmt) => void): void {
  if (Array.isArray(value)) {
    for (const item of value) visit(item, onSelect);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  for (const [kind, child] of Object.entries(value)) {
    if (kind === 'SelectStmt') onSelect(child as SelectStmt);
    visit(child, onSelect);
  }
}

function collectConjuncts(condition: Node, bounds: TimeBound[]): void {
  if ('BoolExpr' in condition) {
    if (condition.BoolExpr.boolop === 'AND_EXPR') {
      for (const argument of condition.BoolExpr.args ?? []) collectConjuncts(argument, bounds);
    }
    return;
  }
  if (!('A_Expr' in condition)) return;
  const bound = lowerBoundOf(condition.A_Expr);
  if (bound && isConstant(bound)) bounds.push({ expression: bound, location: condition.A_Expr.location });
}

function lowerBoundOf(expr: A_Expr): Node | undefined {
  const { lexpr, rexpr } = expr;
  if (!lexpr || !rexpr) return undefined;
  if (expr.kind === 'AEXPR_BETWEEN' && isTimeColumn(lexpr) && 'List' in rexpr) return rexpr.List.items?.[0];
  if (expr.kind !== 'AEXPR_OP' || expr.name?.length !== 1) return undefined;
  const operator = expr.name[0] && 'String' in expr.name[0] ? expr.name[0].String.sval : undefined;
  if (operator === undefined) return undefined;
  if (LOWER_BOUND_OPERATORS.has(operator) && isTimeColumn(lexpr)) return rexpr;
  if (MIRRORED_OPERATORS.has(operator) && isTimeColumn(rexpr)) return lexpr;
  return undefined;
}

/** `time` or `<qualifier>.time`. */
function isTimeColumn(node: Node): boolean {
  if (!('ColumnRef' in node)) return false;
  const last = node.ColumnRef.fields?.at(-1);
  return last !== undefined && 'String' in last && last.String.sval === 'time';
}

/** Refers to no column and holds no subquery: the same value for every row. */
function isConstant(node: unknown): boolean {
  if (Array.isArray(node)) return node.every(isConstant);
  if (typeof node !== 'object' || node === null) return true;
  return Object.entries(node).every(([kind, child]) => kind !== 'ColumnRef' && kind !== 'SubLink' && isConstant(child));
}
