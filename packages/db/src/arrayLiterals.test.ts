import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { scalarArrayLiteral, textArrayLiteral } from './arrayLiterals.ts';
import { rows, sql } from './sql.ts';
import { createTestDatabase, type TestDatabase } from './testing/index.ts';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
});
afterAll(async () => {
  await database.drop();
});

/** What PostgreSQL reads from a literal, element by element. */
async function elementsOf<T>(literal: string, type: 'text' | 'float8' | 'bigint' | 'int' | 'bool'): Promise<T[]> {
  const found = await rows(
    database.orm.em.fork(),
    sql<{ element: T }>`select unnest(${literal}::${sql.raw(type)}[]) as element`,
  );
  return found.map(({ element }) => element);
}

describe('textArrayLiteral', () => {
  it('reads back as the same values in PostgreSQL, whatever they hold', async () => {
    const values = [
      'key_01a2017badb3a1741c645dca83b21bc8',
      null,
      'NULL',
      'null',
      '',
      ' padded ',
      'with "quotes"',
      'back\\slash',
      '{braces}',
      'a,b',
      'tab\there',
      'new\nline',
      'ünï©ødé 😀',
      'trailing\\',
      '"',
      '[]',
      '["a","b\\"c"]',
    ];
    expect(await elementsOf(textArrayLiteral(values), 'text')).toEqual(values);
  });

  it('encodes runs of one value the same way as single values, including runs of null and of quoted values', async () => {
    const values = ['ws_1', 'ws_1', null, null, 'a "b"', 'a "b"', 'ws_1', 'NULL', 'NULL', null];
    expect(textArrayLiteral(values)).toBe('{ws_1,ws_1,NULL,NULL,"a \\"b\\"","a \\"b\\"",ws_1,"NULL","NULL",NULL}');
    expect(await elementsOf(textArrayLiteral(values), 'text')).toEqual(values);
  });

  it('leaves identifiers bare and quotes only what needs it', () => {
    expect(textArrayLiteral(['key_1', 'VALID', null, 'Null', 'a b'])).toBe('{key_1,VALID,NULL,"Null","a b"}');
  });

  it('writes an empty array', async () => {
    expect(await elementsOf(textArrayLiteral([]), 'text')).toEqual([]);
  });
});

describe('scalarArrayLiteral', () => {
  it('reads back as the same numbers and booleans', async () => {
    const floats = [1_763_000_000_123.5, 0, -2.25, 1e-7, 1.7976931348623157e308];
    expect((await elementsOf<number>(scalarArrayLiteral(floats), 'float8')).map(Number)).toEqual(floats);
    const integers = [0, 1, 1_000_000_000_000, Number.MAX_SAFE_INTEGER];
    expect((await elementsOf<string>(scalarArrayLiteral(integers), 'bigint')).map(Number)).toEqual(integers);
    expect(await elementsOf(scalarArrayLiteral([true, false]), 'bool')).toEqual([true, false]);
  });
});
