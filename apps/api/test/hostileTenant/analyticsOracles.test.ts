import { beforeAll, describe, expect, it } from 'vitest';
import { type Answer, ATTACKER, answerTo, useTenants, VICTIM } from './tenants.ts';

// Oracle queries: a caller's condition that raises an error, or not, depending on a row it must not
// see. Each query runs with and without the victim's rows (another workspace's, and the attacker's
// own API and namespace its root key is not allowed to read); the answers must be the same, down to
// the error's type and detail: no bit of a hidden row may reach the caller (docs/contract.md#analytics).

const tenants = useTenants();

type Procedure = 'analytics.getVerifications' | 'analytics.getRatelimits';

interface Oracle {
  name: string;
  procedure: Procedure;
  query: string;
  /** A root key limited to the attacker's first API or namespace, instead of the whole workspace's. */
  limited?: boolean;
}

/** A condition true on the hidden rows only, in the forms a caller would try. */
const CONDITIONS: Record<string, (column: string, secret: string) => string> = {
  'any(array)': (column, secret) => `${column} = any(array['${secret}'])`,
  'like any(array)': (column, secret) => `${column} like any(array['${secret.slice(0, 8)}%'])`,
  equality: (column, secret) => `${column} = '${secret}'`,
};

/** An expression that raises an error exactly when `condition` holds on the row it is evaluated on. */
const TRIGGERS: Record<string, (condition: string, column: string) => string> = {
  'array dimensions': (condition, column) =>
    `case when ${condition} then array[array[${column}], array[${column}, ${column}]] is null else false end`,
  'array subscript': (condition, column) =>
    `case when ${condition} then (array[array[${column}], array[${column}, ${column}]])[1][1] = 'x' else false end`,
  cast: (condition, column) => `case when ${condition} then ${column}::int = 1 else false end`,
  'division by zero': (condition, column) =>
    `case when ${condition} then 1 / (length(${column}) - length(${column})) = 1 else false end`,
  regex: (condition, column) => `${column} ~ case when ${condition} then '(' else 'x' end`,
};

/** Every public table and its columns holding something of the hidden rows. */
const SECRET_COLUMNS: Array<{ procedure: Procedure; table: string; columns: Record<string, string> }> = [
  {
    procedure: 'analytics.getVerifications',
    table: 'key_verifications_v1',
    columns: {
      external_id: VICTIM.externalId,
      key_id: VICTIM.keyId,
      identity_id: VICTIM.identityId,
      api_id: VICTIM.apiId,
      request_id: VICTIM.requestId,
    },
  },
  ...['minute', 'hour', 'day', 'month'].map((granularity) => ({
    procedure: 'analytics.getVerifications' as const,
    table: `key_verifications_per_${granularity}_v1`,
    columns: {
      external_id: VICTIM.externalId,
      key_id: VICTIM.keyId,
      identity_id: VICTIM.identityId,
      api_id: VICTIM.apiId,
    },
  })),
  {
    procedure: 'analytics.getRatelimits',
    table: 'ratelimits_v1',
    columns: { identifier: VICTIM.identifier, namespace_id: VICTIM.namespaceId, request_id: VICTIM.requestId },
  },
  ...['minute', 'hour', 'day', 'month'].map((granularity) => ({
    procedure: 'analytics.getRatelimits' as const,
    table: `ratelimits_per_${granularity}_v1`,
    columns: { identifier: VICTIM.identifier, namespace_id: VICTIM.namespaceId },
  })),
];

