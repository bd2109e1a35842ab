import { loadModule, parseSync } from 'libpg-query';
import { beforeAll, describe, expect, it } from 'vitest';
import { type AnalyticsErrorCode, AnalyticsQueryError, type CompiledQuery, compileAnalyticsQuery } from './index.ts';
import { TEST_SCHEMA, TEST_TABLES, testOptions } from './testTables.ts';

const MAX_ROWS = 100;

function compile(query: string): Promise<CompiledQuery> {
  return compileAnalyticsQuery(query, testOptions({ maxRows: MAX_ROWS }));
}

async function refusal(query: string): Promise<AnalyticsQueryError> {
  try {
    await compile(query);
  } catch (error) {
    if (error instanceof AnalyticsQueryError) return error;
    throw error;
  }
  throw new Error(`accepted: ${query}`);
}

async function expectRefused(query: string, code: AnalyticsErrorCode, reason?: RegExp) {
  const error = await refusal(query);
  expect(error.code, `${query}: ${error.message}`).toBe(code);
  if (reason) expect(error.message).toMatch(reason);
  return error;
}

interface TableRead {
  relation: string;
  schema: string | undefined;
}

/** Every relation the compiled SQL reads: parsed from the output, so the test checks what PostgreSQL would run. */
function tableReads(sql: string): TableRead[] {
  const reads: TableRead[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    const record = value as Record<string, unknown>;
    if ('RangeVar' in record) {
      const rangeVar = record.RangeVar as { relname: string; schemaname?: string };
      reads.push({ relation: rangeVar.relname, schema: rangeVar.schemaname });
    }
    for (const child of Object.values(record)) visit(child);
  };
  visit(parseSync(sql));
  return reads;
}

/** The public tables the compiled SQL reads, each as the view of the schema that filters it. */
function publicReads(sql: string): string[] {
  return tableReads(sql)
    .filter((read) => read.schema !== undefined)
    .map((read) => {
      expect(read.schema).toBe(TEST_SCHEMA);
      return read.relation;
    });
}

beforeAll(async () => {
  await loadModule();
});

describe('accepted queries', () => {
  it.each([
    "select outcome, count(*) from key_verifications_v1 where key_id = 'key_1' group by outcome",
    "select date_trunc('day', to_timestamp(time / 1000.0)) as day, count(*)::int from key_verifications_v1 group by 1",
    'select percentile_cont(0.5) within group (order by latency) from key_verifications_v1',
    "select count(*) filter (where outcome = 'VALID') from key_verifications_v1",
    'select key_id, row_number() over (partition by key_id order by time) from key_verifications_v1',
    'select tag, count(*) from key_verifications_v1, unnest(tags) as tag group by tag',
    "select 'a' = any(tags), tags @> array['a'], tags[1] from key_verifications_v1",
    'select k.key_id, d.count from key_verifications_v1 k join key_verifications_per_day_v1 d using (key_id)',
    'with recent as (select * from key_verifications_v1 where time > 0) select count(*) from recent',
    'with a as (select 1 as x), b as (select x from a) select * from b',
    'select key_id from key_verifications_v1 union select key_id from key_verifications_per_day_v1',
    'select key_id from key_verifications_v1 except select key_id from key_verifications_per_day_v1',
    'select key_id from key_verifications_v1 intersect select key_id from key_verifications_per_day_v1',
    'select * from (select key_id from key_verifications_v1) as s where key_id in (select key_id from key_verifications_v1)',
    'select exists (select 1 from key_verifications_v1), (select max(time) from key_verifications_v1)',
    "select extract(epoch from now()), substring('abc' from 1 for 2), now() at time zone 'utc', trim(' x ')",
    'select coalesce(null, 1), greatest(1, 2), nullif(1, 2), case when true then 1 else 0 end, (1, 2) = (1, 2)',
    "select 1::int8, '1.5'::numeric(10, 2), 'x'::varchar(3), '2020-01-01'::date, '{}'::text[], interval '1 hour'",
    "select current_date, current_timestamp, timestamp '2020-01-01'",
    "select outcome from key_verifications_v1 where outcome ilike 'v%' and outcome not like 'x%' and key_id is not null",
    'select distinct on (key_id) key_id, time from key_verifications_v1 order by key_id, time desc',
    'select outcome, count(*) from key_verifications_v1 group by rollup (outcome) having count(*) > 1',
    'select round(avg(latency)::numeric, 2), floor(1.5), ceil(1.5), abs(-1) from key_verifications_v1',
    'table key_verifications_v1',
    'values (1), (2)',
    // A WITH query may take the name of a private table: it is the query, never the table.
    'with keys as (select 1 as id) select id from keys',
    'select 1 /* a comment */ -- and another\n',
  ])('%s', async (query) => {
    const compiled = await compile(query);
    for (const read of tableReads(compiled.sql)) {
      if (read.schema === undefined) expect(['keys', 'recent', 'a', 'b']).toContain(read.relation);
      else
        expect({ ...read, public: Object.hasOwn(TEST_TABLES, read.relation) }).toMatchObject({
          schema: TEST_SCHEMA,
          public: true,
        });
    }
  });
});

