// What an audit of the console against contract section 19 found, in headless Chromium: the
// keyboard focus after an answer that swaps the buttons (a 412's conflict, a refused field, a
// cancelled or done delete, a restore, a bulk change, an import) stays where the operator acts
// instead of falling back to the document's start; the tab's own writes, coming back through the change stream, are not
// marked "changed elsewhere" while a write made elsewhere still is; a 412 because the server
// was deleted meanwhile says so; a row hard-deleted
// elsewhere offers neither Restore nor Edit; a CSV import creates only what its dry run
// checked (a mapping changed after the preview takes the preview away); an entry's history
// past fifty changes, a server's aliases and webhooks past the first hundred are reachable; a refused read does not also say "Loading…". SQLite only, like console.test.ts.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { checkAxe, closeConsoleBrowser, openConsole, skipWithoutChromium } from './support/console-browser.js';
import { serverPerSuite, startServer } from './support/server.js';
import { BACKEND } from './support/test-database.js';
import { TEXTS } from '../console/src/texts.js';

const skip = BACKEND !== 'sqlite' ? `the console's audit flows run on SQLite (TEST_DATABASE=${BACKEND})` : skipWithoutChromium;

/** Asserts that the focused element, as `TAG#id text`, comes to match (Preact moves it after its render). */
async function assertFocus(page: Page, expected: RegExp): Promise<void> {
  const read = (): Promise<string> => page.evaluate(`(() => { const e = document.activeElement; return e === null ? '' : e.tagName + '#' + e.id + ' ' + (e.textContent || '').trim(); })()`) as Promise<string>;
  const until = Date.now() + 2000;
  let now = await read();
  while (!expected.test(now) && Date.now() < until) {
    await page.waitForTimeout(50);
    now = await read();
  }
  assert.match(now.slice(0, 80), expected);
}

