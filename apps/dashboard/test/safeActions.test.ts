import { rows, sql } from '@keyplane/db';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumInstalled, collectPageErrors, keepScreenshot } from './browser.ts';
import {
  chooseRowAction,
  type Dashboard,
  DESKTOP,
  EXPECTED_FAILURES,
  type SeededWorkspace,
  seedRealisticData,
  signIn,
  startDashboard,
  unexpectedErrors,
} from './harness.ts';

// Destructive actions ask for what they take, sessions that end say why, pickers are the same everywhere
// and ask only for what the root key may read, and a page's tab survives Back and reload.
let dashboard: Dashboard;
let seeded: SeededWorkspace;
let page: Page;
const otherPageErrors: string[] = [];

const url = (path: string) => `${dashboard.server.url}/dashboard/${path}`;

/** A page of its own, signed in with a new root key holding `permissions` (and the right to sign in). */
async function signedInWith(permissions: string[], name = 'scoped'): Promise<{ page: Page; rootKeyId: string }> {
  const created = await dashboard.internal<{ key: string; rootKeyId: string }>('rootKeys.createRootKey', {
    name,
    permissions: ['workspace.*.manage_root_keys', ...permissions],
  });
  const context = await dashboard.browser.newContext({ viewport: DESKTOP });
  const other = await context.newPage();
  other.setDefaultTimeout(10_000);
  const errors = collectPageErrors(other);
  other.on('close', () => otherPageErrors.push(...errors.map((error) => `${name}: ${error}`)));
  // Signed in on the root keys screen, which every such key may read.
  await other.goto(url('root-keys'));
  await other.getByRole('button', { name: 'Sign in with a root key' }).click();
  await other.getByLabel('Root key').fill(created.key);
  await other.getByRole('button', { name: 'Sign in', exact: true }).click();
  await other.getByRole('navigation', { name: 'Main' }).waitFor();
  // Its list shown, so no request of the sign-in is still on its way: a test that ends the session
  // next knows its own next step is the first request the server refuses.
  await other.getByRole('row').filter({ hasText: name }).first().waitFor();
  return { page: other, rootKeyId: created.rootKeyId };
}