describe('rewriting', () => {
  it("reads every public table as the views' schema has it, keeping the alias", async () => {
    const compiled = await compile(
      'select k.key_id from key_verifications_v1 k where k.key_id in (select key_id from key_verifications_v1) ' +
        'union all select key_id from key_verifications_per_day_v1',
    );
    expect(publicReads(compiled.sql).sort()).toEqual([
      'key_verifications_per_day_v1',
      'key_verifications_v1',
      'key_verifications_v1',
    ]);
    expect(compiled.sql).toContain(`${TEST_SCHEMA}.key_verifications_v1 AS k`);
    expect(compiled.tables).toEqual(['key_verifications_v1', 'key_verifications_per_day_v1']);
  });

  it('inside WITH queries, subqueries and both sides of joins too', async () => {
    const compiled = await compile(
      'with w as (select * from key_verifications_v1) select * from w, key_verifications_v1 a ' +
        'left join key_verifications_per_day_v1 b on a.key_id = b.key_id ' +
        'where exists (select 1 from key_verifications_v1 c where c.key_id = a.key_id)',
    );
    expect(publicReads(compiled.sql)).toHaveLength(4);
    expect(tableReads(compiled.sql).filter((read) => read.schema === undefined)).toEqual([
      { relation: 'w', schema: undefined },
    ]);
  });

  it('so that a WITH query named like a table it stands for cannot take its place', async () => {
    // The views read these tables; the caller's query names them only as its own WITH queries.
    const compiled = await compile(
      'with key_verifications as (select 1 as x), ratelimit_events as (select 2 as y) ' +
        'select count(*) from key_verifications_v1, key_verifications, ratelimit_events',
    );
    expect(publicReads(compiled.sql)).toEqual(['key_verifications_v1']);
  });

  it('never runs the caller text: comments are gone and the printed SQL parses to what was checked', async () => {
    const compiled = await compile('select /* hidden */ count(*) -- trailing\nfrom key_verifications_v1');
    expect(compiled.sql).not.toContain('hidden');
    expect(compiled.sql).not.toContain('trailing');
  });

  it('calls functions from pg_catalog by name, whatever the search_path', async () => {
    const compiled = await compile('select count(*), lower(outcome) from key_verifications_v1 group by outcome');
    expect(compiled.sql).toContain('pg_catalog.count(*)');
    expect(compiled.sql).toContain('pg_catalog.lower(outcome)');
  });

  it('reports no tables for a query that reads none', async () => {
    expect((await compile('select 1')).tables).toEqual([]);
  });
});

describe('LIMIT', () => {
  it.each([
    ['select key_id from key_verifications_v1', MAX_ROWS],
    ['select key_id from key_verifications_v1 limit all', MAX_ROWS],
    ['select key_id from key_verifications_v1 limit null', MAX_ROWS],
    ['select key_id from key_verifications_v1 limit 1000000', MAX_ROWS],
    ['select key_id from key_verifications_v1 limit 7', 7],
    ['select key_id from key_verifications_v1 limit 0', 0],
    ['select key_id from key_verifications_v1 fetch first 3 rows only', 3],
    ['select 1 union select 2 limit 5000', MAX_ROWS],
    // An inner LIMIT is the caller's business; the outer one bounds the result.
    ['select * from (select key_id from key_verifications_v1 limit 100000) s', MAX_ROWS],
  ])('%s → LIMIT %i', async (query, limit) => {
    const compiled = await compile(query);
    expect(compiled.limit).toBe(limit);
    expect(compiled.sql).toMatch(new RegExp(`LIMIT ${limit}$`));
  });

  it.each([
    'select 1 limit 1 + 1',
    'select 1 limit (select 5)',
    'select 1 limit 2.5',
    'select 1 order by 1 fetch first 1 rows with ties',
  ])('refuses %s', async (query) => {
    await expectRefused(query, 'invalid_analytics_query');
  });
});

