import { execFile } from 'node:child_process';
import { loadEnv } from '@keyplane/config';
import { rows, sql } from '@keyplane/db';
import { createTestDatabase, type TestDatabase } from '@keyplane/db/testing';
import {
  eventTransaction,
  type RatelimitEvent,
  ratelimitTable,
  type VerificationEvent,
  verificationTable,
} from '@keyplane/events';
import { writeEvents } from '@keyplane/events/testing';
import type { Browser, Locator, Page } from 'playwright-core';
import { inject, vi } from 'vitest';
import { type SpawnedServer, spawnServer } from '../../../bench/server.ts';
import { collectPageErrors, launchChromium } from './browser.ts';

/**
 * One dashboard under test: a real server process on a fresh database (which bootstraps a
 * workspace and prints its root key, as `npm start` does), Chromium, and the bootstrap root key's
 * calls a customer's backend would make. Each browser test file starts its own.
 */
export interface Dashboard {
  database: TestDatabase;
  server: SpawnedServer;
  browser: Browser;
  page: Page;
  /** Script errors and failed requests the page reported (see browser.ts). */
  pageErrors: string[];
  bootstrapKey: string;
  /** A /v2 call with the bootstrap root key, as a customer's backend would make it. */
  v2Response(procedure: string, body: unknown): Promise<Response>;
  v2<TData>(procedure: string, body: unknown): Promise<TData>;
  /** Only the HTTP status of a /v2 call, e.g. 404 once a thing is deleted. */
  v2Status(procedure: string, body: unknown): Promise<number>;
  /** An internal procedure at /trpc with the bootstrap root key. */
  internal<TData>(procedure: string, input: unknown): Promise<TData>;
  verify(key: string): Promise<{ valid: boolean; code: string }>;
  stop(): Promise<void>;
}

export const DESKTOP = { width: 1440, height: 900 };
export const PHONE = { width: 390, height: 844 };

export async function startDashboard(viewport = DESKTOP): Promise<Dashboard> {
  const database = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
  const { REDIS_URL } = loadEnv();
  const server = await spawnServer({ DATABASE_URL: database.url, ...(REDIS_URL ? { REDIS_URL } : {}) });
  if (!server.rootKey) throw new Error('the server did not print a bootstrap root key');
  const bootstrapKey = server.rootKey;
  const browser = await launchChromium();
  const page = await browser.newPage({ viewport });
  page.setDefaultTimeout(10_000);
  const pageErrors = collectPageErrors(page);

  const v2Response = (procedure: string, body: unknown) =>
    fetch(`${server.url}/v2/${procedure}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${bootstrapKey}` },
      body: JSON.stringify(body),
    });
  const v2 = async <TData>(procedure: string, body: unknown): Promise<TData> => {
    const response = await v2Response(procedure, body);
    const payload = (await response.json()) as { data: TData; error?: unknown };
    if (!response.ok) throw new Error(`${procedure} answered ${response.status}: ${JSON.stringify(payload.error)}`);
    return payload.data;
  };
  return {
    database,
    server,
    browser,
    page,
    pageErrors,
    bootstrapKey,
    v2Response,
    v2,
    async v2Status(procedure, body) {
      const response = await v2Response(procedure, body);
      await response.body?.cancel();
      return response.status;
    },
    async internal<TData>(procedure: string, input: unknown): Promise<TData> {
      const response = await fetch(`${server.url}/trpc/${procedure}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${bootstrapKey}` },
        body: JSON.stringify(input),
      });
      const payload = (await response.json()) as { result: { data: TData } };
      return payload.result.data;
    },
    verify: (key) => v2('keys.verifyKey', { key }),
    async stop() {
      await browser.close();
      await server.stop();
      await database.drop();
    },
  };
}

/** Signs the page in with the bootstrap root key and waits for the main navigation. */
export async function signIn(dashboard: Dashboard, page = dashboard.page): Promise<void> {
  await page.goto(`${dashboard.server.url}/dashboard/`);
  await page.getByLabel('Root key').fill(dashboard.bootstrapKey);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
}

