import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { bootstrapWorkspace } from '@keyplane/core';
import { workspaceStore } from '@keyplane/db';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumInstalled, collectPageErrors, keepScreenshot } from './browser.ts';
import { chooseRowAction, type Dashboard, DESKTOP, PHONE, sidewaysOverflow, startDashboard } from './harness.ts';

// Team accounts in the browser (issue 39): the first-run link makes the owner, who invites a viewer by
// link; the viewer joins in a browser of their own, signs in with email and password, and is offered
// no change anywhere; the owner changes a role and removes a person, each confirmed. At desktop and
// at phone width, one server each.

const PASSWORD = 'a long passphrase for the owner';
const VIEWER_PASSWORD = 'the viewer reads but never writes';

/** Words on buttons that change something: a viewer is offered none of them. */
const CHANGE_WORDS =
  /\b(create|delete|revoke|invite|edit|remove|disable|enable|reroll|rename|save|set expiry|add|rotate|turn off)\b/i;

/** Names of the visible buttons of a page that are not disabled. */
const enabledButtons = (page: Page) =>
  page
    .locator('button:visible:not([disabled])')
    .evaluateAll((buttons) =>
      buttons.map((button) => (button.getAttribute('aria-label') ?? button.textContent ?? '').trim()),
    );

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's WCAG 2.x A and AA violations on the page as it is (polish.test.ts checks every other screen so). */
async function accessibilityViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: typeof import('axe-core') }).axe;
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] },
    });
    return result.violations.flatMap((violation) =>
      violation.nodes.map((node) => `${violation.id}: ${node.target.join(' ')}`),
    );
  });
}