describe('tables that are not public', () => {
  it.each([
    ['select * from keys', /"keys" is not available/],
    ['select * from "keys"', /"keys" is not available/],
    ['select * from root_keys', /"root_keys"/],
    ['select * from workspaces', /"workspaces"/],
    ['select * from key_verifications', /"key_verifications" is not available/],
    ['select * from "KEY_VERIFICATIONS_V1"', /"KEY_VERIFICATIONS_V1"/],
    ['select * from public.key_verifications', /"public.key_verifications"/],
    ['select * from public.key_verifications_v1', /without a schema/],
    ['select * from pg_catalog.pg_authid', /"pg_catalog.pg_authid"/],
    ['select * from pg_class', /"pg_class"/],
    ['select * from information_schema.tables', /"information_schema.tables"/],
    ['select * from mydb.public.keys', /"mydb.public.keys"/],
    ['select * from only keys', /"keys"/],
    ['select 1 where exists (select 1 from keys)', /"keys"/],
    ['select (select count(*) from root_keys)', /"root_keys"/],
    ['select * from key_verifications_v1 join keys on true', /"keys"/],
    ['select * from key_verifications_v1 union select * from keys', /"keys"/],
    ['with a as (select * from keys) select * from a', /"keys"/],
    ['select * from key_verifications_v1, lateral (select * from keys) k', /"keys"/],
    // A later WITH name is not visible to an earlier one: there, "keys" is the real table.
    ['with a as (select * from keys), keys as (select 1) select * from a', /"keys"/],
    // A WITH name inside a subquery is not visible outside it.
    ['select * from (with keys as (select 1) select * from keys) s, keys', /"keys"/],
    ['select * from ratelimits_v1', /"ratelimits_v1"/],
  ])('%s', async (query, reason) => {
    await expectRefused(query, 'invalid_analytics_table', reason);
  });

  it('points at the table in the text, counting characters, not bytes', async () => {
    const error = await expectRefused("select 'ééé',\n  count(*) from keys", 'invalid_analytics_table');
    expect(error.position).toEqual({ offset: 30, line: 2, column: 17 });
    expect(error.message).toContain('line 2, column 17');
  });
});

describe('functions and casts that are not allowed', () => {
  it.each([
    ['select pg_sleep(10)', /pg_sleep\(\)/],
    ["select set_config('statement_timeout', '0', false)", /set_config/],
    ["select pg_read_file('/etc/passwd')", /pg_read_file/],
    ["select nextval('seq')", /nextval/],
    ["select dblink('host=x', 'select 1')", /dblink/],
    ["select lo_import('/etc/passwd')", /lo_import/],
    ['select pg_terminate_backend(1)', /pg_terminate_backend/],
    ['select pg_catalog.pg_sleep(1) from key_verifications_v1', /pg_catalog.pg_sleep/],
    ['select public.count(*) from key_verifications_v1', /public.count/],
    ["select current_setting('server_version')", /current_setting/],
    ['select * from generate_series(1, 1000000000)', /generate_series/],
    ["select repeat('x', 1000000000)", /repeat/],
    ["select string_agg(key_id, ',') from key_verifications_v1", /string_agg/],
    ["select 'keys'::regclass", /regclass/],
    ["select '1'::pg_catalog.regproc", /regproc/],
    ["select '<a/>'::xml", /xml/],
    ['select current_user', /CURRENT_USER/],
    ['select session_user', /SESSION_USER/],
    ['select current_schema', /CURRENT_SCHEMA/],
    ['select 2 ^ 100000', /operator \^/],
    ['select 1 operator(public.+) 1', /operator public.\+/],
    ["select count(*) from key_verifications_v1 where lower(pg_sleep(1)::text) = ''", /pg_sleep/],
  ])('%s', async (query, reason) => {
    await expectRefused(query, 'invalid_analytics_function', reason);
  });

  it('points at the function', async () => {
    const error = await expectRefused(
      'select count(*), pg_sleep(1) from key_verifications_v1',
      'invalid_analytics_function',
    );
    expect(error.position?.column).toBe(18);
  });
});

