// The console's server list and edit flows on the backend under test (SQLite and PostgreSQL;
// MariaDB's lists are the same API and are left to the API's own tests, to keep the suite
// short): a few hundred servers paged by cursor with the total, filtered by client, tag and
// `q`, sorted; an edit that meets a second writer (412), shown beside the user's values, the
// user choosing field by field. The rest of the console is tested on SQLite (console.test.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { closeConsoleBrowser, openConsole, screenshots, skipWithoutChromium } from './support/console-browser.js';
import { serverPerSuite } from './support/server.js';
import { BACKEND } from './support/test-database.js';

const skip = BACKEND === 'mariadb' ? 'the console list and edit flows run on SQLite and PostgreSQL' : skipWithoutChromium;
const SERVERS = 300;

describe(`the console's server list and edit on ${BACKEND}`, { skip }, () => {
  const server = serverPerSuite();
  const clients: number[] = [];
  let tag = 0;
  before(async () => {
    for (const libelle of ['list-alpha', 'list-beta', 'list-gamma']) clients.push((await server.request('POST', '/en/api/config/clients', { body: { libelle } })).body.id);
    tag = (await server.request('POST', '/en/api/config/tags', { body: { name: 'list-galera' } })).body.id;
    const body = Array.from({ length: SERVERS }, (_, index) => ({
      ip: `10.${Math.floor(index / 250)}.${index % 250}.1`,
      hostname: `db-${String(index).padStart(3, '0')}${index % 10 === 0 ? '-paris' : ''}`,
      id_client: clients[index % 3],
      tags: index % 2 === 0 ? [tag] : [],
    }));
    const made = await server.request('POST', '/en/api/config/servers', { body });
    assert.equal(made.status, 201);
  });
  after(closeConsoleBrowser);

  test('cursor paging with the total, filters of section 11, q and sort', async () => {
    const session = await openConsole(server, '#/servers');
    const { page } = session;
    await page.getByText(`50 shown of ${SERVERS}`).waitFor();
    const firstIds = await page.locator('table.list tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-id')));
    assert.equal(firstIds[0], String(SERVERS));
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.waitForURL(/after=/);
    await page.locator(`tr[data-id="${SERVERS - 50}"]`).waitFor();
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.locator(`tr[data-id="${SERVERS - 100}"]`).waitFor();
    await page.getByRole('button', { name: 'Previous page' }).click();
    await page.locator(`tr[data-id="${SERVERS - 50}"]`).waitFor();
    await page.getByRole('button', { name: 'First page' }).click();
    await page.locator(`tr[data-id="${SERVERS}"]`).waitFor();

    // Client beta, tag galera, "paris" in a text field, by hostname: as the API answers it.
    await page.getByLabel('Client').selectOption(String(clients[1]));
    await page.getByLabel('list-galera').check();
    await page.getByLabel('Search').fill('paris');
    await page.getByLabel('Sort by').selectOption('hostname');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/q=paris/);
    const expected = await server.request('GET', `/en/api/config/servers?id_client=${clients[1]}&tag=${tag}&q=paris&sort=hostname&limit=50`);
    await page.getByText(`${expected.body.items.length} shown of ${expected.body.total}`).waitFor();
    const hostnames = await page.locator('td[data-field="hostname"]').allInnerTexts();
    assert.deepEqual(hostnames, expected.body.items.map((item: { hostname: string }) => item.hostname));
    assert.ok(hostnames.length > 0);
    await screenshots(page, `servers-filtered-${BACKEND}`);
    await session.finish();
  });

  test('edit with If-Match: a second writer meanwhile gives 412, the stored version beside the user’s, the user chooses', async () => {
    const id = 7;
    const session = await openConsole(server, `#/servers/${id}/edit`, { expectedStatuses: [412] });
    const { page } = session;
    await page.getByRole('heading', { name: `Servers #${id}: Edit` }).waitFor();
    await page.getByLabel('hostname').fill('mine-host');
    await page.getByLabel('port').fill('3310');
    // The second writer.
    const other = await server.request('PATCH', `/en/api/config/servers/${id}`, { body: { hostname: 'their-host', is_monitored: false } });
    assert.equal(other.status, 200);
    await page.getByRole('button', { name: 'Save' }).click();
    const conflict = page.locator('form.conflict');
    await conflict.getByRole('heading', { name: 'Someone else changed this entry while you were editing it' }).waitFor();
    const rows = conflict.locator('tbody tr');
    assert.deepEqual(await rows.evaluateAll((all) => all.map((row) => row.getAttribute('data-field'))), ['port', 'hostname', 'is_monitored']);
    const hostname = conflict.locator('tr[data-field="hostname"]');
    assert.match(await hostname.innerText(), /mine-host[\s\S]*their-host/);
    await screenshots(page, `server-conflict-${BACKEND}`);
    // Defaults: the user's value where the user changed the field, the stored one elsewhere.
    assert.ok(await conflict.locator('tr[data-field="port"] input').first().isChecked());
    assert.ok(await conflict.locator('tr[data-field="is_monitored"] input').nth(1).isChecked());
    await hostname.getByLabel(/keep the stored value/).check();
    await conflict.getByRole('button', { name: 'Save my choices' }).click();
    await page.getByText('Saved.').waitFor();
    const stored = (await server.request('GET', `/en/api/config/servers/${id}`)).body.item;
    assert.deepEqual({ hostname: stored.hostname, port: stored.port, is_monitored: stored.is_monitored }, { hostname: 'their-host', port: 3310, is_monitored: false });
    await session.finish();
  });
});