for (const [width, viewport] of [
  ['desktop', DESKTOP],
  ['phone', PHONE],
] as const) {
  describe.skipIf(!chromiumInstalled)(`team accounts in Chromium (${width})`, () => {
    let dashboard: Dashboard;
    let owner: Page;
    let viewerContext: BrowserContext;
    let viewer: Page;
    const errors: string[] = [];
    const url = (path: string) => `${dashboard.server.url}/dashboard/${path}`;
    const phone = width === 'phone';
    const viewerEmail = `viewer-${width}@example.test`;
    let apiId = '';

    /** Opens a screen from the main navigation (behind the menu button on a phone). */
    async function openScreen(page: Page, name: string): Promise<void> {
      if (phone) await page.getByRole('button', { name: 'Menu' }).click();
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
      await page.getByRole('heading', { level: 1, name }).waitFor();
    }

    async function shoot(page: Page, name: string): Promise<void> {
      await keepScreenshot(page, `team-${width}-${name}`);
      expect(await sidewaysOverflow(page)).toBe(0);
      expect(await accessibilityViolations(page)).toEqual([]);
    }

    beforeAll(async () => {
      dashboard = await startDashboard(viewport);
      owner = dashboard.page;
      viewerContext = await dashboard.browser.newContext({ viewport });
      viewer = await viewerContext.newPage();
      viewer.setDefaultTimeout(10_000);
      const viewerErrors = collectPageErrors(viewer);
      viewer.on('close', () => errors.push(...viewerErrors));
      const api = await dashboard.v2<{ apiId: string }>('apis.createApi', { name: 'payments-api' });
      apiId = api.apiId;
      await dashboard.v2('keys.createKey', { apiId, name: 'checkout-key' });
    }, 120_000);

    afterAll(async () => {
      await dashboard?.stop();
    });

    it('sets the owner up from the first-run link, whose token leaves the address bar', async () => {
      // As `npm start` printed it beside the root key, on the server's empty database; the test
      // server listens on a port of its own choosing, so only the token is taken from it.
      const printed = dashboard.server.setupUrl;
      if (!printed) throw new Error('the server printed no setup link');
      const token = new URL(printed).hash.slice(1);
      expect(new URL(printed).pathname).toBe('/dashboard/setup');
      await owner.goto(url(`setup#${token}`));
      await owner.getByRole('heading', { level: 1, name: 'Set up the owner' }).waitFor();
      await expect.poll(() => owner.url()).toBe(url('setup'));
      await owner.getByText('At least 12 characters').first().waitFor();
      await owner.getByLabel('Email').fill(`owner-${width}@example.test`);
      await owner.getByLabel('Name').fill('Olivia Owner');
      await owner.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await owner.getByLabel('Confirm password').fill(`${PASSWORD}!`);
      await owner.getByText('The two passwords differ.').waitFor();
      expect(await owner.getByRole('button', { name: 'Create owner account' }).isDisabled()).toBe(true);
      await owner.getByLabel('Confirm password').fill(PASSWORD);
      await shoot(owner, 'setup');
      await owner.getByRole('button', { name: 'Create owner account' }).click();
      await owner.getByRole('heading', { level: 1, name: 'Get started' }).waitFor();
      await owner.getByRole('button', { name: /^Account: Olivia Owner ?, Owner/ }).waitFor();
      // Used once: the same link again is refused, in the server's words.
      const again = await dashboard.browser.newPage({ viewport });
      await again.goto(url(`setup#${token}`));
      await again.getByLabel('Email').fill('someone-else@example.test');
      await again.getByLabel('Name').fill('Someone');
      await again.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await again.getByLabel('Confirm password').fill(PASSWORD);
      await again.getByRole('button', { name: 'Create owner account' }).click();
      await again.getByRole('alert').waitFor();
      await again.close();
    });

    it('invites a viewer by a link to copy, shown with whether it was emailed, and lists it as pending', async () => {
      await openScreen(owner, 'Members');
      await owner.getByRole('row').filter({ hasText: 'Olivia Owner' }).getByText('(you)').waitFor();
      await owner.getByRole('button', { name: 'Invite member' }).click();
      const dialog = owner.getByRole('dialog', { name: 'Invite member' });
      await dialog.getByLabel('Email').fill(viewerEmail);
      await dialog.getByLabel('Role').selectOption('viewer');
      await dialog.getByText('Reads everything, changes nothing').waitFor();
      await dialog.getByRole('button', { name: 'Invite', exact: true }).click();
      const link = (await owner.getByTestId('issued-link').textContent())?.trim() ?? '';
      expect(link).toMatch(/\/dashboard\/invite#[\w-]+$/);
      await owner
        .getByText(/emailed|copy the link/i)
        .first()
        .waitFor();
      await owner.getByRole('button', { name: 'Copy the link' }).waitFor();
      const pending = owner.getByRole('region', { name: 'Pending invitations' });
      await pending.getByRole('row').filter({ hasText: viewerEmail }).waitFor();
      await shoot(owner, 'members-invited');
      await owner.getByRole('button', { name: 'Done' }).click();

      // The viewer accepts in a browser of their own.
      await viewer.goto(link);
      const invitation = viewer.getByTestId('invitation');
      await invitation.getByText(viewerEmail).waitFor();
      await invitation.getByText('viewer (reads everything, changes nothing)').waitFor();
      await expect.poll(() => viewer.url()).toBe(url('invite'));
      await viewer.getByLabel('Name').fill('Victor Viewer');
      await viewer.getByLabel('Password', { exact: true }).fill(VIEWER_PASSWORD);
      await viewer.getByLabel('Confirm password').fill(VIEWER_PASSWORD);
      await shoot(viewer, 'invitation');
      await viewer.getByRole('button', { name: /^Join / }).click();
      await viewer.getByRole('button', { name: /^Account: Victor Viewer ?, Viewer/ }).waitFor();
    });

    it('signs the viewer in with email and password after a wrong one, in the server’s words', async () => {
      await viewer.getByRole('button', { name: 'Sign out' }).click();
      await viewer.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
      await shoot(viewer, 'sign-in');
      await viewer.getByLabel('Email').fill(viewerEmail);
      await viewer.getByLabel('Password').fill('not the password at all');
      await viewer.getByRole('button', { name: 'Sign in', exact: true }).click();
      await viewer.getByRole('alert').waitFor();
      await viewer.getByLabel('Password').fill(VIEWER_PASSWORD);
      await viewer.getByRole('button', { name: 'Sign in', exact: true }).click();
      await viewer.getByRole('button', { name: /^Account: Victor Viewer ?, Viewer/ }).waitFor();
    });

    it('offers the viewer no change on any screen', async () => {
      const nav = viewer.getByRole('navigation', { name: 'Main' });
      if (phone) await viewer.getByRole('button', { name: 'Menu' }).click();
      await nav.getByRole('link', { name: 'APIs', exact: true }).waitFor();
      // A viewer reads the workspace's people and root keys too.
      await nav.getByRole('link', { name: 'Members', exact: true }).waitFor();
      await nav.getByRole('link', { name: 'Root keys', exact: true }).waitFor();
      if (phone) await viewer.getByRole('button', { name: 'Menu' }).click();

      const screens: [string, string | RegExp][] = [
        ['apis', 'APIs'],
        [`apis/${apiId}`, 'payments-api'],
        ['identities', 'Identities'],
        ['roles', 'Roles & permissions'],
        ['ratelimits', 'Rate limits'],
        ['webhooks', 'Webhooks'],
        ['settings', 'Settings'],
        ['members', 'Members'],
        ['root-keys', 'Root keys'],
        ['audit', 'Audit log'],
      ];
      for (const [path, heading] of screens) {
        await viewer.goto(url(path));
        await viewer.getByRole('heading', { level: 1, name: heading }).waitFor();
        // Lists loaded, so no button is still to come.
        await expect.poll(() => viewer.getByRole('status', { name: /Loading/ }).count()).toBe(0);
        const offered = (await enabledButtons(viewer)).filter((name) => CHANGE_WORDS.test(name));
        expect({ path, offered }).toEqual({ path, offered: [] });
      }
      // The key list: its row menu holds only what reads.
      await viewer.goto(url(`apis/${apiId}`));
      await viewer.getByRole('button', { name: 'Actions for checkout-key', exact: true }).click();
      const items = await viewer.getByRole('menuitem').allTextContents();
      expect(items.filter((item) => CHANGE_WORDS.test(item))).toEqual([]);
      await viewer.keyboard.press('Escape');
      await shoot(viewer, 'viewer-api');
      // The people, read only: no invitation, no row of actions.
      await viewer.goto(url('members'));
      await viewer.getByRole('region', { name: 'People' }).getByText('Olivia Owner').waitFor();
      expect(await viewer.getByRole('button', { name: 'Invite member' }).count()).toBe(0);
      expect(await viewer.getByRole('button', { name: /^Actions for / }).count()).toBe(0);
      await shoot(viewer, 'viewer-members');
    });

    it('lets a person of two workspaces switch between them, each with its own role and data', async () => {
      // Another workspace invites the viewer as an admin; they join with the password they have.
      const other = `staging-${width}`;
      const staging = await dashboard.database.orm.em
        .fork()
        .transactional((tx) => bootstrapWorkspace(workspaceStore(tx), { name: other }));
      const invited = await fetch(`${dashboard.server.url}/v2/members.inviteMember`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${staging.rootKey}` },
        body: JSON.stringify({ email: viewerEmail, role: 'admin' }),
      });
      expect(invited.status).toBe(200);
      const { data } = (await invited.json()) as { data: { url: string } };
      await viewer.goto(data.url);
      await viewer.getByText('You have a Keyplane account: enter its password to join.').waitFor();
      await viewer.getByLabel('Password', { exact: true }).fill(VIEWER_PASSWORD);
      await viewer.getByRole('button', { name: `Join ${other}` }).click();
      const account = (role: string) =>
        viewer.getByRole('button', { name: new RegExp(`^Account: Victor Viewer ?, ${role}`) });
      const firstScreen = viewer.getByRole('heading', { level: 1, name: /^(APIs|Get started)$/ });
      const paymentsApi = viewer.getByRole('link', { name: 'payments-api', exact: true });

      // In the new workspace: an admin, and nothing of the first one.
      await account('Admin').waitFor();
      await firstScreen.waitFor();
      expect(await paymentsApi.count()).toBe(0);

      // The account menu lists both, each with the role held there, and switches.
      await account('Admin').click();
      const menu = viewer.getByRole('menu');
      await menu.getByText('Switch workspace').waitFor();
      expect(await menu.getByRole('menuitemradio').allTextContents()).toEqual(
        expect.arrayContaining(['defaultViewer', `${other}Admin`]),
      );
      expect(await menu.getByRole('menuitemradio', { checked: true }).textContent()).toBe(`${other}Admin`);
      await shoot(viewer, 'switch-workspace');
      await menu.getByRole('menuitemradio', { name: /^default/ }).click();
      await account('Viewer').waitFor();
      await firstScreen.waitFor();
      await paymentsApi.waitFor();

      // Back and forth: the other workspace's lists are read again, not kept.
      await account('Viewer').click();
      await viewer
        .getByRole('menu')
        .getByRole('menuitemradio', { name: new RegExp(`^${other}`) })
        .click();
      await account('Admin').waitFor();
      await expect.poll(() => paymentsApi.count()).toBe(0);
      await account('Admin').click();
      await viewer
        .getByRole('menu')
        .getByRole('menuitemradio', { name: /^default/ })
        .click();
      await account('Viewer').waitFor();
      await paymentsApi.waitFor();

      // A new password would open the other workspace too, where the owner manages nobody: refused,
      // in the server's words.
      await owner.reload();
      await owner.getByRole('region', { name: 'People' }).getByText('Victor Viewer').waitFor();
      await chooseRowAction(owner, 'Victor Viewer', 'Issue password-reset link');
      const reset = owner.getByRole('dialog', { name: 'Issue password-reset link' });
      await reset.getByRole('button', { name: 'Issue link' }).click();
      await reset
        .getByRole('alert')
        .getByText(/also belongs to another workspace/)
        .waitFor();
      await reset.getByRole('button', { name: 'Cancel' }).click();

      // Removed from the other workspace, they keep the first one, and the menu no longer switches.
      const staged = (await (
        await fetch(`${dashboard.server.url}/v2/members.listMembers`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${staging.rootKey}` },
          body: '{}',
        })
      ).json()) as { data: { userId: string; email: string }[] };
      const userId = staged.data.find((member) => member.email === viewerEmail)?.userId;
      const removed = await fetch(`${dashboard.server.url}/v2/members.removeMember`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${staging.rootKey}` },
        body: JSON.stringify({ userId }),
      });
      expect(removed.status).toBe(200);
      await viewer.reload();
      await account('Viewer').click();
      await viewer.getByRole('menuitem', { name: 'Account settings' }).waitFor();
      expect(await viewer.getByRole('menu').getByText('Switch workspace').count()).toBe(0);
      await viewer.keyboard.press('Escape');
    });

    it('lets the owner change a role, reset a password and remove a person, each confirmed', async () => {
      await owner.reload();
      await owner.getByRole('heading', { level: 1, name: 'Members' }).waitFor();
      const people = owner.getByRole('region', { name: 'People' });
      const row = people.getByRole('row').filter({ hasText: viewerEmail });
      await row.getByText('Viewer', { exact: true }).waitFor();
      // Accepted: no longer pending.
      const pending = owner.getByRole('region', { name: 'Pending invitations' });
      await pending.getByText('No invitation is waiting to be accepted.').waitFor();

      await chooseRowAction(owner, 'Victor Viewer', 'Change role');
      const change = owner.getByRole('dialog', { name: 'Change role' });
      await change.getByLabel('Role').selectOption('member');
      await shoot(owner, 'change-role');
      await change.getByRole('button', { name: 'Change role' }).click();
      await row.getByText('Member', { exact: true }).waitFor();
      // The viewer's open page takes the new role at its next request.
      await viewer.reload();
      await viewer.getByRole('button', { name: /^Account: Victor Viewer ?, Member/ }).waitFor();

      // A password-reset link, issued after confirming, sets a new password and signs them in.
      await chooseRowAction(owner, 'Victor Viewer', 'Issue password-reset link');
      await owner
        .getByRole('dialog', { name: 'Issue password-reset link' })
        .getByRole('button', { name: 'Issue link' })
        .click();
      const resetLink = (await owner.getByTestId('issued-link').textContent())?.trim() ?? '';
      expect(resetLink).toMatch(/\/dashboard\/reset#[\w-]+$/);
      await owner.getByRole('button', { name: 'Done' }).click();
      await viewer.goto(resetLink);
      await viewer.getByRole('heading', { level: 1, name: 'Choose a new password' }).waitFor();
      await expect.poll(() => viewer.url()).toBe(url('reset'));
      await viewer.getByLabel('New password', { exact: true }).fill(`${VIEWER_PASSWORD} anew`);
      await viewer.getByLabel('Confirm new password').fill(`${VIEWER_PASSWORD} anew`);
      await shoot(viewer, 'reset');
      await viewer.getByRole('button', { name: 'Set password' }).click();
      await viewer.getByRole('button', { name: /^Account: Victor Viewer ?, Member/ }).waitFor();

      await chooseRowAction(owner, 'Victor Viewer', 'Remove from workspace');
      const remove = owner.getByRole('dialog', { name: 'Remove member' });
      await remove.getByText('They are signed out of it at once').waitFor();
      await remove.getByRole('button', { name: 'Remove member' }).click();
      await expect.poll(() => row.count()).toBe(0);
      // Their session ended with the membership.
      await viewer.reload();
      await viewer.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    });

    it('revokes an invitation, whose link then says it is refused', async () => {
      await owner.getByRole('button', { name: 'Invite member' }).click();
      const dialog = owner.getByRole('dialog', { name: 'Invite member' });
      await dialog.getByLabel('Email').fill(`later-${width}@example.test`);
      await dialog.getByRole('button', { name: 'Invite', exact: true }).click();
      const link = (await owner.getByTestId('issued-link').textContent())?.trim() ?? '';
      await owner.getByRole('button', { name: 'Done' }).click();
      await chooseRowAction(owner, `invitation for later-${width}@example.test`, 'Revoke invitation');
      await owner
        .getByRole('dialog', { name: 'Revoke invitation' })
        .getByRole('button', { name: 'Revoke invitation' })
        .click();
      const pending = owner.getByRole('region', { name: 'Pending invitations' });
      await expect.poll(() => pending.getByRole('row').filter({ hasText: 'later-' }).count()).toBe(0);
      await viewer.goto(link);
      await viewer.getByRole('alert').waitFor();
      expect(viewer.url()).toBe(url('invite'));
    });

    it('shows the owner’s account: name, password, sessions, sign out everywhere', async () => {
      await owner.getByRole('button', { name: /^Account: Olivia Owner/ }).click();
      await owner.getByRole('menuitem', { name: 'Account settings' }).click();
      await owner.getByRole('heading', { level: 1, name: 'Account' }).waitFor();
      await owner.getByLabel('Name').fill('Olivia O. Owner');
      await owner.getByRole('button', { name: 'Save name' }).click();
      await owner.getByRole('button', { name: /^Account: Olivia O\. Owner/ }).waitFor();
      await owner.getByLabel('Current password').fill('wrong current password');
      await owner.getByLabel('New password', { exact: true }).fill(`${PASSWORD} again`);
      await owner.getByLabel('Confirm new password').fill(`${PASSWORD} again`);
      await owner.getByRole('button', { name: 'Change password' }).click();
      await owner.getByRole('alert').waitFor();
      const sessions = owner.getByRole('region', { name: 'Active sessions' });
      await sessions.getByText('This browser').waitFor();
      await shoot(owner, 'account');
      await owner.getByRole('button', { name: 'Sign out everywhere' }).click();
      await owner
        .getByRole('dialog', { name: 'Sign out everywhere' })
        .getByRole('button', { name: 'Sign out everywhere' })
        .click();
      await owner.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    });

    it('reported no script errors', async () => {
      await viewer.close();
      // A wrong password (401), a used link and a revoked invitation are refused on purpose.
      const unexpected = [...dashboard.pageErrors, ...errors].filter(
        (error) => !/status of (401|403|404|410|412)/.test(error),
      );
      expect(unexpected).toEqual([]);
    });
  });
}