describe('statements that are not a single SELECT', () => {
  it.each([
    ['select 1; drop table keys', /exactly one SELECT/],
    ['select 1; select 2', /exactly one SELECT/],
    ['drop table keys', /DROP/],
    ['delete from keys', /DELETE/],
    ["update keys set name = 'x'", /UPDATE/],
    ["insert into keys values ('x')", /INSERT/],
    ['explain analyze select 1', /EXPLAIN/],
    ['set statement_timeout = 0', /VARIABLESET|SET/i],
    ["copy keys to '/tmp/x'", /COPY/],
    ['with x as (delete from keys returning *) select * from x', /DELETE/],
    ["with x as (insert into keys values ('x') returning *) select * from x", /INSERT/],
    ["with x as (update keys set name = 'x' returning *) select * from x", /UPDATE/],
    ['select * from key_verifications_v1 for update', /FOR UPDATE/],
    ['select * from key_verifications_v1 for share', /FOR UPDATE/],
    ['select * from (select * from key_verifications_v1 for update) s', /FOR UPDATE/],
    ['select * into stolen from key_verifications_v1', /INTO/],
    ['create table x as select 1', /CREATETABLEAS|CREATE/i],
    ['do $$ begin perform 1; end $$', /DO/],
  ])('%s', async (query, reason) => {
    await expectRefused(query, 'invalid_analytics_query_type', reason);
  });

  it('points at the second statement', async () => {
    const error = await expectRefused('select 1; drop table keys', 'invalid_analytics_query_type');
    expect(error.position?.column).toBe(11);
  });
});

describe('malformed or unsupported queries', () => {
  it.each([
    ['', /empty/],
    ['   -- only a comment', /empty/],
    ['select from where', /Syntax error/],
    ["select 'unterminated", /Syntax error/],
    ['select 1 /* unterminated comment', /Syntax error/],
    ['select $1', /Parameters/],
    ['with recursive t(n) as (select 1 union all select n + 1 from t) select * from t', /RECURSIVE/],
    ['with key_verifications_v1 as (select 1) select * from key_verifications_v1', /would hide the table/],
    ["select * from xmltable('/a' passing '<a/>' columns x int)", /not supported/],
    ['select * from key_verifications_v1 tablesample system (10)', /not supported/],
    ["select json_object('a': 1)", /not supported/],
    [`select ${'1 + '.repeat(300)}1`, /too deeply/],
  ])('%s', async (query, reason) => {
    await expectRefused(query, 'invalid_analytics_query', reason);
  });

  it('points at the syntax error', async () => {
    const error = await expectRefused("select 'é', key_id from key_verifications_v1 where", 'invalid_analytics_query');
    expect(error.position).toEqual({ offset: 50, line: 1, column: 51 });
  });
});

describe('escapes and quoting', () => {
  it('keeps string literals as data, however they are quoted', async () => {
    const compiled = await compile(
      "select 'a''b', E'c\\'d', $$e'f$$, 'g\\' from key_verifications_v1 where outcome = '*/ select 1 --'",
    );
    expect(tableReads(compiled.sql)).toEqual([{ relation: 'key_verifications_v1', schema: TEST_SCHEMA }]);
  });

  it('treats a table name hidden in a string or comment as text', async () => {
    const compiled = await compile("select 'from keys' as x /* from root_keys */ from key_verifications_v1");
    expect(tableReads(compiled.sql)).toEqual([{ relation: 'key_verifications_v1', schema: TEST_SCHEMA }]);
  });

  it('reads nested comments as PostgreSQL does', async () => {
    // PostgreSQL nests block comments: all of this is one comment, and the query is `select 1`.
    const compiled = await compile('select 1 /* /* */ from keys */');
    expect(compiled.tables).toEqual([]);
    expect(compiled.sql).not.toContain('keys');
  });
});

/** How many of the query's conditions the compiled SQL wraps in the fence. */
async function fencesIn(query: string): Promise<number> {
  const compiled = await compile(query);
  return compiled.sql.split('pg_catalog.booland_statefunc(').length - 1;
}