function oracles(): Oracle[] {
  const found: Oracle[] = [];
  const arrayDimensions = TRIGGERS['array dimensions'] as NonNullable<(typeof TRIGGERS)[string]>;
  const anyArray = CONDITIONS['any(array)'] as NonNullable<(typeof CONDITIONS)[string]>;

  // Every kind of error, behind every kind of condition (the issue's query is one of them).
  for (const [triggerName, trigger] of Object.entries(TRIGGERS)) {
    for (const [conditionName, condition] of Object.entries(CONDITIONS)) {
      found.push({
        name: `${triggerName} when ${conditionName} holds`,
        procedure: 'analytics.getVerifications',
        query: `select count(*) from key_verifications_v1 where ${trigger(condition('external_id', VICTIM.externalId), 'external_id')}`,
      });
    }
  }

  // Every hidden value of every table, raw and rollup.
  for (const { procedure, table, columns } of SECRET_COLUMNS) {
    for (const [column, secret] of Object.entries(columns)) {
      found.push({
        name: `${table}.${column}`,
        procedure,
        query: `select count(*) from ${table} where ${arrayDimensions(anyArray(column, secret), column)}`,
      });
      found.push({
        name: `${table}.${column} through an index on it`,
        procedure,
        query: `select count(*) from ${table} where ${column} = '${secret}' and array[array[${column}], array[${column}, ${column}]] is null`,
      });
    }
  }
  found.push({
    name: 'key_verifications_v1.tags',
    procedure: 'analytics.getVerifications',
    query: `select count(*) from key_verifications_v1 where ${arrayDimensions(`tags @> array['${VICTIM.tag}']`, 'key_id')}`,
  });
  found.push({
    name: 'key_verifications_v1.workspace_id',
    procedure: 'analytics.getVerifications',
    query: `select count(*) from key_verifications_v1 where ${arrayDimensions('workspace_id <> (select min(workspace_id) from key_verifications_v1)', 'key_id')}`,
  });

  // Every place a condition can stand, in both datasets; `test(prefix)` is the condition on the
  // column qualified by that prefix.
  type Place = (table: string, column: string, test: (prefix: string) => string) => string;
  const places: Array<[string, Place]> = [
    [
      'WHERE of a join',
      (table, _column, test) => `select count(*) from ${table} a join ${table} b using (time) where ${test('b.')}`,
    ],
    ['JOIN … ON', (table, _column, test) => `select count(*) from ${table} a join ${table} b on ${test('b.')}`],
    [
      'LEFT JOIN … ON',
      (table, _column, test) => `select count(b.time) from ${table} a left join ${table} b on ${test('b.')}`,
    ],
    ['EXISTS', (table, _column, test) => `select exists (select 1 from ${table} where ${test('')})`],
    [
      'IN (subquery)',
      (table, _column, test) =>
        `select count(*) from ${table} where time in (select time from ${table} where ${test('')})`,
    ],
    ['scalar subquery', (table, _column, test) => `select (select count(*) from ${table} where ${test('')})`],
    ['WITH', (table, _column, test) => `with x as (select * from ${table}) select count(*) from x where ${test('')}`],
    [
      'WITH … MATERIALIZED',
      (table, _column, test) =>
        `with x as materialized (select * from ${table}) select count(*) from x where ${test('')}`,
    ],
    ['derived table', (table, _column, test) => `select count(*) from (select * from ${table}) s where ${test('s.')}`],
    ['HAVING', (table, column, test) => `select count(*) from ${table} group by ${column} having ${test('')}`],
    [
      'UNION',
      (table, _column, test) =>
        `select count(*) from (select time from ${table} where ${test('')} union all select 1) u`,
    ],
    ['FILTER', (table, _column, test) => `select count(*) filter (where ${test('')}) from ${table}`],
    [
      'a computed column filtered outside',
      (table, _column, test) => `select count(*) from (select ${test('')} as hit from ${table}) s where hit`,
    ],
  ];
  const tests: Array<[Procedure, string, string, string]> = [
    ['analytics.getVerifications', 'key_verifications_v1', 'external_id', VICTIM.externalId],
    ['analytics.getVerifications', 'key_verifications_per_day_v1', 'key_id', VICTIM.keyId],
    ['analytics.getRatelimits', 'ratelimits_v1', 'identifier', VICTIM.identifier],
    ['analytics.getRatelimits', 'ratelimits_per_hour_v1', 'identifier', VICTIM.identifier],
  ];
  for (const [placeName, place] of places) {
    for (const [procedure, table, column, secret] of tests) {
      found.push({
        name: `${placeName} over ${table}.${column}`,
        procedure,
        query: place(table, column, (prefix) =>
          arrayDimensions(anyArray(`${prefix}${column}`, secret), `${prefix}${column}`),
        ),
      });
    }
  }

  // A root key limited to the attacker's first API or namespace: its other one is as hidden.
  for (const [procedure, table, column] of [
    ['analytics.getVerifications', 'key_verifications_v1', 'key_id'],
    ['analytics.getVerifications', 'key_verifications_per_minute_v1', 'key_id'],
    ['analytics.getRatelimits', 'ratelimits_v1', 'identifier'],
    ['analytics.getRatelimits', 'ratelimits_per_month_v1', 'identifier'],
  ] as const) {
    const secret = column === 'key_id' ? VICTIM.keyId : VICTIM.identifier;
    found.push({
      name: `${table}.${column} of a hidden API or namespace of the own workspace`,
      procedure,
      limited: true,
      query: `select count(*) from ${table} where ${arrayDimensions(anyArray(column, secret), column)}`,
    });
  }
  return found;
}

const ORACLES = oracles();

const without = new Map<string, Answer>();
const withHidden = new Map<string, Answer>();

beforeAll(async () => {
  const limitedKeys = {
    'analytics.getVerifications': await tenants.attackerKeyWith([`api.${ATTACKER.apiId}.read_analytics`]),
    'analytics.getRatelimits': await tenants.attackerKeyWith([`ratelimit.${ATTACKER.namespaceId}.read_analytics`]),
  };
  const ask = (oracle: Oracle) =>
    answerTo(
      tenants.server,
      oracle.procedure,
      oracle.query,
      oracle.limited ? limitedKeys[oracle.procedure] : tenants.attacker.rootKey,
    );
  for (const oracle of ORACLES) without.set(oracle.name, await ask(oracle));
  const inOtherWorkspace = ORACLES.filter((oracle) => !oracle.limited);
  await tenants.withVictimRows('other workspace', async () => {
    for (const oracle of inOtherWorkspace) withHidden.set(oracle.name, await ask(oracle));
  });
  const inHiddenApi = ORACLES.filter((oracle) => oracle.limited);
  await tenants.withVictimRows('hidden API', async () => {
    for (const oracle of inHiddenApi) withHidden.set(oracle.name, await ask(oracle));
  });
}, 120_000);

describe('an analytics query answers the same with and without rows it may not read', () => {
  it.each(ORACLES.map((oracle) => [oracle.name, oracle] as const))('%s', (name, oracle) => {
    const answer = without.get(name);
    expect(answer?.status, `${oracle.query}: ${JSON.stringify(answer)}`).not.toBe(500);
    expect(withHidden.get(name), oracle.query).toEqual(answer);
  });

  it('and the attacker does see its own rows, so the queries read something', async () => {
    const own = await answerTo(
      tenants.server,
      'analytics.getVerifications',
      "select count(*) as n from key_verifications_v1 where external_id = any(array['cust_A'])",
      tenants.attacker.rootKey,
    );
    expect(own).toEqual({ status: 200, data: [{ n: 3 }] });
  });
});
