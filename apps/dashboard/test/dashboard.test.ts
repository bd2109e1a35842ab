import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SpawnedServer } from '../../../bench/server.ts';
import { chromiumInstalled, collectPageErrors, keepScreenshot } from './browser.ts';
import {
  axisLabelStretch,
  cellDisplays,
  chooseRowAction,
  type Dashboard,
  EXPECTED_FAILURES,
  runShell,
  sidewaysOverflow,
  startDashboard,
  unexpectedErrors,
} from './harness.ts';

// The dashboard end to end, one step after another as a new user takes them (harness.ts).
let dashboard: Dashboard;
let server: SpawnedServer;
let browser: Browser;
let page: Page;
let bootstrapKey: string;
const state: { apiId?: string; key?: string; keyPage?: string } = {};

const v2 = <TData>(procedure: string, body: unknown) => dashboard.v2<TData>(procedure, body);
const v2Status = (procedure: string, body: unknown) => dashboard.v2Status(procedure, body);
const internal = <TData>(procedure: string, input: unknown) => dashboard.internal<TData>(procedure, input);
const verify = (key: string) => dashboard.verify(key);
/** A screen's link in the main navigation (other links may share its name: "Root keys" in the guide). */
const nav = (name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });

// Without Chromium the browser steps are skipped, never failed: CI installs it and fails on any skip.
describe.skipIf(!chromiumInstalled)('the dashboard in Chromium', () => {
  beforeAll(async () => {
    dashboard = await startDashboard({ width: 1280, height: 800 });
    ({ server, browser, page, bootstrapKey } = dashboard);
  });

  afterAll(async () => {
    await dashboard?.stop();
  });

  it('signs in with the bootstrap root key; the browser keeps only an HTTP-only session cookie', async () => {
    await page.goto(`${server.url}/dashboard/`);
    await expect.poll(() => page.title()).toBe('Sign in · Keyplane');
    // The break-glass path, behind email and password: where a root key comes from, for someone who has none yet.
    await page.getByRole('button', { name: 'Sign in with a root key' }).click();
    await page.getByText('Where do I get a root key?').waitFor();
    await page.getByText('prints a root key with every permission once, in its log').waitFor();
    await page.getByText('root-keys create --workspace WORKSPACE_ID').waitFor();
    await page.getByLabel('Root key').fill(bootstrapKey);
    await keepScreenshot(page, '01-sign-in');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    const cookies = await page.context().cookies();
    expect(cookies.map(({ name, httpOnly, sameSite }) => ({ name, httpOnly, sameSite }))).toEqual([
      { name: 'keyplane_session', httpOnly: true, sameSite: 'Strict' },
    ]);
    expect(JSON.stringify(cookies)).not.toContain(bootstrapKey);
    expect(await page.evaluate(() => document.cookie)).toBe('');
    expect(await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }))).not.toContain(
      bootstrapKey,
    );
  });

  it('greets an empty workspace with the first-run guide: an API, a key, then verifying it', async () => {
    await page.getByRole('heading', { level: 1, name: 'APIs' }).waitFor();
    const guide = page.getByRole('region', { name: 'Get started with Keyplane' });
    await guide.getByRole('heading', { name: 'Create an API' }).waitFor();
    await guide.getByRole('heading', { name: 'Verify it from your backend' }).waitFor();
    expect(await guide.getByRole('button', { name: 'Create API' }).isEnabled()).toBe(true);
    // Nothing is done yet.
    expect(await guide.locator('.step[data-done="true"]').count()).toBe(0);
    await keepScreenshot(page, '01b-first-run');
  });

  it('creates a root key and shows it exactly once', async () => {
    await nav('Root keys').click();
    await page.getByRole('button', { name: 'Create root key' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name', { exact: true }).fill('e2e-admin');
    await dialog.getByLabel('api.*.create_api').check();
    await dialog.getByLabel('api.*.read_api').check();
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    const secret = page.getByTestId('new-secret');
    await secret.waitFor();
    await expect.poll(() => page.getByText('You will not see it again').count()).toBeGreaterThan(0);
    await keepScreenshot(page, '02-root-key-created');
    const rootKey = (await secret.textContent())?.trim() ?? '';
    expect(rootKey).toMatch(/^kproot_/);
    // The new key works, with exactly what was picked.
    const created = await fetch(`${server.url}/v2/apis.createApi`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${rootKey}` },
      body: JSON.stringify({ name: 'made-by-e2e-admin' }),
    });
    expect(created.status).toBe(200);
    await page.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => page.getByTestId('new-secret').count()).toBe(0);
    await expect.poll(() => page.getByRole('cell', { name: 'e2e-admin' }).count()).toBe(1);
    expect(await page.content()).not.toContain(rootKey);
    await page.reload();
    await page.getByRole('cell', { name: 'e2e-admin' }).waitFor();
    expect(await page.content()).not.toContain(rootKey);
    await keepScreenshot(page, '03-root-keys');
  });

  it('creates an API from the guide and a key in it, and shows code that verifies the key, which runs', async () => {
    await nav('Get started').click();
    const guide = page.getByRole('region', { name: 'Get started with Keyplane' });
    // The root-key test made an API: the first step is done, and names it.
    await guide.getByText('Done: made-by-e2e-admin').waitFor();
    await nav('APIs').click();
    await page.getByRole('button', { name: 'Create API' }).click();
    await page.getByRole('dialog').getByLabel('API name').fill('e2e-api');
    await page.getByRole('dialog').getByRole('button', { name: 'Create', exact: true }).click();
    // A new API opens at once, and says what to do with no keys.
    await page.getByRole('heading', { name: 'e2e-api' }).waitFor();
    await page.getByText('No keys yet').waitFor();
    await page.getByRole('button', { name: 'Create key' }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name', { exact: true }).fill('e2e-key');
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    const secret = page.getByTestId('new-secret');
    await secret.waitFor();
    state.key = (await secret.textContent())?.trim();
    state.apiId = /\/apis\/(api_[0-9a-f]+)/.exec(page.url())?.[1];
    expect(state.apiId).toBeDefined();

    // The code to verify the new key, filled in with this server and the key: run as it is shown.
    const verifySection = dialog.getByRole('region', { name: 'Verify it from your backend' });
    for (const language of ['curl', 'TypeScript', 'Unkey SDK', 'Python']) {
      await verifySection.getByRole('tab', { name: language }).waitFor();
    }
    const curl = (await verifySection.getByTestId('snippet-curl').textContent()) ?? '';
    expect(curl).toContain(`${server.url}/v2/keys.verifyKey`);
    expect(curl).toContain(state.key);
    const ran = await runShell(curl, { KEYPLANE_ROOT_KEY: bootstrapKey });
    expect(JSON.parse(ran)).toMatchObject({ data: { valid: true, code: 'VALID' } });
    await verifySection.getByRole('tab', { name: 'TypeScript' }).click();
    const typescript = (await verifySection.getByTestId('snippet-typescript').textContent()) ?? '';
    expect(typescript).toContain(`createKeyplaneClient({\n  baseUrl: '${server.url}'`);
    expect(typescript).toContain(`keyplane.keys.verifyKey.mutate({ key: '${state.key}' })`);
    await verifySection.getByRole('tab', { name: 'Python' }).click();
    expect(await verifySection.getByTestId('snippet-python').textContent()).toContain(`json={"key": "${state.key}"}`);
    await keepScreenshot(page, '04a-key-created');
    expect(await verify(state.key ?? '')).toMatchObject({ valid: true, code: 'VALID' });
    // Once the secret is taken, the new key's page opens.
    await page.getByRole('button', { name: 'Done: open the key' }).click();
    await page.getByRole('heading', { level: 1, name: 'e2e-key' }).waitFor();
    await page.goBack();
    await page.getByRole('link', { name: 'e2e-key' }).waitFor();
    await keepScreenshot(page, '04-api-keys');
  });

  it("shows each key's status as its verification answers it, in the table and on the key page", async () => {
    const create = (body: object) =>
      v2<{ keyId: string; key: string }>('keys.createKey', { apiId: state.apiId, ...body });
    const expired = await create({ name: 'e2e-expired', expires: Date.now() + 1000 });
    const spent = await create({ name: 'e2e-spent', credits: { remaining: 0 } });
    const off = await create({ name: 'e2e-off', enabled: false, expires: Date.now() + 1000 });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await verify(expired.key)).code).toBe('EXPIRED');
    expect((await verify(spent.key)).code).toBe('USAGE_EXCEEDED');
    expect((await verify(off.key)).code).toBe('DISABLED');
    await page.reload();
    const statusOf = (name: string) => page.getByRole('row').filter({ hasText: name }).locator('.badge').textContent();
    await page.getByRole('link', { name: 'e2e-expired' }).waitFor();
    expect(await statusOf('e2e-expired')).toBe('Expired');
    expect(await statusOf('e2e-spent')).toBe('Out of credits');
    expect(await statusOf('e2e-off')).toBe('Disabled');
    expect(await statusOf('e2e-key')).toBe('Enabled');
    await page.getByRole('link', { name: 'e2e-expired' }).click();
    await page.getByRole('heading', { level: 1, name: 'e2e-expired' }).waitFor();
    expect(await page.locator('.title-with-status .badge').textContent()).toBe('Expired');
    await page.goBack();
  });

  it('saves the API settings and says so', async () => {
    await page.getByRole('heading', { level: 1, name: 'e2e-api' }).waitFor();
    // The API page opens on its keys; the settings are a tab.
    await page.getByRole('tab', { name: 'Settings' }).click();
    const settings = page.getByRole('region', { name: 'Settings', exact: true });
    await settings.getByLabel('Default key prefix').fill('e2e');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await settings.getByText('Saved.').waitFor();
    // The API is read again after the save; the announcement outlives that reload.
    await page.waitForLoadState('networkidle');
    expect(await settings.getByText('Saved.').isVisible()).toBe(true);
    expect(await settings.getByLabel('Default key prefix').inputValue()).toBe('e2e');
    expect(await v2('apis.getApi', { apiId: state.apiId })).toMatchObject({ defaultPrefix: 'e2e' });
  });

  it('warns before a reroll cuts a prefix holding an underscore', async () => {
    const made = await v2<{ keyId: string }>('keys.createKey', {
      apiId: state.apiId,
      name: 'e2e-pay',
      prefix: 'pay_test',
    });
    await page.goto(`${server.url}/dashboard/apis/${state.apiId}/keys/${made.keyId}`);
    await page.getByRole('button', { name: 'Reroll key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Reroll key' });
    const warning = dialog.getByRole('note');
    await warning.waitFor();
    expect(await warning.textContent()).toContain('start pay_, not pay_test_');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    // A key whose prefix has no underscore rerolls to the same prefix: nothing to warn about.
    const plain = await v2<{ keyId: string }>('keys.createKey', { apiId: state.apiId, name: 'e2e-sk', prefix: 'sk' });
    await page.goto(`${server.url}/dashboard/apis/${state.apiId}/keys/${plain.keyId}`);
    await page.getByRole('button', { name: 'Reroll key' }).click();
    await dialog.getByLabel('The old key stops working').waitFor();
    expect(await dialog.getByRole('note').count()).toBe(0);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await page.goto(`${server.url}/dashboard/apis/${state.apiId}`);
  });

  it('disables the key, after which its verification fails', async () => {
    await page.getByRole('link', { name: 'e2e-key' }).click();
    state.keyPage = page.url();
    await page.getByRole('button', { name: 'Disable key' }).click();
    await page.getByRole('button', { name: 'Enable key' }).waitFor();
    await keepScreenshot(page, '05-key-disabled');
    expect(await verify(state.key ?? '')).toMatchObject({ valid: false, code: 'DISABLED' });
  });

  it('edits each part of the key in its own dialog: name, meta (with a check), rate limits, permissions and identity', async () => {
    const keyId = /\/keys\/(key_\w+)/.exec(state.keyPage ?? '')?.[1] ?? '';
    await v2('permissions.createPermission', { name: 'documents.read', slug: 'documents.read' });
    await page.reload();
    const dialog = page.getByRole('dialog');
    const save = () => dialog.getByRole('button', { name: 'Save', exact: true }).click();
    const closed = () => expect.poll(() => dialog.count()).toBe(0);

    await page.getByRole('button', { name: 'Rename key' }).click();
    await dialog.getByLabel('Key name').fill('e2e-key-renamed');
    await save();
    await closed();
    await page.getByRole('heading', { level: 1, name: 'e2e-key-renamed' }).waitFor();

    await page.getByRole('button', { name: 'Edit meta' }).click();
    await dialog.getByLabel('Meta (JSON object)').fill('[1]');
    await save();
    await dialog.getByText('Meta must be a JSON object').waitFor();
    expect(await v2('keys.getKey', { keyId })).not.toHaveProperty('meta.plan');
    await dialog.getByLabel('Meta (JSON object)').fill('{"plan": "pro"}');
    await save();
    await closed();

    await page.getByRole('button', { name: 'Edit rate limits' }).click();
    await dialog.getByRole('button', { name: 'Add limit' }).click();
    // A new limit starts with a name: it can be saved as it is.
    expect(await dialog.getByLabel('Limit name').inputValue()).toBe('requests');
    await save();
    await closed();

    await page.getByRole('button', { name: 'Edit permissions' }).click();
    await dialog.getByRole('group', { name: 'Direct permissions' }).getByLabel('documents.read').check();
    await save();
    await closed();

    await page.getByRole('button', { name: 'Edit identity' }).click();
    await dialog.getByLabel('External id').fill('e2e-customer');
    await save();
    await closed();
    // The page shows what was saved, as keys.getKeyAccess and keys.getKey answer it.
    const summary = (title: string) => page.getByRole('region', { name: title, exact: true });
    await summary('Identity').getByRole('link', { name: 'e2e-customer' }).waitFor();
    await summary('Permissions').getByText('documents.read').waitFor();
    await summary('Rate limits').getByText('100 per 1 min').waitFor();
    await keepScreenshot(page, '05b-key-edited');

    expect(await v2('keys.getKey', { keyId })).toMatchObject({
      name: 'e2e-key-renamed',
      meta: { plan: 'pro' },
      ratelimits: [{ name: 'requests', limit: 100, duration: 60_000, autoApply: true }],
      permissions: ['documents.read'],
      identity: { externalId: 'e2e-customer' },
    });
  });

  it('charts the verifications by outcome', async () => {
    await verify(state.key ?? '');
    await nav('Usage').click();
    const chart = page.getByRole('img', { name: 'Verifications by outcome' });
    await chart.waitFor();
    // Events are written in batches off the request path; the screen shows them once they land.
    const legend = page.locator('.legend').first();
    await expect
      .poll(
        async () => {
          await page.reload();
          await chart.waitFor();
          return legend.textContent();
        },
        { timeout: 15_000, interval: 1000 },
      )
      .toMatch(/Disabled: 3/);
    // The keys made to show their status each verified once (see above); the key was verified once more
    // by the curl code its creation showed.
    expect(await legend.textContent()).toMatch(/Valid: 2.*Expired: 1|Expired: 1.*Valid: 2/);
    expect(await legend.textContent()).toMatch(/Usage exceeded: 1/);
    expect(await chart.locator('.recharts-bar-rectangle').count()).toBeGreaterThan(0);
    await keepScreenshot(page, '06-usage');
  });

  it('filters the usage by a key picked from a search, at once and in the URL', async () => {
    await page.getByLabel('API', { exact: true }).selectOption({ label: 'e2e-api' });
    await page.getByLabel('Search keys').fill('renamed');
    const keySelect = page.getByLabel('Key', { exact: true });
    // The search's answer, not the list before it: the one key it finds, picked by its name.
    await expect
      .poll(() => keySelect.locator('option').allTextContents())
      .toEqual(['All keys', expect.stringMatching(/^e2e-key-renamed /)]);
    await keySelect.selectOption({ index: 1 });
    const identitySelect = page.getByLabel('Identity', { exact: true });
    await expect.poll(() => identitySelect.locator('option', { hasText: 'e2e-customer' }).count()).toBe(1);
    // No Apply button: the pick applies.
    expect(await page.getByRole('button', { name: 'Apply filters' }).count()).toBe(0);
    await expect.poll(() => page.locator('.legend').first().textContent()).toMatch(/Disabled: 2/);
    expect(new URL(page.url()).searchParams.get('api')).toBe(state.apiId);
    const keyId = /\/keys\/(key_\w+)/.exec(state.keyPage ?? '')?.[1];
    expect(new URL(page.url()).searchParams.get('key')).toBe(keyId);
    // A reload keeps the filters, the key still shown by its name.
    await page.reload();
    await expect.poll(() => keySelect.inputValue()).toBe(keyId);
    await expect.poll(() => keySelect.locator('option:checked').textContent()).toMatch(/^e2e-key-renamed /);
    await expect.poll(() => page.locator('.legend').first().textContent()).toMatch(/Disabled: 2/);
    // The rate-limit decisions cannot be filtered by key: the chart says so rather than pretend.
    await page
      .getByRole('region', { name: 'Rate-limit decisions' })
      .getByText('Not filtered: rate-limit decisions belong to namespaces')
      .waitFor();
    expect(await axisLabelStretch(page)).toEqual(expect.arrayContaining([1]));
    expect((await axisLabelStretch(page)).every((ratio) => ratio > 0.97 && ratio < 1.03)).toBe(true);
    await keepScreenshot(page, '06b-usage-filtered');
  });

  it('shows the changes in the audit log', async () => {
    await nav('Audit log').click();
    for (const event of [
      'dashboard.signIn',
      'rootKeys.createRootKey',
      'apis.createApi',
      'keys.createKey',
      'keys.updateKey',
    ]) {
      await page.getByRole('table').getByText(event).first().waitFor();
    }
    await keepScreenshot(page, '07-audit-log');
  });

  it('creates a permission and a role, gives the role the permission, then deletes the permission', async () => {
    await nav('Roles & permissions').click();
    const permissions = page.getByRole('region', { name: 'Permissions', exact: true });
    await permissions.getByRole('button', { name: 'Create permission' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Slug').fill('invoices.read');
    await dialog.getByLabel('Name', { exact: true }).fill('Read invoices');
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    const permissionRow = permissions.getByRole('row').filter({ hasText: 'invoices.read' });
    await permissionRow.getByRole('cell', { name: 'Read invoices' }).waitFor();
    expect(await v2('permissions.getPermission', { permission: 'invoices.read' })).toMatchObject({
      slug: 'invoices.read',
      name: 'Read invoices',
    });

    const roles = page.getByRole('region', { name: 'Roles', exact: true });
    await roles.getByRole('button', { name: 'Create role' }).click();
    await dialog.getByLabel('Role name').fill('e2e-billing');
    await dialog.getByLabel('Description').fill('Reads the invoices');
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    const roleRow = roles.getByRole('row').filter({ hasText: 'e2e-billing' });
    await roleRow.getByRole('cell', { name: 'Reads the invoices' }).waitFor();
    expect(await v2('permissions.getRole', { role: 'e2e-billing' })).toMatchObject({ permissions: [] });

    await chooseRowAction(roles, 'role e2e-billing', 'Edit permissions');
    await dialog.getByLabel('invoices.read').check();
    await dialog.getByRole('button', { name: 'Save permissions' }).click();
    await roleRow.getByText('invoices.read').waitFor();
    // Polled: the list is fetched again after the save, and a row read while it re-renders has no cells.
    await expect.poll(() => cellDisplays(roleRow)).toEqual(['table-cell']);
    await keepScreenshot(page, '09-roles');
    expect(await v2('permissions.getRole', { role: 'e2e-billing' })).toMatchObject({
      name: 'e2e-billing',
      description: 'Reads the invoices',
      permissions: [{ slug: 'invoices.read', name: 'Read invoices' }],
    });

    await chooseRowAction(permissions, 'permission invoices.read', 'Delete permission');
    const confirm = page.getByRole('dialog', { name: 'Delete permission' });
    await confirm.getByText('Keys and roles holding it lose it at once').waitFor();
    await confirm.getByRole('button', { name: 'Delete permission' }).click();
    // The page behind an open dialog is hidden from the accessibility tree: wait for the dialog to go.
    await expect.poll(() => confirm.count()).toBe(0);
    await expect.poll(() => permissionRow.count()).toBe(0);
    // The role's row follows: the permission left it too.
    await expect.poll(() => roleRow.getByText('invoices.read').count()).toBe(0);
    expect(await v2Status('permissions.getPermission', { permission: 'invoices.read' })).toBe(404);
    expect(await v2('permissions.getRole', { role: 'e2e-billing' })).toMatchObject({ permissions: [] });
  });

  it('creates an identity, edits its meta and rate limits, then deletes it', async () => {
    await nav('Identities').click();
    await page.getByRole('button', { name: 'Create identity' }).click();
    await page.getByRole('dialog').getByLabel('External id').fill('e2e-tenant');
    await page.getByRole('dialog').getByRole('button', { name: 'Create', exact: true }).click();
    // A new identity opens at once.
    await page.getByRole('heading', { level: 1, name: 'e2e-tenant' }).waitFor();
    const identityId = /\/identities\/([^/?#]+)$/.exec(page.url())?.[1] ?? '';
    expect(identityId).not.toBe('');

    await page.getByLabel('Meta (JSON object)').fill('{"tier": "gold"}');
    await page.getByRole('button', { name: 'Add limit' }).click();
    await page.getByLabel('Limit name').fill('tokens');
    await page.getByLabel('Limit', { exact: true }).fill('500');
    await page.getByLabel('Window (seconds)').fill('10');
    await page.getByRole('button', { name: 'Save identity' }).click();
    await page.getByText('Saved.').waitFor();
    await keepScreenshot(page, '10-identity');
    expect(await v2('identities.getIdentity', { identity: identityId })).toEqual({
      id: identityId,
      externalId: 'e2e-tenant',
      meta: { tier: 'gold' },
      ratelimits: [expect.objectContaining({ name: 'tokens', limit: 500, duration: 10_000, autoApply: true })],
    });

    await page.getByRole('button', { name: 'Delete identity' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete identity' });
    await confirm.getByText('Its keys keep working').waitFor();
    await confirm.getByRole('button', { name: 'Delete identity' }).click();
    await page.getByRole('heading', { level: 1, name: 'Identities' }).waitFor();
    await page.getByRole('link', { name: 'e2e-customer' }).waitFor();
    expect(await page.getByRole('link', { name: 'e2e-tenant' }).count()).toBe(0);
    expect(await v2Status('identities.getIdentity', { identity: identityId })).toBe(404);
  });

  it('creates a namespace, sets, edits and deletes an override, then deletes the namespace', async () => {
    const override = { namespace: 'e2e-uploads', identifier: 'tenant_42' };
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Rate limits' }).click();
    await page.getByRole('button', { name: 'Create namespace' }).click();
    await page.getByRole('dialog').getByLabel('Namespace name').fill('e2e-uploads');
    await page.getByRole('dialog').getByRole('button', { name: 'Create', exact: true }).click();
    // Creating lands on what was created.
    await page.getByRole('heading', { level: 1, name: 'e2e-uploads' }).waitFor();
    expect(new URL(page.url()).pathname).toMatch(/\/dashboard\/ratelimits\/rlns_/);

    await page.getByRole('button', { name: 'Set override' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Identifier').fill('tenant_42');
    await dialog.getByLabel('Limit').fill('5');
    await dialog.getByLabel('Window (seconds)').fill('30');
    await dialog.getByRole('button', { name: 'Save override' }).click();
    const row = page.getByRole('row').filter({ hasText: 'tenant_42' });
    await row.getByRole('cell', { name: '5', exact: true }).waitFor();
    const set = await v2<{ overrideId: string }>('ratelimit.getOverride', override);
    expect(set).toMatchObject({ identifier: 'tenant_42', limit: 5, duration: 30_000 });
    // Limiting on the identifier applies the override, whatever limit the caller asks for.
    expect(await v2('ratelimit.limit', { ...override, limit: 100, duration: 60_000 })).toMatchObject({
      limit: 5,
      remaining: 4,
      success: true,
      overrideId: set.overrideId,
    });

    await chooseRowAction(row, 'override tenant_42', 'Edit override');
    expect(await dialog.getByLabel('Identifier').inputValue()).toBe('tenant_42');
    await dialog.getByLabel('Limit').fill('50');
    await dialog.getByRole('button', { name: 'Save override' }).click();
    await row.getByRole('cell', { name: '50', exact: true }).waitFor();
    expect(await cellDisplays(row)).toEqual(['table-cell']);
    await keepScreenshot(page, '11-ratelimits');
    expect(await v2('ratelimit.getOverride', override)).toEqual({ ...set, limit: 50 });

    // A namespace's page opens by its name too, dots included; a missing asset is still a 404.
    await page.goto(`${server.url}/dashboard/ratelimits/e2e-uploads`);
    await page.getByRole('heading', { level: 1, name: 'e2e-uploads' }).waitFor();
    await row.getByRole('cell', { name: '50', exact: true }).waitFor();
    const dotted = await fetch(`${server.url}/dashboard/ratelimits/api.requests`);
    expect([dotted.status, dotted.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    await dotted.body?.cancel();
    const missingAsset = await fetch(`${server.url}/dashboard/assets/missing.js`);
    expect(missingAsset.status).toBe(404);
    await missingAsset.body?.cancel();

    await chooseRowAction(row, 'override tenant_42', 'Delete override');
    await page
      .getByRole('dialog', { name: 'Delete override' })
      .getByRole('button', { name: 'Delete override' })
      .click();
    await page.getByText('No overrides.').waitFor();
    expect(await v2Status('ratelimit.getOverride', override)).toBe(404);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Rate limits' }).click();
    await chooseRowAction(page, 'namespace e2e-uploads', 'Delete namespace');
    const confirm = page.getByRole('dialog', { name: 'Delete namespace' });
    await confirm.getByText('Limiting on it fails from then on').waitFor();
    await confirm.getByRole('button', { name: 'Delete namespace' }).click();
    await page.getByText('No namespaces yet').waitFor();
    // A deleted namespace is gone for limiting (410), not silently created again.
    expect(await v2Status('ratelimit.limit', { ...override, limit: 100, duration: 60_000 })).toBe(410);
  });

  it('fits a phone screen without sideways scrolling of the page', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const screens = ['root-keys', `apis/${state.apiId}`, 'roles', 'identities', 'ratelimits', 'usage', 'audit'];
    for (const screen of [...screens.map((path) => `${server.url}/dashboard/${path}`), state.keyPage ?? '']) {
      await page.goto(screen);
      await page.locator('main h1').waitFor();
      await page.waitForLoadState('networkidle');
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect({ screen, overflow }).toEqual({ screen, overflow: 0 });
    }
    await page.goto(`${server.url}/dashboard/root-keys`);
    await page.getByRole('cell', { name: 'e2e-admin' }).waitFor();
    await keepScreenshot(page, '08-root-keys-phone');

    // The create-root-key dialog fits the phone: nothing inside it scrolls sideways either.
    await page.getByRole('button', { name: 'Create root key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create root key' });
    await dialog.getByLabel('api.*.read_api').waitFor();
    await keepScreenshot(page, '08b-create-root-key-phone');
    expect(await sidewaysOverflow(dialog)).toBe(0);
    expect(await sidewaysOverflow(dialog.locator('form'))).toBe(0);
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    // Tables become compact rows: what a row shows, its status and its actions included, is on screen.
    const actions = page.getByRole('button', { name: 'Actions for e2e-admin', exact: true });
    const box = await actions.boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= 390).toBe(true);
    await page.goto(`${server.url}/dashboard/apis/${state.apiId}`);
    const keyRow = page.getByRole('row').filter({ hasText: 'e2e-expired' });
    for (const label of ['Status', 'Credits', 'Last used']) {
      const cell = await keyRow.locator(`td[data-label="${label}"]`).boundingBox();
      expect({ label, inside: cell !== null && cell.x >= 0 && cell.x + cell.width <= 390 }).toEqual({
        label,
        inside: true,
      });
    }
    // The rest waits on the key's page, which the row opens.
    expect(await keyRow.locator('td[data-label="Expires"]').isVisible()).toBe(false);
    await keyRow.locator('th').click({ position: { x: 5, y: 5 } });
    await page.getByRole('heading', { level: 1, name: 'e2e-expired' }).waitFor();
    await page.goBack();
    await keepScreenshot(page, '08c-api-keys-phone');

    // The navigation is one Menu button, not rows of links; it closes once a screen is chosen.
    const navigation = page.getByRole('navigation', { name: 'Main' });
    expect(await navigation.isVisible()).toBe(false);
    const topbar = await page.locator('.topbar').boundingBox();
    expect(topbar?.height).toBeLessThan(60);
    await page.getByRole('button', { name: 'Menu' }).click();
    await navigation.getByRole('link', { name: 'Usage' }).click();
    await page.getByRole('heading', { level: 1, name: 'Usage' }).waitFor();
    expect(await navigation.isVisible()).toBe(false);

    // Chart labels keep their shape on a phone too.
    await page.getByRole('img', { name: 'Verifications by outcome' }).waitFor();
    const stretch = await axisLabelStretch(page);
    expect(stretch.length).toBeGreaterThan(0);
    expect(stretch.every((ratio) => ratio > 0.97 && ratio < 1.03)).toBe(true);
    await keepScreenshot(page, '08d-usage-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('says what happened and what to do when the server cannot be reached, within seconds', async () => {
    await page.goto(`${server.url}/dashboard/identities`);
    await page.getByRole('heading', { level: 1, name: 'Identities' }).waitFor();
    // A proxy's HTML error page instead of Keyplane's answer.
    await page.route('**/trpc/apis.listApis**', (route) =>
      route.fulfill({ status: 502, contentType: 'text/html', body: '<html><body>Bad Gateway</body></html>' }),
    );
    const started = Date.now();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'APIs' }).click();
    const alert = page.getByRole('alert');
    await alert.getByText('The Keyplane server did not answer (HTTP 502').waitFor();
    // After one quick second try (apps/dashboard/src/queryClient.ts): a retry with the usual backoff
    // (1, 2 and 4 s) would take 7 s; the bound leaves room for a loaded machine.
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await alert.textContent()).not.toMatch(/JSON|Unexpected token/);
    await keepScreenshot(page, '12-error-502');
    await page.unroute('**/trpc/apis.listApis**');
    await alert.getByRole('button', { name: 'Try again' }).click();
    await page.getByRole('link', { name: 'e2e-api' }).waitFor();

    await page.context().setOffline(true);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Root keys' }).click();
    await page.getByRole('alert').getByText('You are offline. Reconnect to the network, then try again.').waitFor();
    expect(await page.getByRole('alert').textContent()).not.toContain('Failed to fetch');
    await page.context().setOffline(false);
    await page.getByRole('alert').getByRole('button', { name: 'Try again' }).click();
    await page.getByRole('cell', { name: 'e2e-admin' }).waitFor();
  });

  it('shows a root key scoped to one API that API, and disables with the reason what it may not do', async () => {
    const permissions = [
      'workspace.*.manage_root_keys',
      `api.${state.apiId}.read_api`,
      `api.${state.apiId}.read_key`,
      `api.${state.apiId}.read_analytics`,
    ];
    const scoped = await internal<{ key: string }>('rootKeys.createRootKey', { name: 'e2e-scoped', permissions });
    await internal('rootKeys.createRootKey', { name: 'e2e-one', permissions: ['api.*.read_api'] });
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const scopedPage = await context.newPage();
    scopedPage.setDefaultTimeout(10_000);
    const scopedErrors = collectPageErrors(scopedPage);
    await scopedPage.goto(`${server.url}/dashboard/`);
    await scopedPage.getByRole('button', { name: 'Sign in with a root key' }).click();
    await scopedPage.getByLabel('Root key').fill(scoped.key);
    await scopedPage.getByRole('button', { name: 'Sign in', exact: true }).click();

    // The APIs screen lists the one API the key may read (the workspace has another), not a 403.
    await scopedPage.getByRole('link', { name: 'e2e-api' }).waitFor();
    expect(await scopedPage.getByRole('link', { name: 'made-by-e2e-admin' }).count()).toBe(0);
    expect(await scopedPage.getByRole('alert').count()).toBe(0);
    const createApi = scopedPage.getByRole('button', { name: 'Create API' });
    expect(await createApi.isDisabled()).toBe(true);
    await scopedPage.getByText('Your root key lacks api.*.create_api.').waitFor();
    await keepScreenshot(scopedPage, '13-scoped-apis');

    await scopedPage.getByRole('link', { name: 'e2e-api' }).click();
    await scopedPage.getByRole('heading', { level: 1, name: 'e2e-api' }).waitFor();
    expect(await scopedPage.getByRole('button', { name: 'Delete API' }).isDisabled()).toBe(true);
    expect(await scopedPage.getByRole('button', { name: 'Create key' }).isDisabled()).toBe(true);
    await scopedPage.getByRole('tab', { name: 'Settings' }).click();
    expect(await scopedPage.getByLabel('Default key prefix').isDisabled()).toBe(true);
    expect(await scopedPage.getByRole('button', { name: 'Save settings' }).isDisabled()).toBe(true);
    await scopedPage.getByText(`Your root key lacks api.${state.apiId}.delete_api.`).waitFor();
    await scopedPage.getByText(`Your root key lacks api.${state.apiId}.update_api.`).waitFor();
    await scopedPage.getByRole('tab', { name: 'Keys' }).click();
    await scopedPage.getByText(`Your root key lacks api.${state.apiId}.create_key.`).waitFor();
    await scopedPage.getByRole('link', { name: 'e2e-expired' }).waitFor();
    await keepScreenshot(scopedPage, '14-scoped-api');

    // The key page's actions it may not take: a reroll creates a key.
    await scopedPage.getByRole('link', { name: 'e2e-expired' }).click();
    await scopedPage.getByRole('heading', { level: 1, name: 'e2e-expired' }).waitFor();
    expect(await scopedPage.getByRole('button', { name: 'Delete key' }).isDisabled()).toBe(true);
    expect(await scopedPage.getByRole('button', { name: 'Reroll key' }).isDisabled()).toBe(true);
    await scopedPage.getByText(`Your root key lacks api.${state.apiId}.delete_key.`).waitFor();
    await scopedPage.getByText(`Your root key lacks api.${state.apiId}.create_key.`).waitFor();

    // The Usage picker offers the API it may read; what it may not read is named, not asked for.
    await scopedPage.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Usage' }).click();
    const apiSelect = scopedPage.getByLabel('API', { exact: true });
    await expect.poll(() => apiSelect.locator('option').allTextContents()).toEqual(['All APIs', 'e2e-api']);
    await scopedPage.getByText('Not shown: Your root key lacks ratelimit.*.read_analytics.').waitFor();
    await scopedPage.getByText('Your root key lacks identity.*.read_identity.').waitFor();
    expect(await scopedPage.getByLabel('Identity', { exact: true }).isDisabled()).toBe(true);
    expect(await scopedPage.getByRole('alert').count()).toBe(0);

    await scopedPage.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Identities' }).click();
    expect(await scopedPage.getByRole('button', { name: 'Create identity' }).isDisabled()).toBe(true);
    await scopedPage.getByText('Your root key lacks identity.*.create_identity.').waitFor();

    // "1 permission", not "1 permissions".
    await scopedPage.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Root keys' }).click();
    await scopedPage
      .getByRole('row')
      .filter({ hasText: 'e2e-one' })
      .getByText('1 permission', { exact: true })
      .waitFor();
    await context.close();
    // Nothing it may not read was asked for: no 403.
    expect(scopedErrors.filter((error) => !EXPECTED_FAILURES.some((failure) => error.includes(failure)))).toEqual([]);
  });

  it('signs out, ending the session on the server', async () => {
    // The sign-in form's button, not a "Root key" label: the Root keys screen's search field has one too.
    const signIn = page.getByRole('button', { name: 'Sign in', exact: true });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn.waitFor();
    expect(await page.context().cookies()).toEqual([]);
    await page.goto(`${server.url}/dashboard/apis`);
    await signIn.waitFor();
  });

  it('reported no script errors', () => {
    // The only failed requests a visit makes are the 401s of "who is signed in?" while signed out, and
    // those the tests cause on purpose.
    expect(unexpectedErrors(dashboard)).toEqual([]);
  });
});
