import { DEFAULT_ANALYTICS_CONNECTIONS } from '@keyplane/analytics';
import { rows, sql } from '@keyplane/db';
import { describe, expect, it } from 'vitest';
import { type Answer, answerTo, useTenants } from './tenants.ts';

// One workspace keeps a node's analytics connections busy with query after query that runs to its
// timeout; another workspace's small queries take their turns between them and are all answered,
// none refused as busy (docs/contract.md#analytics). A run time of 1 s instead of 5 s keeps the
// test short: the turns are the same, only shorter.

const RUN_TIME_MS = 1_000;
const tenants = useTenants({ env: { ANALYTICS_QUERY_TIMEOUT_MS: String(RUN_TIME_MS) } });

/** Twenty copies of the attacker's rows joined: never done in time. */
const ENDLESS = `select count(*) from ${Array.from({ length: 20 }, (_, i) => `key_verifications_v1 t${i}`).join(', ')}`;
/** The attacker's queries at once, as many as a workspace may run at once by default. */
const LOOPS = 2;
const SMALL_QUERIES = 6;

describe("a workspace's stream of queries running to the timeout", () => {
  it(`lets another workspace's ${SMALL_QUERIES} small queries through on ${DEFAULT_ANALYTICS_CONNECTIONS} connection`, async () => {
    const { server, attacker, victim } = tenants;
    let stopping = false;
    const attackerAnswers: Answer[] = [];
    const loops = Array.from({ length: LOOPS }, async () => {
      while (!stopping) {
        attackerAnswers.push(await answerTo(server, 'analytics.getVerifications', ENDLESS, attacker.rootKey));
      }
    });
    // The attacker's queries hold the connection, and more of them wait.
    const em = server.database.orm.em.fork();
    const running = sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
      where datname = current_database() and application_name = 'keyplane_analytics' and state = 'active'`;
    while ((await rows(em, running))[0]?.n !== 1) await new Promise((resolve) => setTimeout(resolve, 10));
    const small: Answer[] = [];
    try {
      for (let i = 0; i < SMALL_QUERIES; i++) {
        small.push(await answerTo(server, 'analytics.getVerifications', `select ${i} as n`, victim.rootKey));
      }
    } finally {
      stopping = true;
      await Promise.all(loops);
    }
    expect(small).toEqual(Array.from({ length: SMALL_QUERIES }, (_, n) => ({ status: 200, data: [{ n }] })));
    // The attacker's queries ran meanwhile, each to its timeout: it took its turns too.
    expect(attackerAnswers.filter((answer) => answer.status === 422).length).toBeGreaterThanOrEqual(SMALL_QUERIES / 2);
    expect(attackerAnswers.filter((answer) => answer.status !== 422 && answer.status !== 429)).toEqual([]);
  }, 120_000);
});
