import { afterAll, describe, expect, it } from 'vitest';
import { AnalyticsQueryError, compileAnalyticsQuery, createAnalyticsCompiler } from './index.ts';
import { testOptions } from './testTables.ts';

const OPTIONS = testOptions();

const compiler = createAnalyticsCompiler();
afterAll(() => compiler.close());

/** The longest query accepted, of the kind that costs most to parse, check and print. */
function longestCrossJoin(): string {
  let query = 'select count(*) from key_verifications_v1 t0';
  for (let i = 1; `${query}, key_verifications_v1 t${i}`.length <= 10_000; i++) query += `, key_verifications_v1 t${i}`;
  return query;
}

describe('createAnalyticsCompiler', () => {
  it('compiles as compileAnalyticsQuery does', async () => {
    const query = 'select key_id, count(*) from key_verifications_v1 where time >= 0 group by key_id';
    expect(await compiler.compile(query, OPTIONS)).toEqual(await compileAnalyticsQuery(query, OPTIONS));
  });

  it('leaves the calling thread free while it compiles', async () => {
    let compiling = true;
    let turns = 0;
    const turn = () => {
      if (!compiling) return;
      turns++;
      setImmediate(turn);
    };
    setImmediate(turn);
    await compiler.compile(longestCrossJoin(), OPTIONS);
    compiling = false;
    // Compiled on this thread, the event loop would not have turned at all meanwhile.
    expect(turns).toBeGreaterThan(10);
  });

  it('refuses with the same AnalyticsQueryError, position included', async () => {
    const query = 'select key_id\nfrom keys';
    const [there, here] = await Promise.all(
      [compiler.compile(query, OPTIONS), compileAnalyticsQuery(query, OPTIONS)].map((compiling) =>
        compiling.catch((error: unknown) => error),
      ),
    );
    expect(there).toBeInstanceOf(AnalyticsQueryError);
    expect(there).toEqual(here);
    expect(there).toMatchObject({ code: 'invalid_analytics_table', position: { line: 2 } });
  });

  it('answers queries sent together, each with its own result', async () => {
    const queries = Array.from({ length: 20 }, (_, i) => `select ${i} as n from key_verifications_v1`);
    const compiled = await Promise.all(queries.map((query) => compiler.compile(query, OPTIONS)));
    expect(compiled.map(({ sql }) => /select (\d+) as n/i.exec(sql)?.[1])).toEqual(queries.map((_, i) => String(i)));
  });
});
