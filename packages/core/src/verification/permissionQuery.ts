import { DomainError } from '../errors.ts';

/**
 * A parsed permissions query. `and` and `or` nodes always hold at least two operands; a query of a
 * single permission (even in parentheses) is a `permission` node.
 */
export type PermissionQuery =
  | { readonly kind: 'permission'; readonly name: string }
  | { readonly kind: 'and'; readonly operands: readonly PermissionQuery[] }
  | { readonly kind: 'or'; readonly operands: readonly PermissionQuery[] };

export const PERMISSION_QUERY_SYNTAX_ERROR = 'user/bad_request/permissions_query_syntax_error';

type TokenKind = 'permission' | 'and' | 'or' | 'open' | 'close';

interface Token {
  kind: TokenKind;
  text: string;
  position: number;
}

function syntaxError(detail: string): DomainError {
  return new DomainError(400, PERMISSION_QUERY_SYNTAX_ERROR, detail, [
    { location: 'body.permissions', message: detail },
  ]);
}

function isPermissionCharacter(code: number): boolean {
  return (
    (code >= 0x61 && code <= 0x7a) || // a-z
    (code >= 0x41 && code <= 0x5a) || // A-Z
    (code >= 0x30 && code <= 0x3a) || // 0-9 and ':'
    code === 0x2e || // .
    code === 0x5f || // _
    code === 0x2d || // -
    code === 0x2a || // *
    code === 0x2f // /
  );
}

function isWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0d || code === 0x0a;
}

/** Invisible or look-alike characters (a pasted non-breaking space, say) are named by code point. */
function describeCharacter(query: string, position: number): string {
  const codePoint = query.codePointAt(position) ?? 0;
  if (codePoint > 0x20 && codePoint < 0x7f) return `'${String.fromCodePoint(codePoint)}'`;
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
}

function tokenize(query: string): Token[] {
  const tokens: Token[] = [];
  let position = 0;
  while (position < query.length) {
    const code = query.charCodeAt(position);
    if (isWhitespace(code)) {
      position++;
    } else if (code === 0x28) {
      tokens.push({ kind: 'open', text: '(', position });
      position++;
    } else if (code === 0x29) {
      tokens.push({ kind: 'close', text: ')', position });
      position++;
    } else if (isPermissionCharacter(code)) {
      const start = position;
      while (position < query.length && isPermissionCharacter(query.charCodeAt(position))) position++;
      const text = query.slice(start, position);
      const keyword = text.toUpperCase();
      const kind = keyword === 'AND' ? 'and' : keyword === 'OR' ? 'or' : 'permission';
      tokens.push({ kind, text, position: start });
    } else {
      throw syntaxError(
        `Invalid character ${describeCharacter(query, position)} found in query at position ${position}.`,
      );
    }
  }
  return tokens;
}

/**
 * Recursive descent over the grammar `expr := and (OR and)*`, `and := primary (AND primary)*`.
 * Each `(` recurses three calls deeper, so the query's length bounds the depth: verifyKey's
 * 1000 characters allow at most 499 levels, about 1500 frames, well within Node's stack.
 */