describe('the operator console, as audited', { skip }, () => {
  const server = serverPerSuite();
  after(closeConsoleBrowser);

  test('the focus stays where the operator acts: a 412, a refused field, a delete cancelled, done, and a restore', async () => {
    const id = (await server.request('POST', '/en/api/config/servers', { body: { ip: '10.77.0.1', hostname: 'focus-1' } })).body.id as number;
    const session = await openConsole(server, `#/servers/${id}/edit`, { expectedStatuses: [412, 422] });
    const { page } = session;
    await page.getByRole('heading', { name: `Servers #${id}: Edit` }).waitFor();
    await page.getByLabel('hostname').fill('mine');
    assert.equal((await server.request('PATCH', `/en/api/config/servers/${id}`, { body: { hostname: 'theirs' } })).status, 200);
    await page.getByLabel('hostname').press('Enter');
    await page.locator('form.conflict').waitFor();
    await assertFocus(page, /^H2#conflict-title Someone else changed/);
    await checkAxe(page, 'the 412 conflict');
    await page.getByRole('button', { name: 'Discard my changes' }).focus();
    await page.keyboard.press('Enter');
    await page.locator('form.conflict').waitFor({ state: 'detached' });
    await assertFocus(page, /^INPUT#field-ip /);
    await page.getByLabel('port').fill('99999');
    await page.keyboard.press('Enter');
    await page.getByRole('alert').waitFor();
    await assertFocus(page, /^INPUT#field-port /);

    await page.goto(`${server.url}/en/console/#/servers/${id}`);
    await page.getByRole('heading', { name: `Servers #${id}` }).waitFor();
    await page.getByRole('button', { name: 'Delete' }).focus();
    await page.keyboard.press('Enter');
    await assertFocus(page, /^BUTTON# Confirm delete$/);
    await page.getByRole('button', { name: 'Cancel' }).focus();
    await page.keyboard.press('Enter');
    await assertFocus(page, /^BUTTON# Delete$/);
    await page.keyboard.press('Enter');
    await assertFocus(page, /^BUTTON# Confirm delete$/);
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Restore' }).waitFor();
    await assertFocus(page, /^BUTTON# Restore$/);
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Delete' }).waitFor();
    await assertFocus(page, /^A# Edit$/);
    assert.equal((await server.request('GET', `/en/api/config/servers/${id}`)).body.item.is_deleted, 0);
    await session.finish();
  });

  test('a 412 because the server was deleted meanwhile says so, in English and in French', async () => {
    for (const [lang, words] of [['en', /The stored version is deleted/], ['fr', /La version enregistrée est supprimée/]] as const) {
      const id = (await server.request('POST', '/en/api/config/servers', { body: { ip: `10.77.3.${lang === 'en' ? 1 : 2}` } })).body.id as number;
      const session = await openConsole(server, `#/servers/${id}/edit`, { lang, expectedStatuses: [412] });
      const { page } = session;
      await page.getByLabel('hostname').fill('mine');
      assert.equal((await server.request('DELETE', `/en/api/config/servers/${id}`)).status, 200);
      await page.getByLabel('hostname').press('Enter');
      await page.locator('form.conflict').waitFor();
      assert.match(await page.locator('form.conflict').innerText(), words);
      await checkAxe(page, `the 412 of a deleted server (${lang})`);
      await session.finish();
    }
  });

  test('after a bulk change or a restore from the list, the focus is on the page heading, not the document start', async () => {
    const ids: number[] = [];
    for (const ip of ['10.77.4.1', '10.77.4.2']) ids.push((await server.request('POST', '/en/api/config/servers', { body: { ip } })).body.id as number);
    const tag = (await server.request('POST', '/en/api/config/tags', { body: { name: 'audit-bulk' } })).body.id as number;
    assert.equal((await server.request('DELETE', `/en/api/config/servers/${ids[1]}`)).status, 200);
    const session = await openConsole(server, '#/servers?include_deleted=true&q=10.77.4.');
    const { page } = session;
    await page.getByLabel(`Select #${ids[0]}`).check();
    await page.getByLabel('Tag for the selected servers').selectOption(String(tag));
    await page.getByRole('button', { name: 'Add tag' }).focus();
    await page.keyboard.press('Enter');
    await page.getByText('1 server changed.').waitFor();
    await assertFocus(page, /^H1# Servers/);
    await page.getByRole('button', { name: `Restore #${ids[1]}` }).focus();
    await page.keyboard.press('Enter');
    await page.getByText('Restored.').waitFor();
    await assertFocus(page, /^H1# Servers/);
    assert.deepEqual((await server.request('GET', `/en/api/config/servers/${ids[0]}`)).body.item.tags, [tag]);
    await session.finish();
  });

  test('the tab’s own write is not marked "changed elsewhere"; a write made elsewhere is, within a second', async () => {
    const mine = (await server.request('POST', '/en/api/config/servers', { body: { ip: '10.77.9.1', hostname: 'mine' } })).body.id as number;
    const theirs = (await server.request('POST', '/en/api/config/servers', { body: { ip: '10.77.9.2', hostname: 'theirs' } })).body.id as number;
    assert.equal((await server.request('DELETE', `/en/api/config/servers/${mine}`)).status, 200);
    const session = await openConsole(server, '#/servers?include_deleted=true&q=10.77.9.');
    const { page } = session;
    await page.getByText('Live: changes made elsewhere appear here.').waitFor();
    await page.getByRole('button', { name: `Restore #${mine}` }).click();
    await page.getByText('Restored.').waitFor();
    // A write made elsewhere after the tab's own: the stream is ordered, so once its mark shows,
    // the tab's own record has been applied too, and left no mark.
    assert.equal((await server.request('PATCH', `/en/api/config/servers/${theirs}`, { body: { hostname: 'theirs-changed' } })).status, 200);
    await page.locator(`tr[data-id="${theirs}"] .changed-badge`).waitFor({ timeout: 1500 });
    assert.equal(await page.locator('.changed-badge').count(), 1, 'the tab’s own restore is marked "changed elsewhere"');
    await session.finish();
  });

  test('an entry hard-deleted elsewhere stays on the list as deleted, with neither Restore (servers only) nor Edit', async () => {
    const tag = (await server.request('POST', '/en/api/config/tags', { body: { name: 'audit-doomed' } })).body.id as number;
    const session = await openConsole(server, '#/tags');
    const { page } = session;
    const row = page.locator(`tr[data-id="${tag}"]`);
    await row.waitFor();
    await page.getByText('Live: changes made elsewhere appear here.').waitFor();
    assert.equal((await server.request('DELETE', `/en/api/config/tags/${tag}`)).status, 200);
    await row.getByText('deleted', { exact: true }).waitFor({ timeout: 1500 });
    assert.equal(await row.getByRole('button', { name: /Restore/ }).count(), 0, 'a deleted tag offers Restore');
    assert.equal(await row.getByRole('link', { name: /Edit/ }).count(), 0, 'a deleted tag offers Edit');
    await checkAxe(page, 'a tag deleted elsewhere');
    await session.finish();
  });

  test('CSV import: a mapping changed after the dry run takes the preview away; what is created is what was checked', async () => {
    await server.request('POST', '/en/api/config/clients', { body: { libelle: 'csv-audit' } });
    const session = await openConsole(server, '#/import');
    const { page } = session;
    await page.getByLabel('CSV text').fill('ip,hostname,client\n10.77.1.1,csv-one,csv-audit\n');
    await page.getByRole('button', { name: 'Read the CSV' }).click();
    await page.getByRole('button', { name: 'Check (dry run)' }).click();
    await page.getByRole('button', { name: 'Create these 1 servers' }).waitFor();
    await page.getByLabel('Column “hostname” goes to').selectOption({ label: '(ignore)' });
    assert.equal(await page.getByRole('button', { name: /^Create these/ }).count(), 0, 'the preview of another mapping still offers to create');
    await page.getByRole('button', { name: 'Check (dry run)' }).click();
    await page.getByRole('button', { name: 'Create these 1 servers' }).click();
    await page.getByText('1 servers created.').waitFor();
    await assertFocus(page, /^H1# Import servers from CSV/);
    const made = (await server.request('GET', '/en/api/config/servers?q=10.77.1.1')).body.items as { hostname: string }[];
    assert.deepEqual(made.map((one) => one.hostname), ['']);
    await session.finish();
  });

  test('an entry\'s history past its newest fifty changes is reached with "older changes"', async () => {
    const id = (await server.request('POST', '/en/api/config/servers', { body: { ip: '10.77.5.1' } })).body.id as number;
    for (let index = 1; index <= 55; index++) assert.equal((await server.request('PATCH', `/en/api/config/servers/${id}`, { body: { hostname: `h-${index}` } })).status, 200);
    const session = await openConsole(server, `#/servers/${id}`);
    const { page } = session;
    const changes = page.locator('ol.history > li');
    await page.getByRole('button', { name: 'Older changes (6 more)' }).waitFor();
    assert.equal(await changes.count(), 50);
    await page.getByRole('button', { name: 'Older changes (6 more)' }).click();
    await page.locator('ol.history > li').nth(55).waitFor();
    assert.equal(await changes.count(), 56);
    assert.match(await changes.last().innerText(), /^created/);
    assert.equal(await page.getByRole('button', { name: /^Older changes/ }).count(), 0);
    // A change made elsewhere reads the history again: as many as were shown, the older ones kept.
    assert.equal((await server.request('PATCH', `/en/api/config/servers/${id}`, { body: { hostname: 'h-elsewhere' } })).status, 200);
    await page.locator('ol.history > li').nth(56).waitFor();
    assert.equal(await changes.count(), 57);
    assert.match(await changes.last().innerText(), /^created/);
    await session.finish();
  });

  test('a server\'s aliases past the first hundred are reached with "more aliases"', async () => {
    const id = (await server.request('POST', '/en/api/config/servers', { body: { ip: '10.77.6.1' } })).body.id as number;
    const body = Array.from({ length: 101 }, (_, index) => ({ id_mysql_server: id, dns: `alias-${String(index).padStart(3, '0')}.example`, port: 3306 }));
    assert.equal((await server.request('POST', '/en/api/config/aliases', { body })).status, 201);
    const session = await openConsole(server, `#/servers/${id}`);
    const { page } = session;
    const aliases = page.getByRole('region', { name: 'Aliases' }).getByRole('listitem');
    await page.getByRole('button', { name: 'More aliases (1 more)' }).waitFor();
    assert.equal(await aliases.count(), 100);
    await page.getByRole('button', { name: 'More aliases (1 more)' }).click();
    await page.getByRole('link', { name: 'alias-100.example:3306' }).waitFor();
    assert.equal(await aliases.count(), 101);
    assert.equal(await page.getByRole('button', { name: /^More aliases/ }).count(), 0);
    await session.finish();
  });

  test('French texts put a narrow no-break space before : ; ? !', async () => {
    // Every French text (functions with sample values), a regular space or none before the mark being the fault;
    // 'séparés par ;' names the separator and « Nom: valeur » a header's syntax.
    const texts = Object.values(TEXTS.fr).flatMap((value) => (typeof value === 'string' ? [value] : typeof value === 'function' ? [String((value as (...args: unknown[]) => unknown)(2, 3, true))] : []));
    const faults = texts.filter((text) => /(^|[^\u202f\u00a0])[:;?!](\s|$)/u.test(text.replace('séparés par ;', '').replace('Nom: valeur', '')));
    assert.deepEqual(faults, []);
    const session = await openConsole(server, '#/servers/new', { lang: 'fr', expectedStatuses: [422] });
    const { page } = session;
    await page.getByText('par défaut\u202f: 3306').waitFor();
    await page.getByLabel('ip', { exact: true }).fill('10.77.7.1');
    await page.getByLabel('port', { exact: true }).fill('99999');
    await page.getByLabel('port', { exact: true }).press('Enter');
    await page.getByRole('alert').getByText('(422 VALIDATION_FAILED)\u202f:', { exact: false }).first().waitFor();
    await session.finish();
  });

  test('webhooks past the first hundred are reached by the list\'s next page', async () => {
    const admin = 'console-audit-admin-0123456789';
    const guarded = await startServer({ env: { API_TOKENS: `ops=admin:${admin}`, WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' } });
    try {
      // Subscribed to SSH keys only, which no test changes: none of them ever sends anything.
      for (let index = 1; index <= 101; index++) {
        const made = await guarded.request('POST', '/en/api/webhooks', { headers: { authorization: `Bearer ${admin}` }, body: { name: `audit-hook-${index}`, url: 'http://127.0.0.1:9/hook', resources: ['ssh-keys'] } });
        assert.equal(made.status, 201);
      }
      const session = await openConsole(guarded, '#/webhooks', { token: admin });
      const { page } = session;
      await page.getByRole('link', { name: 'audit-hook-101', exact: true }).waitFor();
      assert.equal(await page.getByRole('link', { name: 'audit-hook-1', exact: true }).count(), 0);
      await page.getByRole('link', { name: 'Next page' }).click();
      await page.getByRole('link', { name: 'audit-hook-1', exact: true }).waitFor();
      await session.finish();
    } finally {
      await guarded.stop();
      await guarded.cleanup();
    }
  });

  test('a refused read (a list, an entry\'s history, the change log) shows the refusal, not "Loading…" beside it', async () => {
    const session = await openConsole(server, '#/servers?limit=5000', { expectedStatuses: [400, 404] });
    const { page } = session;
    await page.getByRole('alert').getByText(/400 BAD_QUERY/).waitFor();
    assert.equal(await page.getByText('Loading…').count(), 0);
    await checkAxe(page, 'a refused list read');
    // An entry that never existed: its page says 404 once (not again for its history), nothing still loads.
    await page.goto(`${server.url}/en/console/#/servers/99999`);
    await page.getByRole('alert').getByText(/404/).first().waitFor();
    await page.waitForTimeout(300);
    assert.equal(await page.getByText(/404/).count(), 1);
    assert.equal(await page.getByText('Loading…').count(), 0);
    // A hard-deleted entry keeps its history below its 404.
    const gone = (await server.request('POST', '/en/api/config/tags', { body: { name: 'audit-gone-tag' } })).body.id as number;
    assert.equal((await server.request('DELETE', `/en/api/config/tags/${gone}`)).status, 200);
    await page.goto(`${server.url}/en/console/#/tags/${gone}`);
    await page.getByRole('region', { name: 'History' }).getByText(/^deleted/).waitFor();
    await page.goto(`${server.url}/en/console/#/changes?since=-1`);
    await page.getByRole('alert').first().waitFor();
    assert.equal(await page.getByText('Loading…').count(), 0);
    await session.finish();
  });
});
