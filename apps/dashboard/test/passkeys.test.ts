import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createMembership, createUser, loadServerSecret, rows, sql } from '@keyplane/db';
import { type SessionCarrier, startPersonSession } from '@keyplane/procedures';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumInstalled, collectPageErrors, keepScreenshot } from './browser.ts';
import { type Dashboard, DESKTOP, EXPECTED_FAILURES, PHONE, sidewaysOverflow, startDashboard } from './harness.ts';

// A person adds a passkey in their settings through Chromium's virtual authenticator (CDP WebAuthn
// domain: a platform authenticator with resident keys that verifies its user), signs out, and signs
// in with it from the sign-in page; then renames and removes it. At desktop and phone width.
let dashboard: Dashboard;
let person: { userId: string; workspaceId: string };
const pageErrors: string[] = [];

/**
 * The dashboard at `localhost`, not 127.0.0.1: a passkey is bound to a host name (its relying party
 * id), which an IP address cannot be, and localhost is a secure context without TLS.
 */
const origin = () => dashboard.server.url.replace('127.0.0.1', 'localhost');
const url = (path: string) => `${origin()}/dashboard/${path}`;

/** A new session of the person, as its cookie value (what a password or invitation sign-in would set). */
async function sessionCookie(): Promise<string> {
  const em = dashboard.database.orm.em.fork();
  const services = {
    sessionSigningKey: await loadServerSecret(em, 'dashboard_session_signing', 32),
    now: () => Date.now(),
  };
  let cookie = '';
  const carrier: SessionCarrier = {
    presented: undefined,
    issue: (value) => {
      cookie = value;
    },
    clear: () => {},
  };
  await startPersonSession({ em, services }, carrier, person);
  return cookie;
}

/** A browser context at this viewport with a virtual authenticator, signed in as the person. */
async function signedInPage(
  viewport: { width: number; height: number },
  colorScheme: 'light' | 'dark' = 'light',
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await dashboard.browser.newContext({ viewport, colorScheme });
  await context.addCookies([{ name: 'keyplane_session', value: await sessionCookie(), url: origin() }]);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const errors = collectPageErrors(page);
  page.on('close', () => pageErrors.push(...errors));
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { context, page };
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's WCAG 2.x A and AA rules (contrast among them) on the page as it is: what fails, and where. */
async function accessibilityProblems(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: typeof import('axe-core') }).axe;
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] },
    });
    return result.violations.flatMap((violation) =>
      violation.nodes.map((node) => `${violation.id}: ${node.target.join(' ')}: ${node.failureSummary ?? ''}`),
    );
  });
}

const passkeyRows = (page: Page) => page.getByRole('list', { name: 'Your passkeys' }).getByRole('listitem');

async function addPasskey(page: Page, name: string): Promise<void> {
  await page.goto(url('account'));
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add a passkey' });
  await dialog.getByLabel('Name').fill(name);
  await dialog.getByRole('button', { name: 'Add passkey' }).click();
  await dialog.waitFor({ state: 'detached' });
  await expect.poll(() => passkeyRows(page).allTextContents()).toEqual([expect.stringContaining(name)]);
}

async function signOutAndInWithPasskey(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await page.getByRole('heading', { name: 'Sign in to Keyplane' }).waitFor();
  expect(await page.context().cookies()).toEqual([]);
  expect(await sidewaysOverflow(page)).toBe(0);
  expect(await accessibilityProblems(page)).toEqual([]);
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  // Signed in: the top bar (the navigation is behind a menu on a phone).
  await page.getByRole('button', { name: 'Sign out', exact: true }).waitFor();
}

describe.skipIf(!chromiumInstalled)('passkeys', () => {
  beforeAll(async () => {
    dashboard = await startDashboard(DESKTOP);
    const em = dashboard.database.orm.em.fork();
    const [workspace] = await rows<{ id: string }>(em, sql`select id from workspaces order by created_at limit 1`);
    if (!workspace) throw new Error('the server bootstrapped no workspace');
    const userId = await createUser(em, { email: 'pat@example.test', name: 'Pat Passkey', passwordHash: null });
    if (!userId) throw new Error('the account exists already');
    await createMembership(em, { workspaceId: workspace.id, userId, role: 'admin' });
    person = { userId, workspaceId: workspace.id };
  }, 120_000);

  afterAll(async () => {
    await dashboard?.stop();
  });

  it('adds a passkey, signs out, signs in with it, then renames and removes it (desktop)', async () => {
    const { context, page } = await signedInPage(DESKTOP);
    await addPasskey(page, 'Laptop');
    await expect.poll(() => passkeyRows(page).first().textContent()).toContain('last used never');
    await keepScreenshot(page, 'passkeys-desktop');
    expect(await accessibilityProblems(page)).toEqual([]);

    await signOutAndInWithPasskey(page);
    const [session] = await rows<{ user_id: string; workspace_id: string }>(
      dashboard.database.orm.em.fork(),
      sql`select user_id, workspace_id from user_sessions where revoked_at is null order by created_at desc limit 1`,
    );
    expect(session).toEqual({ user_id: person.userId, workspace_id: person.workspaceId });

    await page.goto(url('account'));
    await expect.poll(() => passkeyRows(page).first().textContent()).not.toContain('last used never');
    await page.getByRole('button', { name: 'Rename Laptop' }).click();
    const rename = page.getByRole('dialog', { name: 'Rename passkey' });
    await expect(rename.getByLabel('Name').inputValue()).resolves.toBe('Laptop');
    await rename.getByLabel('Name').fill('Work laptop');
    await rename.getByRole('button', { name: 'Rename' }).click();
    await expect.poll(() => passkeyRows(page).allTextContents()).toEqual([expect.stringContaining('Work laptop')]);

    await page.getByRole('button', { name: 'Remove Work laptop' }).click();
    const confirm = page.getByRole('dialog', { name: 'Remove this passkey?' });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => passkeyRows(page).count()).toBe(1);
    await page.getByRole('button', { name: 'Remove Work laptop' }).click();
    await confirm.getByRole('button', { name: 'Remove passkey' }).click();
    await page.getByText('You have no passkeys yet.').waitFor();

    // The authenticator still holds it, but the server no longer knows it: refused, and said so.
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.getByText('This passkey did not sign you in.').waitFor();
    await expect(page.getByRole('heading', { name: 'Sign in to Keyplane' }).isVisible()).resolves.toBe(true);
    await context.close();
  });

  it('does the same at phone width in the dark theme, with nothing scrolling sideways', async () => {
    const { context, page } = await signedInPage(PHONE, 'dark');
    await addPasskey(page, 'Phone');
    expect(await sidewaysOverflow(page)).toBe(0);
    await keepScreenshot(page, 'passkeys-phone');
    expect(await accessibilityProblems(page)).toEqual([]);
    await signOutAndInWithPasskey(page);
    expect(await sidewaysOverflow(page)).toBe(0);
    await page.goto(url('account'));
    await expect.poll(() => passkeyRows(page).first().textContent()).not.toContain('last used never');
    await context.close();
  });

  it('reported no script errors or failed requests beyond the refusals it caused', () => {
    expect(pageErrors.filter((error) => !EXPECTED_FAILURES.some((expected) => error.includes(expected)))).toEqual([]);
  });
});