describe('conditions', () => {
  it.each([
    // The oracle: PostgreSQL deems it leakproof, yet it fails on the rows it matches.
    [
      "select count(*) from key_verifications_v1 where case when external_id = any(array['x']) then array[array[external_id], array[external_id, external_id]] is null else false end",
      1,
    ],
    ["select count(*) from key_verifications_v1 where lower(key_id) = 'k'", 1],
    ["select count(*) from key_verifications_v1 where key_id = 'k' and lower(outcome) = 'v'", 1],
    ['select count(*) from key_verifications_v1 where key_id::int = 1', 1],
    ["select count(*) from key_verifications_v1 where key_id = 'k' or outcome = 'x'", 1],
    [
      'select count(*) from key_verifications_v1 a join key_verifications_per_day_v1 b on a.key_id = lower(b.key_id)',
      1,
    ],
    ['select key_id from key_verifications_v1 group by key_id having count(*) > 1', 1],
    ["select key_id from key_verifications_v1 group by key_id having key_id = 'k'", 0],
    // Columns of a WITH query, a derived table or a renamed table may be anything the caller computed.
    ["with w as (select key_id from key_verifications_v1) select * from w where key_id = 'k'", 1],
    ["select * from (select key_id from key_verifications_v1) s where s.key_id = 'k'", 1],
    ["select * from key_verifications_v1 k (a, b) where b = 'k'", 1],
    // A column of another query level may be one too.
    [
      "select * from (select key_id as time from key_verifications_v1) s where exists (select 1 from key_verifications_per_day_v1 d where d.key_id = 'k' and s.time = 'x')",
      2,
    ],
  ])('wraps what could fail: %s', async (query, fences) => {
    expect(await fencesIn(query)).toBe(fences);
  });

  it.each([
    "select count(*) from key_verifications_v1 where key_id = 'k' and time >= 1000 and 1000 > time",
    "select count(*) from key_verifications_v1 k where k.key_id <> 'k' and k.identity_id is null and k.outcome in ('VALID', 'X')",
    'select count(*) from key_verifications_v1 where time between 1 and 2 and spent_credits = 5::int8',
    'select count(*) from key_verifications_v1 a join key_verifications_per_day_v1 b on a.key_id = b.key_id',
    'select count(*) from key_verifications_v1 a join key_verifications_per_day_v1 b using (key_id) where b.count > 1',
  ])('leaves a public column compared with a constant or column as written, for the index: %s', async (query) => {
    expect(await fencesIn(query)).toBe(0);
  });

  it('wraps each condition apart, as PostgreSQL would still move the others', async () => {
    const compiled = await compile(
      "select count(*) from key_verifications_v1 where key_id = 'k' and lower(outcome) = 'v' and (time > 1 and tags[1] = 'x')",
    );
    expect(compiled.sql.replace(/\s+/g, ' ')).toContain(
      `WHERE key_id = 'k' AND pg_catalog.booland_statefunc(pg_catalog.lower(outcome) = 'v', true) AND "time" > 1 AND pg_catalog.booland_statefunc((tags)[1] = 'x', true)`,
    );
  });
});

/** A WITH query of `levels` levels, each concatenating the last one's value `width` times. */
function nestedConcat(levels: number, width: number, value = 'key_id'): string {
  const ctes: string[] = [];
  let previous = value;
  let source = 'key_verifications_v1';
  for (let level = 0; level < levels; level++) {
    ctes.push(`l${level} as (select concat(${Array(width).fill(previous).join(', ')}) as s from ${source})`);
    previous = 's';
    source = `l${level}`;
  }
  return `with ${ctes.join(', ')} select length(s) from ${source}`;
}