function parseTokens(query: string, tokens: readonly Token[]): PermissionQuery {
  let index = 0;

  function expected(what: string, token: Token | undefined): DomainError {
    const found = token ? `'${token.text}'` : 'end of query';
    return syntaxError(`Expected ${what} at position ${token ? token.position : query.length} but found ${found}.`);
  }

  function unexpected(token: Token): DomainError {
    return syntaxError(`Unexpected '${token.text}' at position ${token.position}.`);
  }

  function parseExpression(): PermissionQuery {
    const first = parseConjunction();
    if (tokens[index]?.kind !== 'or') return first;
    const operands = [first];
    while (tokens[index]?.kind === 'or') {
      index++;
      operands.push(parseConjunction());
    }
    return { kind: 'or', operands };
  }

  function parseConjunction(): PermissionQuery {
    const first = parsePrimary();
    if (tokens[index]?.kind !== 'and') return first;
    const operands = [first];
    while (tokens[index]?.kind === 'and') {
      index++;
      operands.push(parsePrimary());
    }
    return { kind: 'and', operands };
  }

  function parsePrimary(): PermissionQuery {
    const token = tokens[index];
    if (!token) throw expected("a permission or '('", token);
    let primary: PermissionQuery;
    if (token.kind === 'permission') {
      index++;
      primary = { kind: 'permission', name: token.text };
    } else if (token.kind === 'open') {
      index++;
      primary = parseExpression();
      const closing = tokens[index];
      if (closing?.kind !== 'close') throw expected("')'", closing);
      index++;
    } else {
      throw unexpected(token);
    }
    // Two operands side by side: report the missing operator here, where it is clearest, rather
    // than as a missing ')' or as trailing input further up.
    const next = tokens[index];
    if (next && (next.kind === 'permission' || next.kind === 'open')) throw expected("'AND' or 'OR'", next);
    return primary;
  }

  const parsed = parseExpression();
  const trailing = tokens[index];
  if (trailing) throw unexpected(trailing);
  return parsed;
}

/**
 * Parses a permissions query such as `documents.read AND (documents.write OR admin)`. `AND` binds
 * tighter than `OR`; keywords are case-insensitive. Throws a 400 DomainError of type
 * `user/bad_request/permissions_query_syntax_error` with a positioned message on bad input.
 */
export function parsePermissionQuery(query: string): PermissionQuery {
  return parseTokens(query, tokenize(query));
}

/** The held permissions as a set, built once per array: a cached key's array serves every verification of it. */
const heldSets = new WeakMap<readonly string[], ReadonlySet<string>>();

function heldSet(held: ReadonlySet<string> | readonly string[]): ReadonlySet<string> {
  if ('has' in held) return held;
  let set = heldSets.get(held);
  if (set === undefined) {
    set = new Set(held);
    heldSets.set(held, set);
  }
  return set;
}

/**
 * Set lookups only, whatever the key holds: the permission itself, a lone `*`, and `<prefix>.*` for
 * each `.` of the permission followed by at least one character. Its cost grows with the length
 * of the permission, never with the number of permissions held (docs/contract.md#limits).
 */
function covers(held: ReadonlySet<string>, required: string): boolean {
  if (held.has(required) || held.has(WILDCARD_PERMISSION)) return true;
  for (let dot = required.indexOf('.'); dot >= 0 && dot < required.length - 1; dot = required.indexOf('.', dot + 1)) {
    if (held.has(`${required.slice(0, dot + 1)}*`)) return true;
  }
  return false;
}

const WILDCARD_PERMISSION = '*';

function evaluate(query: PermissionQuery, held: ReadonlySet<string>): boolean {
  switch (query.kind) {
    case 'permission':
      return covers(held, query.name);
    case 'and':
      for (const operand of query.operands) if (!evaluate(operand, held)) return false;
      return true;
    case 'or':
      for (const operand of query.operands) if (evaluate(operand, held)) return true;
      return false;
  }
}

/**
 * Whether the held permissions satisfy the query, short-circuiting `AND` and `OR`.
 *
 * Wildcards are honoured on the held side only: a held `documents.*` covers every permission that
 * starts with `documents.` followed by at least one character (`documents.read`,
 * `documents.read.own`, and the narrower wildcard `documents.read.*`), but not `documents` nor
 * `documentsX.read`. A held lone `*` covers every permission. Any other `*` is an ordinary
 * character, and a `*` in the query is literal, so a query for `documents.*` needs a key holding
 * `documents.*` itself or a broader wildcard. Matching is case-sensitive.
 */
export function evaluatePermissionQuery(
  query: PermissionQuery,
  held: ReadonlySet<string> | readonly string[],
): boolean {
  return evaluate(query, heldSet(held));
}

/** Whether the held permissions cover one permission name (not a query), by the wildcard rule above. */
export function permissionSatisfied(held: ReadonlySet<string> | readonly string[], required: string): boolean {
  return covers(heldSet(held), required);
}