/** Runs shell code as someone would paste it (bash), with these environment variables; its stdout, or a rejection. */
export function runShell(code: string, env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('/bin/bash', ['-c', code], { env, timeout: 10_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
    );
  });
}

/** Opens a row's action menu (its button is "Actions for <row>") and chooses an action in it. */
export async function chooseRowAction(scope: Page | Locator, row: string, action: string): Promise<void> {
  const page = 'page' in scope ? scope.page() : scope;
  const menuItem = page.getByRole('menuitem', { name: action });
  // A refetch that re-renders the row closes its open menu (the item is detached): open it again.
  await vi.waitFor(
    async () => {
      if (!(await menuItem.isVisible())) {
        await scope.getByRole('button', { name: `Actions for ${row}`, exact: true }).click({ timeout: 5_000 });
      }
      await menuItem.click({ timeout: 2_000 });
    },
    { timeout: 30_000, interval: 100 },
  );
}

/**
 * Requests the browser reports as failed on purpose in these tests (a simulated 502, going offline),
 * and the 429s the dashboard retries as they ask (analytics busy on a loaded machine).
 */
export const EXPECTED_FAILURES = ['401', 'status of 502', 'status of 429', 'ERR_INTERNET_DISCONNECTED'];

/** The page errors left once the expected HTTP statuses are set aside: a test expects none. */
export const unexpectedErrors = (dashboard: Dashboard) =>
  dashboard.pageErrors.filter((error) => !EXPECTED_FAILURES.some((expected) => error.includes(expected)));

/**
 * How each chart axis label is drawn against the same text laid out plainly: 1 when its glyphs keep
 * their shape, more or less when the chart stretches or squashes them. Labels of one character are
 * left out: their few pixels of width round differently in SVG and HTML by a few percent.
 */
export const axisLabelStretch = (page: Page) =>
  page.locator('.chart .axis-label').evaluateAll((labels) =>
    labels
      .filter((label) => label.getClientRects().length > 0 && (label.textContent ?? '').trim().length > 1)
      .map((label) => {
        const plain = document.createElement('span');
        plain.textContent = label.textContent;
        plain.style.font = getComputedStyle(label).font;
        plain.style.position = 'absolute';
        plain.style.whiteSpace = 'nowrap';
        document.body.append(plain);
        const ratio = label.getBoundingClientRect().width / plain.getBoundingClientRect().width;
        plain.remove();
        return Math.round(ratio * 100) / 100;
      }),
  );

/** How much wider the page, or an element, is than its box: 0 when nothing scrolls sideways. */
export const sidewaysOverflow = (target: Page | Locator) =>
  'goto' in target
    ? target.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
    : target.evaluate((element) => element.scrollWidth - element.clientWidth);

/** How a table row's cells are laid out: a cell laid out as anything but `table-cell` breaks the row's borders. */
export const cellDisplays = (row: Locator) =>
  row.locator('th, td').evaluateAll((cells) => [...new Set(cells.map((cell) => getComputedStyle(cell).display))]);

export interface SeededApi {
  id: string;
  name: string;
  keyIds: string[];
}

/** What `seedRealisticData` made, for tests to look for. */
export interface SeededWorkspace {
  workspaceId: string;
  apis: SeededApi[];
  /** Keys by the status the dashboard must show for them. */
  keysByStatus: { expired: string[]; disabled: string[]; outOfCredits: string[]; lowCredits: string[] };
  identities: { id: string; externalId: string }[];
  namespaces: { id: string; name: string }[];
  verificationEvents: number;
  ratelimitEvents: number;
}

const OUTCOMES = [
  ['VALID', 0.82],
  ['RATE_LIMITED', 0.07],
  ['USAGE_EXCEEDED', 0.04],
  ['INSUFFICIENT_PERMISSIONS', 0.03],
  ['DISABLED', 0.02],
  ['EXPIRED', 0.02],
] as const;

/** The outcome whose share of the traffic holds `point` (0 ≤ point < 1). */
function outcomeAt(point: number): string {
  let below = 0;
  for (const [outcome, share] of OUTCOMES) {
    below += share;
    if (point < below) return outcome;
  }
  return 'VALID';
}