describe.skipIf(!chromiumInstalled)('safe destructive actions', () => {
  beforeAll(async () => {
    dashboard = await startDashboard(DESKTOP);
    seeded = await seedRealisticData(dashboard);
    page = dashboard.page;
    await signIn(dashboard);
  }, 120_000);

  afterAll(async () => {
    await dashboard?.stop();
  });

  it('deletes an API only once its name is typed, saying how many keys go with it', async () => {
    const doomed = seeded.apis[2] ?? { id: '', name: '', keyIds: [] };
    await page.goto(url(`apis/${doomed.id}`));
    await page.getByRole('button', { name: 'Delete API' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete API' });
    await dialog.getByText(`${doomed.keyIds.length} keys are deleted with it`).waitFor();
    const confirm = dialog.getByRole('button', { name: 'Delete API' });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel(`Type ${doomed.name} to confirm`).fill('internal-tool');
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel(`Type ${doomed.name} to confirm`).fill(doomed.name);
    await confirm.click();
    await page.getByRole('heading', { level: 1, name: 'APIs' }).waitFor();
    expect(await dashboard.v2Status('apis.getApi', { apiId: doomed.id })).toBe(404);
  });

  it('rerolls with a 24-hour grace period by default, explained, during which the old key still verifies', async () => {
    const apiId = seeded.apis[0]?.id ?? '';
    const old = await dashboard.v2<{ keyId: string; key: string }>('keys.createKey', { apiId, name: 'to-reroll' });
    await page.goto(url(`apis/${apiId}/keys/${old.keyId}`));
    await page.getByRole('button', { name: 'Reroll key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Reroll key' });
    const grace = dialog.getByLabel('The old key stops working');
    expect(await grace.locator('option:checked').textContent()).toBe('In 24 hours');
    expect(await grace.locator('option').allTextContents()).toEqual(['Now', 'In 1 hour', 'In 24 hours', 'In 7 days']);
    await dialog.getByText('until the time chosen both keys verify').waitFor();
    // Cutting the old key off at once is said to be what it is.
    await grace.selectOption({ label: 'Now' });
    await dialog.getByText('Requests with the old key fail from the moment you reroll').waitFor();
    await grace.selectOption({ label: 'In 24 hours' });
    const started = Date.now();
    await dialog.getByRole('button', { name: 'Reroll', exact: true }).click();
    await page.getByTestId('new-secret').waitFor();
    const rerolled = (await page.getByTestId('new-secret').textContent())?.trim() ?? '';
    expect(await dashboard.verify(rerolled)).toMatchObject({ valid: true });
    expect(await dashboard.verify(old.key)).toMatchObject({ valid: true });
    const { expires = 0 } = await dashboard.v2<{ expires?: number }>('keys.getKey', { keyId: old.keyId });
    expect(expires).toBeGreaterThanOrEqual(started + 86_400_000 - 60_000);
    // The server keeps expiry times to the minute.
    expect(expires).toBeLessThanOrEqual(Date.now() + 86_400_000 + 60_000);
  });

  it('says that revoking the root key you are signed in with ends your session, then says why on sign-in', async () => {
    const own = await signedInWith([], 'about-to-revoke-itself');
    await own.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Root keys' }).click();
    await chooseRowAction(own.page, 'about-to-revoke-itself', 'Revoke');
    const dialog = own.page.getByRole('dialog', { name: 'Revoke root key' });
    await dialog.getByText('You are signed in with this root key').waitFor();
    await dialog.getByText('Revoking it ends your session at once').waitFor();
    await dialog.getByRole('button', { name: 'Revoke root key' }).click();
    await own.page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    await own.page.getByText('the root key you signed in with was revoked').waitFor();
    const listed = await dashboard.internal<{ data: { rootKeyId: string; revokedAt: number | null }[] }>(
      'rootKeys.listRootKeys',
      undefined,
    );
    expect(listed.data.find((rootKey) => rootKey.rootKeyId === own.rootKeyId)?.revokedAt).not.toBeNull();
    await own.page.close();

    // Revoking another root key says nothing of the session.
    await dashboard.internal('rootKeys.createRootKey', { name: 'someone-else', permissions: ['api.*.read_api'] });
    await page.goto(url('root-keys'));
    await chooseRowAction(page, 'someone-else', 'Revoke');
    const other = page.getByRole('dialog', { name: 'Revoke root key' });
    await other.getByText('This cannot be undone').waitFor();
    expect(await other.getByText('You are signed in with this root key').count()).toBe(0);
    await other.getByRole('button', { name: 'Cancel' }).click();
  });

  it('tells on the sign-in page that a session expired or ended on the server', async () => {
    const ending = await signedInWith([], 'session-ends');
    await rows(
      dashboard.database.orm.em.fork(),
      sql`update dashboard_sessions s set expires_at = now() - interval '1 second'
          from root_keys r where r.id = s.root_key_id and r.name = 'session-ends'`,
    );
    await ending.page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Roles & permissions' })
      .click();
    await ending.page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    await ending.page.getByText('Your dashboard session has expired or ended').waitFor();
    await ending.page.close();

    const expiring = await signedInWith([], 'root-key-expires');
    await dashboard.internal('rootKeys.updateRootKey', { rootKeyId: expiring.rootKeyId, expires: Date.now() });
    await expiring.page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Roles & permissions' })
      .click();
    await expiring.page.getByText('the root key you signed in with has expired').waitFor();
    await expiring.page.close();
  });

  it('disables "Edit permissions" of a role, with the reason, unless both add and remove are granted', async () => {
    await dashboard.v2('permissions.createPermission', { name: 'Read invoices', slug: 'invoices.read' });
    await dashboard.v2('permissions.createRole', { name: 'billing', permissions: [] });
    const adder = await signedInWith(['rbac.*.read_role', 'rbac.*.read_permission', 'rbac.*.add_permission_to_role']);
    await adder.page.goto(url('roles'));
    await adder.page.getByRole('button', { name: 'Actions for role billing', exact: true }).click();
    const edit = adder.page.getByRole('menuitem', { name: /^Edit permissions/ });
    await edit.waitFor();
    expect(await edit.getAttribute('aria-disabled')).toBe('true');
    await edit.getByText('Your root key lacks rbac.*.remove_permission_from_role.').waitFor();
    await adder.page.keyboard.press('Escape');
    await adder.page.close();
  });

  it('gives roles the permission checklist that keys have, and lands on a created role or permission', async () => {
    await page.goto(url('roles'));
    const permissions = page.getByRole('region', { name: 'Permissions', exact: true });
    await permissions.getByRole('button', { name: 'Create permission' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Slug').fill('invoices.write');
    await dialog.getByLabel('Name', { exact: true }).fill('Write invoices');
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    // The list shows what was made: searched for it.
    await expect.poll(() => permissions.getByLabel('Search permissions').inputValue()).toBe('invoices.write');
    await expect.poll(() => permissions.getByRole('row').count()).toBe(2);

    const roles = page.getByRole('region', { name: 'Roles', exact: true });
    await roles.getByRole('button', { name: 'Create role' }).click();
    await dialog.getByLabel('Role name').fill('accountant');
    // No free text that would create permissions silently: the workspace's own, searched and checked.
    expect(await dialog.locator('textarea').count()).toBe(0);
    await dialog.getByLabel('Search permissions').fill('invoices');
    await dialog.getByLabel('invoices.read').check();
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    await expect.poll(() => roles.getByLabel('Search roles').inputValue()).toBe('accountant');
    const row = roles.getByRole('row').filter({ hasText: 'accountant' });
    await row.getByText('invoices.read').waitFor();
    await expect.poll(() => roles.getByRole('row').count()).toBe(2);

    await chooseRowAction(row, 'role accountant', 'Edit permissions');
    expect(await dialog.getByLabel('invoices.read').isChecked()).toBe(true);
    await dialog.getByLabel('invoices.write').check();
    await dialog.getByRole('button', { name: 'Save permissions' }).click();
    await row.getByText('invoices.write').waitFor();
    const role = await dashboard.v2<{ permissions: { slug: string }[] }>('permissions.getRole', { role: 'accountant' });
    expect(role.permissions.map(({ slug }) => slug).sort()).toEqual(['invoices.read', 'invoices.write']);
  });

  it('searches the root-key permission picker', async () => {
    await page.goto(url('root-keys'));
    await page.getByRole('button', { name: 'Create root key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create root key' });
    await dialog.getByLabel('api.*.read_api').waitFor();
    await dialog.getByLabel('Search permissions').fill('override');
    await expect.poll(() => dialog.getByLabel('api.*.read_api').count()).toBe(0);
    await dialog.getByLabel('ratelimit.*.set_override').waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  });

  it('checks override grants by the namespace id when its page is opened by name', async () => {
    const namespace = seeded.namespaces[1] ?? { id: '', name: '' };
    const other = seeded.namespaces[2] ?? { id: '', name: '' };
    const scoped = await signedInWith([
      `ratelimit.${namespace.id}.read_namespace`,
      `ratelimit.${namespace.id}.read_override`,
      `ratelimit.${namespace.id}.set_override`,
      `ratelimit.${other.id}.read_namespace`,
      `ratelimit.${other.id}.read_override`,
    ]);
    await scoped.page.goto(url(`ratelimits/${namespace.name}`));
    await scoped.page.getByRole('row').filter({ hasText: 'customer-01' }).waitFor();
    await expect.poll(() => scoped.page.getByRole('button', { name: 'Set override' }).isEnabled()).toBe(true);
    await scoped.page.goto(url(`ratelimits/${other.name}`));
    await scoped.page.getByRole('row').filter({ hasText: 'customer-01' }).waitFor();
    await scoped.page.getByText(`Your root key lacks ratelimit.${other.id}.set_override.`).first().waitFor();
    expect(await scoped.page.getByRole('button', { name: 'Set override' }).isDisabled()).toBe(true);
    await scoped.page.close();
  });

  it('disables saving an identity, with the reason, for a root key that may only read it', async () => {
    const reader = await signedInWith(['identity.*.read_identity']);
    const identity = seeded.identities[0] ?? { id: '', externalId: '' };
    await reader.page.goto(url(`identities/${identity.id}`));
    await reader.page.getByLabel('Meta (JSON object)').fill('{"plan": "free"}');
    expect(await reader.page.getByRole('button', { name: 'Save identity' }).isDisabled()).toBe(true);
    await reader.page.getByText('Your root key lacks identity.*.update_identity.').waitFor();
    await reader.page.close();
  });

  it('keeps the sign-in page saying why a session ended across a reload, until the next sign-in', async () => {
    const ended = await signedInWith([], 'revoked-then-reloaded');
    await dashboard.internal('rootKeys.revokeRootKey', { rootKeyId: ended.rootKeyId });
    await ended.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'APIs' }).click();
    const reason = ended.page.getByText('the root key you signed in with was revoked');
    await reason.waitFor();
    await ended.page.reload();
    await ended.page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    await reason.waitFor();
    // A sentence for people is kept, nothing secret.
    expect(await ended.page.evaluate(() => JSON.stringify({ ...sessionStorage }))).not.toMatch(
      /kproot_|keyplane_session/,
    );

    // Said once: the next sign-in clears it, and signing out later is not a session that "ended".
    await ended.page.getByRole('button', { name: 'Sign in with a root key' }).click();
    await ended.page.getByLabel('Root key').fill(dashboard.bootstrapKey);
    await ended.page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await ended.page.getByRole('navigation', { name: 'Main' }).waitFor();
    await ended.page.getByRole('button', { name: 'Sign out' }).click();
    await ended.page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    await ended.page.reload();
    await ended.page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    expect(await reason.count()).toBe(0);
    await ended.page.close();
  });

  it("offers the Usage key picker only for APIs whose keys the root key may read, saying why, and asks for no other API's keys", async () => {
    const [readable, unreadable] = seeded.apis;
    if (!readable || !unreadable) throw new Error('the seed made fewer than two APIs');
    const noKeys = await signedInWith(
      [`api.${unreadable.id}.read_api`, `api.${unreadable.id}.read_analytics`],
      'usage-without-read-key',
    );
    const keyListings: string[] = [];
    noKeys.page.on('request', (request) => {
      if (/apis\.listKeys(?!Page)/.test(request.url())) keyListings.push(request.url());
    });
    await noKeys.page.goto(url('usage'));
    await noKeys.page.getByLabel('API', { exact: true }).selectOption({ label: unreadable.name });
    await noKeys.page.getByText('Your root key lacks api.*.read_key.').waitFor();
    expect(await noKeys.page.getByLabel('Key', { exact: true }).isDisabled()).toBe(true);
    await noKeys.page.getByRole('img', { name: 'Verifications by outcome' }).waitFor();
    expect(await noKeys.page.getByRole('alert').count()).toBe(0);
    expect(keyListings).toEqual([]);
    await noKeys.page.close();

    // Reading the keys of one API but not of another: that one is offered, the other is named with the reason.
    const oneApi = await signedInWith(
      [
        `api.${readable.id}.read_api`,
        `api.${readable.id}.read_key`,
        `api.${unreadable.id}.read_api`,
        `api.${unreadable.id}.read_analytics`,
      ],
      'usage-with-one-read-key',
    );
    oneApi.page.on('request', (request) => {
      if (request.url().includes(unreadable.id) && /apis\.listKeys(?!Page)/.test(request.url())) {
        keyListings.push(request.url());
      }
    });
    await oneApi.page.goto(url('usage'));
    await oneApi.page
      .getByText(`Choose an API to pick one of its keys; not ${unreadable.name}, whose keys your root key may not read`)
      .waitFor();
    const api = oneApi.page.getByLabel('API', { exact: true });
    const key = oneApi.page.getByLabel('Key', { exact: true });
    await api.selectOption({ label: unreadable.name });
    await oneApi.page
      .getByText(`Your root key lacks api.${unreadable.id}.read_key. Keys of ${unreadable.name} cannot be picked.`)
      .waitFor();
    expect(await key.isDisabled()).toBe(true);
    await keepScreenshot(oneApi.page, '20-usage-key-picker-scoped');
    await api.selectOption({ label: readable.name });
    await expect.poll(() => key.locator('option').count()).toBeGreaterThan(1);
    expect(await key.isDisabled()).toBe(false);
    expect(await oneApi.page.getByRole('alert').count()).toBe(0);
    expect(keyListings).toEqual([]);
    await oneApi.page.close();
    const scopedErrors = otherPageErrors.filter((error) => error.startsWith('usage-'));
    expect(scopedErrors.filter((error) => !EXPECTED_FAILURES.some((expected) => error.includes(expected)))).toEqual([]);
  });

  it("keeps the API page's tab in the URL, so Back and reload return to it; Keys, the default, writes nothing", async () => {
    const api = seeded.apis[0] ?? { id: '', name: '', keyIds: [] };
    await page.goto(url(`apis/${api.id}`));
    const settingsTab = page.getByRole('tab', { name: 'Settings' });
    const keysTab = page.getByRole('tab', { name: 'Keys' });
    await page.getByRole('heading', { level: 1, name: api.name }).waitFor();
    expect(new URL(page.url()).search).toBe('');
    await settingsTab.click();
    await expect.poll(() => new URL(page.url()).searchParams.get('tab')).toBe('settings');
    await page.getByLabel('Default key prefix').waitFor();

    await page.reload();
    await page.getByLabel('Default key prefix').waitFor();
    expect(await settingsTab.getAttribute('aria-selected')).toBe('true');

    await page.getByRole('link', { name: 'APIs', exact: true }).first().click();
    await page.getByRole('heading', { level: 1, name: 'APIs' }).waitFor();
    await page.goBack();
    await page.getByLabel('Default key prefix').waitFor();
    await expect.poll(() => settingsTab.getAttribute('aria-selected')).toBe('true');

    await keysTab.click();
    await expect.poll(() => keysTab.getAttribute('aria-selected')).toBe('true');
    expect(new URL(page.url()).searchParams.has('tab')).toBe(false);
    expect(await page.getByLabel('Default key prefix').isVisible()).toBe(false);
    await page.goBack();
    await expect.poll(() => settingsTab.getAttribute('aria-selected')).toBe('true');
    expect(new URL(page.url()).searchParams.get('tab')).toBe('settings');
  });

  it('finds any API of a large workspace by search in the root-key dialog, beyond the first 100', async () => {
    for (let batch = 0; batch < 10; batch++) {
      await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          dashboard.v2('apis.createApi', { name: `bulk-api-${String(batch * 10 + index + 1).padStart(3, '0')}` }),
        ),
      );
    }
    const { apiId: lateId } = await dashboard.v2<{ apiId: string }>('apis.createApi', { name: 'zz-late-api' });
    await page.goto(url('root-keys'));
    await page.getByRole('button', { name: 'Create root key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create root key' });
    const which = dialog.getByLabel('Which APIs');
    await dialog.getByText('First 20 matches; type to narrow.').first().waitFor();
    await dialog.getByLabel('Search APIs').fill('late');
    await expect
      .poll(() => which.locator('option').allTextContents())
      .toEqual(['All APIs (*)', `zz-late-api (${lateId})`]);
    await which.selectOption({ label: `zz-late-api (${lateId})` });
    await dialog.getByLabel(`api.${lateId}.read_key`).check();
    await dialog.getByLabel('Name', { exact: true }).fill('reads-the-late-api');
    await keepScreenshot(page, '21-root-key-scope-search');
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByTestId('new-secret').waitFor();
    const listed = await dashboard.internal<{ data: { name: string | null; permissions: string[] }[] }>(
      'rootKeys.listRootKeys',
      undefined,
    );
    expect(listed.data.find((rootKey) => rootKey.name === 'reads-the-late-api')?.permissions).toEqual([
      `api.${lateId}.read_key`,
    ]);
  });

  it('reported no script errors', () => {
    expect(unexpectedErrors(dashboard)).toEqual([]);
    expect(otherPageErrors.filter((error) => !EXPECTED_FAILURES.some((expected) => error.includes(expected)))).toEqual(
      [],
    );
  });
});
