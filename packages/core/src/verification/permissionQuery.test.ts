import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors.ts';
import {
  evaluatePermissionQuery,
  PERMISSION_QUERY_SYNTAX_ERROR,
  type PermissionQuery,
  parsePermissionQuery,
  permissionSatisfied,
} from './permissionQuery.ts';

const p = (name: string): PermissionQuery => ({ kind: 'permission', name });
const and = (...operands: PermissionQuery[]): PermissionQuery => ({ kind: 'and', operands });
const or = (...operands: PermissionQuery[]): PermissionQuery => ({ kind: 'or', operands });

function syntaxErrorOf(query: string): DomainError {
  try {
    parsePermissionQuery(query);
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(query)} to be rejected`);
}

describe('parsePermissionQuery', () => {
  it.each<[string, PermissionQuery]>([
    ['documents.read', p('documents.read')],
    ['a AND b', and(p('a'), p('b'))],
    ['a OR b', or(p('a'), p('b'))],
    ['a AND b AND c', and(p('a'), p('b'), p('c'))],
    ['a OR b OR c', or(p('a'), p('b'), p('c'))],
    ['a OR b AND c', or(p('a'), and(p('b'), p('c')))],
    ['a AND b OR c', or(and(p('a'), p('b')), p('c'))],
    ['a AND b OR c AND d', or(and(p('a'), p('b')), and(p('c'), p('d')))],
    ['(a OR b) AND c', and(or(p('a'), p('b')), p('c'))],
    ['a AND (b OR c)', and(p('a'), or(p('b'), p('c')))],
    ['((a))', p('a')],
    ['(a AND (b OR (c AND d)))', and(p('a'), or(p('b'), and(p('c'), p('d'))))],
  ])('parses %j', (query, expected) => {
    expect(parsePermissionQuery(query)).toEqual(expected);
  });

  it.each([
    ['a and b', and(p('a'), p('b'))],
    ['a And b', and(p('a'), p('b'))],
    ['a or b', or(p('a'), p('b'))],
    ['a Or b', or(p('a'), p('b'))],
    ['a oR b aNd c', or(p('a'), and(p('b'), p('c')))],
  ])('treats keywords case-insensitively: %j', (query, expected) => {
    expect(parsePermissionQuery(query)).toEqual(expected);
  });

  it.each([['ANDROID.read'], ['ORACLE'], ['and.read'], ['or_x'], ['AND-1'], ['ORDERS/*']])(
    'reads %j, which only starts with a keyword, as a permission',
    (name) => {
      expect(parsePermissionQuery(name)).toEqual(p(name));
    },
  );

  it('accepts every allowed identifier character', () => {
    const name = 'abcXYZ019.-_*:/';
    expect(parsePermissionQuery(name)).toEqual(p(name));
    expect(parsePermissionQuery('api.*.read_key AND urn:docs/v2:read-all')).toEqual(
      and(p('api.*.read_key'), p('urn:docs/v2:read-all')),
    );
  });

  it.each([['a\tAND\tb'], ['a\nAND\r\nb'], ['  a   AND b  '], ['\t(a\nAND b)\r']])(
    'treats space, tab, CR and LF as separators: %j',
    (query) => {
      expect(parsePermissionQuery(query)).toEqual(and(p('a'), p('b')));
    },
  );

  it('needs no whitespace around parentheses', () => {
    expect(parsePermissionQuery('(a)AND(b OR c)')).toEqual(and(p('a'), or(p('b'), p('c'))));
  });

  it('is case-sensitive for permission names', () => {
    expect(parsePermissionQuery('Documents.Read')).toEqual(p('Documents.Read'));
  });
});

describe('parsePermissionQuery syntax errors', () => {
  it.each([
    // empty
    ['', "Expected a permission or '(' at position 0 but found end of query."],
    ['   ', "Expected a permission or '(' at position 3 but found end of query."],
    // empty parentheses
    ['()', "Unexpected ')' at position 1."],
    ['a AND ()', "Unexpected ')' at position 7."],
    // missing ')'
    ['(a AND b', "Expected ')' at position 8 but found end of query."],
    ['((a) OR b', "Expected ')' at position 9 but found end of query."],
    // unexpected ')'
    [')', "Unexpected ')' at position 0."],
    ['a)', "Unexpected ')' at position 1."],
    ['(a OR b))', "Unexpected ')' at position 8."],
    // two operands without an operator
    ['a b', "Expected 'AND' or 'OR' at position 2 but found 'b'."],
    ['(a b)', "Expected 'AND' or 'OR' at position 3 but found 'b'."],
    ['a (b)', "Expected 'AND' or 'OR' at position 2 but found '('."],
    ['(a)(b)', "Expected 'AND' or 'OR' at position 3 but found '('."],
    ['(a) b', "Expected 'AND' or 'OR' at position 4 but found 'b'."],
    // an operator without an operand
    ['AND', "Unexpected 'AND' at position 0."],
    ['and a', "Unexpected 'and' at position 0."],
    ['OR a', "Unexpected 'OR' at position 0."],
    ['a AND', "Expected a permission or '(' at position 5 but found end of query."],
    ['a OR  ', "Expected a permission or '(' at position 6 but found end of query."],
    ['a AND OR b', "Unexpected 'OR' at position 6."],
    ['a OR AND b', "Unexpected 'AND' at position 5."],
    ['(a AND) b', "Unexpected ')' at position 6."],
    ['(OR b)', "Unexpected 'OR' at position 1."],
    // invalid characters
    ['a AND !b', "Invalid character '!' found in query at position 6."],
    ['docs.read!', "Invalid character '!' found in query at position 9."],
    ['a && b', "Invalid character '&' found in query at position 2."],
    ['a, b', "Invalid character ',' found in query at position 1."],
    ['"a"', "Invalid character '\"' found in query at position 0."],
    ['a\u00a0AND b', 'Invalid character U+00A0 found in query at position 1.'],
    ['a\u0000', 'Invalid character U+0000 found in query at position 1.'],
    ['dökumente', 'Invalid character U+00F6 found in query at position 1.'],
    ['a 😀', 'Invalid character U+1F600 found in query at position 2.'],
  ])('rejects %j', (query, detail) => {
    const error = syntaxErrorOf(query);
    expect(error.status).toBe(400);
    expect(error.type).toBe(PERMISSION_QUERY_SYNTAX_ERROR);
    expect(error.type).toBe('user/bad_request/permissions_query_syntax_error');
    expect(error.message).toBe(detail);
    expect(error.fieldErrors).toEqual([{ location: 'body.permissions', message: detail }]);
  });

  // Each is next to an allowed range (a-z, A-Z, 0-9 and ':', '.', '_', '-', '*', '/'), or is a
  // whitespace character that is not a separator.
  it.each([
    ['a@b', "'@'"],
    ['a[b', "'['"],
    ['a^b', "'^'"],
    ['a`b', "'`'"],
    ['a{b', "'{'"],
    ['a;b', "';'"],
    ['a+b', "'+'"],
    ['a\u000bb', 'U+000B'],
    ['a\u000cb', 'U+000C'],
  ])('rejects %j, just outside the allowed characters', (query, named) => {
    expect(syntaxErrorOf(query).message).toBe(`Invalid character ${named} found in query at position 1.`);
  });

  it('reports an invalid character before any grammar error', () => {
    expect(syntaxErrorOf('AND ) #').message).toBe("Invalid character '#' found in query at position 6.");
  });
});

describe('nesting depth', () => {
  // The deepest a query of verifyKey's 1000 characters can nest: 499 levels around a 2-character name.
  const MAX_QUERY_LENGTH = 1000;
  const deepest = `${'('.repeat(499)}ab${')'.repeat(499)}`;

  it('accepts a query of the longest length at the greatest depth, with no cap of its own', () => {
    expect(deepest).toHaveLength(MAX_QUERY_LENGTH);
    expect(parsePermissionQuery(deepest)).toEqual(p('ab'));
    const deepAnd = `${'(a AND '.repeat(124)}b${')'.repeat(124)}`;
    expect(deepAnd.length).toBeLessThanOrEqual(MAX_QUERY_LENGTH);
    expect(evaluatePermissionQuery(parsePermissionQuery(deepAnd), ['a', 'b'])).toBe(true);
  });

  it('reports a syntax error at that depth with its position', () => {
    const unclosed = `${'('.repeat(500)}a${')'.repeat(499)}`;
    expect(unclosed).toHaveLength(MAX_QUERY_LENGTH);
    expect(syntaxErrorOf(unclosed).message).toBe("Expected ')' at position 1000 but found end of query.");
    const empty = `${'('.repeat(500)}${')'.repeat(500)}`;
    expect(syntaxErrorOf(empty).message).toBe("Unexpected ')' at position 500.");
  });

  it('counts depth, not the number of groups', () => {
    const manyGroups = Array.from({ length: 500 }, (_, i) => `(p${i})`).join(' OR ');
    const parsed = parsePermissionQuery(manyGroups);
    expect(parsed.kind === 'or' && parsed.operands.length).toBe(500);
  });
});

describe('wildcard semantics', () => {
  it.each([
    ['documents.read', true],
    ['documents.write', true],
    ['documents.read.own', true],
    ['documents.a.b.c', true],
    ['documents.*', true],
    ['documents.read.*', true],
    ['documents', false],
    ['documents.', false],
    ['documentsX.read', false],
    ['documentation.read', false],
    ['Documents.read', false],
    ['other.documents.read', false],
    ['*', false],
  ])('a held documents.* covers %j: %s', (required, covered) => {
    expect(permissionSatisfied(['documents.*'], required)).toBe(covered);
    expect(evaluatePermissionQuery(parsePermissionQuery(required), new Set(['documents.*']))).toBe(covered);
  });

  it('a held lone * covers every permission, including wildcard names', () => {
    for (const required of ['a', 'documents.read', 'documents.*', '*', 'x:y/z']) {
      expect(permissionSatisfied(['*'], required)).toBe(true);
    }
  });

  it('a * anywhere but alone or after a final dot is an ordinary character when held', () => {
    expect(permissionSatisfied(['documents*'], 'documents.read')).toBe(false);
    expect(permissionSatisfied(['documents*'], 'documentsX')).toBe(false);
    expect(permissionSatisfied(['api.*.read'], 'api.123.read')).toBe(false);
    expect(permissionSatisfied(['api.*.read'], 'api.*.read')).toBe(true);
    expect(permissionSatisfied(['**'], 'anything')).toBe(false);
  });

  it('a * in the query is literal: it needs the wildcard itself or a broader one', () => {
    const query = parsePermissionQuery('documents.*');
    expect(evaluatePermissionQuery(query, ['documents.*'])).toBe(true);
    expect(evaluatePermissionQuery(query, ['*'])).toBe(true);
    expect(evaluatePermissionQuery(query, ['documents.read', 'documents.write'])).toBe(false);
    expect(evaluatePermissionQuery(query, ['documents.read.*'])).toBe(false);
    expect(evaluatePermissionQuery(parsePermissionQuery('*'), ['documents.*'])).toBe(false);
  });

  it('matches exact names case-sensitively', () => {
    expect(permissionSatisfied(['documents.read'], 'documents.read')).toBe(true);
    expect(permissionSatisfied(['documents.read'], 'documents.READ')).toBe(false);
    expect(permissionSatisfied(['DOCUMENTS.*'], 'documents.read')).toBe(false);
    expect(permissionSatisfied([], 'documents.read')).toBe(false);
  });
});

describe('evaluatePermissionQuery', () => {
  const held = ['documents.read', 'billing.*'];

  it.each([
    ['documents.read', true],
    ['documents.write', false],
    ['documents.read AND billing.invoices.read', true],
    ['documents.read AND documents.write', false],
    ['documents.write OR billing.view', true],
    ['documents.write OR admin', false],
    // AND binds tighter: true OR (false AND false)
    ['documents.read OR admin AND documents.write', true],
    // parentheses override: (true OR false) AND false
    ['(documents.read OR admin) AND documents.write', false],
    ['admin OR (documents.read AND billing.x)', true],
  ])('%j → %s', (query, expected) => {
    expect(evaluatePermissionQuery(parsePermissionQuery(query), held)).toBe(expected);
    expect(evaluatePermissionQuery(parsePermissionQuery(query), new Set(held))).toBe(expected);
  });

  it('evaluates hand-built queries', () => {
    expect(evaluatePermissionQuery(and(p('a'), or(p('b'), p('c'))), ['a', 'c'])).toBe(true);
    expect(evaluatePermissionQuery(and(p('a'), or(p('b'), p('c'))), ['b', 'c'])).toBe(false);
  });
});

describe('short-circuit evaluation', () => {
  class RecordingSet extends Set<string> {
    readonly lookups: string[] = [];
    override has(value: string): boolean {
      this.lookups.push(value);
      return super.has(value);
    }
  }

  it.each([
    ['a OR b', ['a'], true, ['a']],
    ['a OR b', ['b'], true, ['a', 'b']],
    ['x AND b', ['b'], false, ['x']],
    ['a AND b', ['a', 'b'], true, ['a', 'b']],
    ['a OR b AND c', ['a'], true, ['a']],
    ['x AND (b OR c) AND d', [], false, ['x']],
    ['(x OR a) AND (b OR c)', ['a', 'b'], true, ['x', 'a', 'b']],
  ])('%j with %j looks up only %j', (query, permissions, expected, lookedUp) => {
    const held = new RecordingSet(permissions);
    expect(evaluatePermissionQuery(parsePermissionQuery(query), held)).toBe(expected);
    // Besides each operand, the wildcards that could cover it are looked up.
    expect(held.lookups.filter((slug) => !slug.endsWith('*'))).toEqual(lookedUp);
  });
});

describe('cost', () => {
  // docs/contract.md#limits: a query costs lookups per character of its permissions, whatever the key holds.
  it('evaluates the longest query against a key holding 200,000 wildcard permissions in well under a second', () => {
    const held = Array.from({ length: 200_000 }, (_, index) => `resource${index}.*`);
    const query = parsePermissionQuery(Array.from({ length: 90 }, (_, index) => `x.y.z${index}`).join(' OR '));
    expect(evaluatePermissionQuery(query, held)).toBe(false);
    const started = performance.now();
    for (let round = 0; round < 10; round += 1) expect(evaluatePermissionQuery(query, held)).toBe(false);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('looks up a permission, the lone wildcard and one wildcard per dot, nothing else', () => {
    class RecordingSet extends Set<string> {
      readonly lookups: string[] = [];
      override has(value: string): boolean {
        this.lookups.push(value);
        return super.has(value);
      }
    }
    const held = new RecordingSet(['other.*']);
    expect(evaluatePermissionQuery(parsePermissionQuery('a.b.c'), held)).toBe(false);
    expect(held.lookups).toEqual(['a.b.c', '*', 'a.*', 'a.b.*']);
  });
});