describe('values that grow', () => {
  const VALUE = /can build a value of up to .+; an analytics value may be at most 1 MiB/;
  const DIGITS = /number of up to [\d,]+ digits; an analytics number may have at most 1,000\./;

  it.each([
    ['nested concat in WITH queries (the issue’s query)', nestedConcat(5, 8), VALUE],
    ['nested concat in WITH queries, narrow and deep', nestedConcat(13, 2), VALUE],
    [
      '|| in derived tables',
      'select length(s || s || s || s) from (select s || s || s || s as s from (select s || s || s || s as s from (select tags || tags || tags || tags as s from key_verifications_v1) a) b) c',
      VALUE,
    ],
    [
      'concat_ws with a separator built before',
      'with a as (select concat(tags, tags, tags, tags, tags, tags, tags, tags) as s from key_verifications_v1) select concat_ws(s, s, s) from a',
      VALUE,
    ],
    [
      'scalar subqueries',
      'with a as (select concat(tags, tags, tags, tags, tags, tags) as s from key_verifications_v1) select concat((select s from a), (select s from a), (select s from a), (select s from a), (select s from a))',
      VALUE,
    ],
    [
      'a LATERAL subquery',
      'select length(concat(x.s, x.s, x.s, x.s, x.s, x.s, x.s, x.s)) from key_verifications_v1 k, lateral (select concat(k.tags, k.tags, k.tags, k.tags) as s) x',
      VALUE,
    ],
    [
      'arrays of arrays',
      'with a as (select array[tags, tags, tags, tags, tags, tags, tags, tags] as t from key_verifications_v1), b as (select array[t, t, t, t] as t from a) select cardinality(array[t, t, t, t]) from b',
      VALUE,
    ],
    [
      'rows of rows',
      'with a as (select row(tags, tags, tags, tags, tags, tags, tags, tags) as r from key_verifications_v1), b as (select row(r, r, r, r) as r from a) select row(r, r, r, r) is null from b',
      VALUE,
    ],
    [
      'to_char with a format built before',
      'with a as (select concat(tags, tags, tags, tags) as f from key_verifications_v1) select to_char(now(), f) from a',
      VALUE,
    ],
    ["char(n)'s padding", "select 'x'::char(10000000)", VALUE],
    // 1e100000 is a single digit to PostgreSQL; adding 1 makes it 100,001 of them.
    ['a number written with a large exponent, added to', 'select 1e100000 + 1', DIGITS],
    ['a string cast to numeric, added to', "select '1e100000'::numeric + 1", DIGITS],
    [
      'text cast to numeric',
      'select external_id::numeric from key_verifications_v1',
      /Casting text to numeric here can make a number of up to 147,455 digits/,
    ],
    [
      'multiplications in WITH queries',
      'with a as (select sum(time)::numeric as x from key_verifications_v1), b as (select x * x * x * x as x from a), c as (select x * x * x * x as x from b) select x * x from c',
      DIGITS,
    ],
    ['division', "select '1e990'::numeric / '1e-990'::numeric", DIGITS],
    [
      'one row building much at once',
      `with a as (select concat(${Array(12).fill('tags').join(', ')}) as s from key_verifications_v1) select ${Array(70).fill('length(concat(s, s))').join(' + ')} from a`,
      /can build up to .+ of values for each row it reads; an analytics query may build at most 64 MiB per row/,
    ],
  ])('refuses %s', async (_name, query, reason) => {
    await expectRefused(query, 'invalid_analytics_query', reason);
  });

  it('refuses ARRAY(SELECT …), which gathers every row into one value', async () => {
    const error = await expectRefused(
      'select cardinality(array(select a.key_id from key_verifications_v1 a, key_verifications_v1 b))',
      'invalid_analytics_query',
      /ARRAY\(SELECT …\) is not allowed/,
    );
    expect(error.position?.column).toBe(20);
  });

  it('points at the call that grows too large', async () => {
    const error = await expectRefused(nestedConcat(5, 8), 'invalid_analytics_query', VALUE);
    expect(error.position?.column).toBe(nestedConcat(5, 8).lastIndexOf('concat(') + 1);
  });

  it.each([
    "select concat(key_id, '-', outcome), key_id || ':' || outcome, concat_ws(',', key_id, outcome) from key_verifications_v1",
    'select round(avg(latency)::numeric, 2), sum(spent_credits) * 100.0 / count(*) from key_verifications_v1',
    "select split_part(t, '=', 2)::numeric(20, 4) from key_verifications_v1, unnest(tags) as t",
    "select to_char(to_timestamp(time / 1000.0), 'YYYY-MM-DD HH24:MI'), upper(outcome) from key_verifications_v1",
    "with d as (select date_trunc('day', to_timestamp(time / 1000.0)) as day, count(*) as n from key_verifications_v1 group by 1) select day, n, n * 100.0 / sum(n) over () from d",
    'select array[key_id, outcome], row(key_id, outcome), tags || array[key_id] from key_verifications_v1',
    'select stddev(latency), variance(spent_credits), percentile_cont(0.99) within group (order by latency) from key_verifications_v1',
    nestedConcat(2, 8),
  ])('accepts %s', async (query) => {
    await compile(query);
  });

  it("reports the largest row of the result, from its columns' bounds", async () => {
    const compiled = await compile('select key_id, count(*) from key_verifications_v1 group by key_id');
    // key_id: 64 characters of up to 4 bytes; count: a bigint; and what a row takes beyond its values.
    expect(compiled.maxRowBytes).toBe(16 + (256 + 8) + (20 + 8));
  });
});