/** A deterministic pseudo-random sequence, so a failing screenshot can be made again. */
function randomSequence(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

async function inBatches<T, R>(items: T[], size: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const done: R[] = [];
  for (let start = 0; start < items.length; start += size) {
    done.push(...(await Promise.all(items.slice(start, start + size).map(work))));
  }
  return done;
}

/**
 * A workspace as people have it after a while, made through the API as a customer's backend would:
 * three APIs with `keysPerApi` keys each (some expired, disabled, out of or low on credits, with
 * limits and meta), a dozen identities owning keys, three rate-limit namespaces with overrides, and
 * an hour of verifications and rate-limit decisions written straight into the event tables with
 * their times spread over the last hour (traffic cannot be replayed into the past).
 */
export async function seedRealisticData(dashboard: Dashboard, keysPerApi = 100): Promise<SeededWorkspace> {
  const { v2 } = dashboard;
  const random = randomSequence(42);
  const [workspace] = await rows<{ id: string }>(
    dashboard.database.orm.em.fork(),
    sql`select id from workspaces order by created_at limit 1`,
  );
  if (!workspace) throw new Error('the server bootstrapped no workspace');
  const workspaceId = workspace.id;
  const identities = await inBatches(
    Array.from({ length: 12 }, (_, index) => `customer-${String(index + 1).padStart(2, '0')}`),
    6,
    async (externalId) => {
      const { identityId } = await v2<{ identityId: string }>('identities.createIdentity', {
        externalId,
        meta: { plan: ['free', 'pro', 'enterprise'][externalId.length % 3] },
      });
      return { id: identityId, externalId };
    },
  );
  const keysByStatus: SeededWorkspace['keysByStatus'] = { expired: [], disabled: [], outOfCredits: [], lowCredits: [] };
  const apis: SeededApi[] = [];
  for (const name of ['payments-api', 'search-api', 'internal-tools']) {
    const { apiId } = await v2<{ apiId: string }>('apis.createApi', { name });
    const keyIds = await inBatches(
      Array.from({ length: keysPerApi }, (_, index) => index),
      20,
      async (index) => {
        const kind = index % 10;
        const body: Record<string, unknown> = {
          apiId,
          name: `${name.split('-')[0]}-key-${String(index + 1).padStart(3, '0')}`,
          prefix: name === 'payments-api' ? 'pay' : undefined,
          meta: { team: ['growth', 'platform', 'billing'][index % 3] },
        };
        if (index % 4 === 0) body.externalId = identities[index % identities.length]?.externalId;
        if (kind === 1) body.expires = Date.now() + 1500;
        if (kind === 2) body.enabled = false;
        if (kind === 3) body.credits = { remaining: 0 };
        if (kind === 4) body.credits = { remaining: 3, refill: { interval: 'daily', amount: 1000 } };
        if (kind === 5) body.credits = { remaining: 5000 };
        if (kind === 6) body.ratelimits = [{ name: 'requests', limit: 100, duration: 60_000, autoApply: true }];
        const { keyId } = await v2<{ keyId: string }>('keys.createKey', body);
        if (kind === 1) keysByStatus.expired.push(keyId);
        if (kind === 2) keysByStatus.disabled.push(keyId);
        if (kind === 3) keysByStatus.outOfCredits.push(keyId);
        if (kind === 4) keysByStatus.lowCredits.push(keyId);
        return keyId;
      },
    );
    apis.push({ id: apiId, name, keyIds });
  }
  const namespaces: SeededWorkspace['namespaces'] = [];
  for (const name of ['api.requests', 'uploads', 'login-attempts']) {
    const { namespaceId } = await dashboard.internal<{ namespaceId: string }>('ratelimit.createNamespace', { name });
    namespaces.push({ id: namespaceId, name });
    for (const identifier of ['customer-01', 'customer-02']) {
      await v2('ratelimit.setOverride', { namespace: name, identifier, limit: 1000, duration: 60_000 });
    }
  }

  // An hour of traffic, a little busier in the last quarter, as a product's traffic grows.
  const now = Date.now();
  const verifications: VerificationEvent[] = [];
  const decisions: RatelimitEvent[] = [];
  for (let index = 0; index < 4000; index++) {
    const age = 3_600_000 * random() ** 1.3;
    const api = apis[Math.floor(random() * apis.length)] as SeededApi;
    const keyId = api.keyIds[Math.floor(random() * api.keyIds.length)] as string;
    const outcome = outcomeAt(random());
    verifications.push({
      time: now - age,
      requestId: `req_seed${index}`,
      workspaceId,
      apiId: api.id,
      keyId,
      identityId: null,
      externalId: null,
      outcome,
      tags: random() < 0.3 ? ['path=/v1/charges', 'region=eu'] : [],
      spentCredits: outcome === 'VALID' ? 1 : 0,
      latencyMs: 1 + random() * 4,
    });
    if (index % 2 === 0) {
      const namespace = namespaces[index % namespaces.length] as { id: string };
      const passed = random() > 0.1;
      decisions.push({
        time: now - age,
        requestId: `req_seedrl${index}`,
        workspaceId,
        namespaceId: namespace.id,
        identifier: identities[index % identities.length]?.externalId ?? 'anonymous',
        passed,
        limit: 100,
        remaining: passed ? Math.floor(random() * 100) : 0,
        overrideId: null,
        latencyMs: 1 + random() * 2,
      });
    }
  }
  await eventTransaction(dashboard.database.orm, async (tx) => {
    await writeEvents(tx, verificationTable, verifications);
    await writeEvents(tx, ratelimitTable, decisions);
  });
  return {
    workspaceId,
    apis,
    keysByStatus,
    identities,
    namespaces,
    verificationEvents: verifications.length,
    ratelimitEvents: decisions.length,
  };
}

/** What `seedReviewWorkspace` made, for tests to look for. */
export interface ReviewWorkspace {
  workspaceId: string;
  apis: SeededApi[];
  identities: { id: string; externalId: string }[];
  /** Refused by its own rate limit on 87% of its calls in the last hour. */
  rateLimitedKey: { keyId: string; apiId: string; name: string };
  /** Expires in three days. */
  expiringKey: { keyId: string; apiId: string; name: string };
  /** Holds more credits than fit in 15 digits. */
  richKey: { keyId: string; apiId: string; name: string; remaining: number };
  verificationEvents: number;
}

const REVIEW_APIS = [
  ['payments-api', 80],
  ['search-api', 60],
  ['internal-tools', 40],
  ['partner-api', 26],
] as const;

const REVIEW_TAGS = ['path=/v1/charges', 'path=/v1/refunds', 'path=/v1/search', 'region=eu', 'region=us', 'plan=pro'];

/**
 * The workspace the dashboard was reviewed with: 4 APIs, 206 keys in every state (expired, expiring
 * soon, disabled, out of credits, low on credits, rate limited, a huge balance, long names), 61
 * identities owning keys, and a month of traffic written straight into the event tables: most of
 * it valid, some of every failure, tagged, by identity, and one key refused by its rate limit on
 * 87% of its last hour's calls.
 */
export async function seedReviewWorkspace(dashboard: Dashboard): Promise<ReviewWorkspace> {
  const { v2 } = dashboard;
  const random = randomSequence(7);
  const [workspace] = await rows<{ id: string }>(
    dashboard.database.orm.em.fork(),
    sql`select id from workspaces order by created_at limit 1`,
  );
  if (!workspace) throw new Error('the server bootstrapped no workspace');
  const workspaceId = workspace.id;
  const identities = await inBatches(
    Array.from({ length: 61 }, (_, index) => `customer-${String(index + 1).padStart(2, '0')}`),
    20,
    async (externalId) => {
      const { identityId } = await v2<{ identityId: string }>('identities.createIdentity', { externalId });
      return { id: identityId, externalId };
    },
  );
  const apis: SeededApi[] = [];
  /** Each key's owner, for the events. */
  const owners = new Map<string, { id: string; externalId: string }>();
  const special: Partial<Pick<ReviewWorkspace, 'rateLimitedKey' | 'expiringKey' | 'richKey'>> = {};
  for (const [name, count] of REVIEW_APIS) {
    const { apiId } = await v2<{ apiId: string }>('apis.createApi', { name });
    const prefix = name.split('-')[0] ?? name;
    const keyIds = await inBatches(
      Array.from({ length: count }, (_, index) => index),
      20,
      async (index) => {
        const kind = index % 10;
        // A few names as long as people make them.
        const keyName =
          index % 17 === 5
            ? `${prefix}-production-backend-service-${String(index + 1).padStart(3, '0')}`
            : `${prefix}-key-${String(index + 1).padStart(3, '0')}`;
        const owner = index % 3 === 0 ? identities[(index * 7) % identities.length] : undefined;
        const body: Record<string, unknown> = {
          apiId,
          name: keyName,
          prefix: name === 'payments-api' ? 'pay' : undefined,
          meta: { team: ['growth', 'platform', 'billing'][index % 3] },
          externalId: owner?.externalId,
        };
        if (kind === 1) body.expires = Date.now() + 1500;
        if (kind === 2) body.enabled = false;
        if (kind === 3) body.credits = { remaining: 0 };
        if (kind === 4) body.credits = { remaining: 3, refill: { interval: 'daily', amount: 1000 } };
        if (kind === 5)
          body.credits = { remaining: 5000, refill: { interval: 'monthly', amount: 10_000, refillDay: 1 } };
        if (kind === 6) {
          body.ratelimits = [{ name: 'requests', limit: 10, duration: 60_000, autoApply: true }];
        }
        if (kind === 7) body.expires = Date.now() + 3 * 86_400_000;
        if (index === 8) body.credits = { remaining: 9_007_199_234_740_991 };
        const { keyId } = await v2<{ keyId: string }>('keys.createKey', body);
        if (owner) owners.set(keyId, owner);
        if (name === 'payments-api' && index === 16) special.rateLimitedKey = { keyId, apiId, name: keyName };
        if (name === 'payments-api' && index === 7) special.expiringKey = { keyId, apiId, name: keyName };
        if (name === 'payments-api' && index === 8) {
          special.richKey = { keyId, apiId, name: keyName, remaining: 9_007_199_234_740_991 };
        }
        return keyId;
      },
    );
    apis.push({ id: apiId, name, keyIds });
  }
  const { rateLimitedKey, expiringKey, richKey } = special;
  if (!rateLimitedKey || !expiringKey || !richKey)
    throw new Error('the seed made no rate-limited, expiring or rich key');

  // A month of traffic, busier lately; and the rate-limited key's last hour, 87% refused.
  const now = Date.now();
  const verifications: VerificationEvent[] = [];
  const event = (time: number, api: SeededApi, keyId: string, outcome: string, index: number): VerificationEvent => {
    const owner = owners.get(keyId);
    return {
      time,
      requestId: `req_review${index}`,
      workspaceId,
      apiId: api.id,
      keyId,
      identityId: owner?.id ?? null,
      externalId: owner?.externalId ?? null,
      outcome,
      tags:
        random() < 0.6
          ? [REVIEW_TAGS[Math.floor(random() * 3)] ?? '', REVIEW_TAGS[3 + Math.floor(random() * 3)] ?? '']
          : [],
      spentCredits: outcome === 'VALID' ? 1 : 0,
      latencyMs: 1 + random() * 4,
    };
  };
  for (let index = 0; index < 12_000; index++) {
    const age = 30 * 86_400_000 * random() ** 1.6;
    const api = apis[Math.floor(random() * apis.length)] as SeededApi;
    const keyId = api.keyIds[Math.floor(random() * api.keyIds.length)] as string;
    verifications.push(event(now - age, api, keyId, outcomeAt(random()), index));
  }
  const payments = apis[0] as SeededApi;
  for (let index = 0; index < 300; index++) {
    const outcome = index % 100 < 87 ? 'RATE_LIMITED' : 'VALID';
    verifications.push(event(now - 3_500_000 * random(), payments, rateLimitedKey.keyId, outcome, 20_000 + index));
  }
  await eventTransaction(dashboard.database.orm, (tx) => writeEvents(tx, verificationTable, verifications));
  return {
    workspaceId,
    apis,
    identities,
    rateLimitedKey,
    expiringKey,
    richKey,
    verificationEvents: verifications.length,
  };
}
