// The console with more clients and tags than the first page of choices it reads (1,000, the
// bench's own seed): a reference beyond that page is named, not shown as `#id`, and every
// client and tag is reachable in the server form, the list's filters and the bulk tag choice,
// by a text input whose suggestions come from the API's `q` search (reference-picker.tsx); the
// CSV import finds them by name (csv-names.ts).
// SQLite only, like console.test.ts.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { Locator } from 'playwright-core';
import { checkAxe, closeConsoleBrowser, openConsole, skipWithoutChromium } from './support/console-browser.js';
import { serverPerSuite } from './support/server.js';
import { BACKEND } from './support/test-database.js';

const skip = BACKEND !== 'sqlite' ? `the console's flows run on SQLite (TEST_DATABASE=${BACKEND})` : skipWithoutChromium;

describe('the operator console with more than 1,000 clients and tags', { skip }, () => {
  const server = serverPerSuite();
  after(closeConsoleBrowser);

  /** Creates 1,000 entries of `resource` through the bulk POST, named so they sort first. */
  async function seed(resource: string, field: string): Promise<void> {
    const body = Array.from({ length: 1000 }, (_, index) => ({ [field]: `bulk-${String(index).padStart(4, '0')}` }));
    assert.equal((await server.request('POST', `/en/api/config/${resource}`, { body })).status, 201);
  }
  async function create(resource: string, body: Record<string, unknown>): Promise<number> {
    const made = await server.request('POST', `/en/api/config/${resource}`, { body });
    assert.equal(made.status, 201);
    return made.body.id as number;
  }

  /** Waits for an input's value (polled from the test: the console's CSP refuses a string predicate's eval). */
  async function valueMatches(input: Locator, pattern: RegExp): Promise<void> {
    for (let waited = 0; !pattern.test(await input.inputValue()); waited += 50) {
      assert.ok(waited < 10_000, `the input's value never matched ${pattern}`);
      await new Promise((resume) => setTimeout(resume, 50));
    }
  }

  test('a reference past the first 1,000 is named; every client and tag can be chosen, by search', async () => {
    await seed('clients', 'libelle');
    await seed('tags', 'name');
    const far = await create('clients', { libelle: 'zz-far-client' });
    const other = await create('clients', { libelle: 'zz-far-second' });
    const farTag = await create('tags', { name: 'zz-far-tag' });
    const otherTag = await create('tags', { name: 'zz-far-tag-two' });
    const id = await create('servers', { ip: '10.78.0.1', hostname: 'far-1', id_client: far, tags: [farTag] });
    // Another server with another client and tag: the filters must leave it out.
    const near = await create('servers', { ip: '10.78.0.9', hostname: 'near-9', id_client: far, tags: [farTag] });

    const session = await openConsole(server, `#/servers/${id}`);
    let { page } = session;
    await page.locator('tr[data-field="id_client"]').getByRole('link', { name: 'zz-far-client' }).waitFor();
    await page.locator('tr[data-field="tags"]').getByRole('link', { name: 'zz-far-tag' }).waitFor();

    // The form: the client by typing part of its name and taking the suggestion; a tag added the same way.
    await page.goto(`${server.url}/en/console/#/servers/${id}/edit`);
    const client = page.getByLabel('id_client', { exact: true });
    await valueMatches(client, /^zz-far-client #/);
    await client.fill('far-sec');
    await page.locator(`#field-id_client-choices option[value="zz-far-second #${other}"]`).waitFor({ state: 'attached' });
    await client.fill(`zz-far-second #${other}`);
    const tagInput = page.locator('#field-tags');
    await tagInput.fill('tag-two');
    await page.locator(`#field-tags-choices option[value="zz-far-tag-two #${otherTag}"]`).waitFor({ state: 'attached' });
    await tagInput.fill(`zz-far-tag-two #${otherTag}`);
    await page.getByRole('button', { name: 'Remove zz-far-tag-two' }).waitFor();
    await checkAxe(page, 'the server form with searched choices');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    const stored = (await server.request('GET', `/en/api/config/servers/${id}`)).body.item;
    assert.equal(stored.id_client, other);
    assert.deepEqual([...stored.tags].sort((a: number, b: number) => a - b), [farTag, otherTag].sort((a, b) => a - b));

    // A search typed in the picker and not chosen from names nothing: saving keeps the client (it sent null before).
    await page.goto(`${server.url}/en/console/#/servers/${id}/edit`);
    await valueMatches(client, new RegExp(`^zz-far-second #${other}$`));
    await client.fill('zz-far');
    assert.equal(await client.getAttribute('aria-invalid'), 'true');
    await page.locator('#field-id_client-unnamed').waitFor();
    await page.getByLabel('hostname', { exact: true }).fill('far-1-renamed');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    const kept = (await server.request('GET', `/en/api/config/servers/${id}`)).body.item;
    assert.equal(kept.hostname, 'far-1-renamed');
    assert.equal(kept.id_client, other);

    // The list's filters: a client and a tag past the first 1,000.
    await page.goto(`${server.url}/en/console/#/servers`);
    await page.locator(`tr[data-id="${near}"]`).waitFor();
    const filter = page.locator('#filter-client');
    await filter.fill('far-sec');
    await page.locator(`#filter-client-choices option[value="zz-far-second #${other}"]`).waitFor({ state: 'attached' });
    await filter.fill(`zz-far-second #${other}`);
    await page.locator('#filter-tag').fill(`zz-far-tag-two #${otherTag}`);
    await checkAxe(page, 'the server filters with searched choices');
    await page.locator('#filter-tag').press('Enter');
    await page.waitForURL(new RegExp(`id_client=${other}.*tag=${otherTag}|tag=${otherTag}.*id_client=${other}`));
    await page.locator('td[data-field="hostname"]', { hasText: 'far-1' }).waitFor();
    await page.locator(`tr[data-id="${near}"]`).waitFor({ state: 'detached', timeout: 5000 });
    assert.equal(await page.locator('#filter-client').inputValue(), `zz-far-second #${other}`);

    await session.finish();

    // The CSV import finds a client and tags by name past the first 1,000 (a new tab: none of them read by id yet).
    const importing = await openConsole(server, '#/import');
    page = importing.page;
    await page.getByLabel('CSV text').fill('ip,client,tags\n10.78.0.2,ZZ-FAR-CLIENT,zz-far-tag;zz-far-tag-two\n');
    await page.getByRole('button', { name: 'Read the CSV' }).click();
    const tagsColumn = page.getByLabel('Column “tags” goes to');
    await tagsColumn.selectOption({ label: 'tags (names, separated by ;)' });

    // A mapping changed while the check looks names up (held here) drops that check: no preview, no create button, no POST.
    let release = (): void => undefined;
    const held = new Promise<void>((resume) => (release = resume));
    let searched = (): void => undefined;
    const searching = new Promise<void>((resume) => (searched = resume));
    await page.route(/\/config\/tags\?q=/, async (route) => {
      searched();
      await held;
      await route.continue();
    });
    const posts: string[] = [];
    page.on('request', (sent) => sent.method() === 'POST' && /\/config\/servers/.test(sent.url()) && posts.push(sent.url()));
    await page.getByRole('button', { name: 'Check (dry run)' }).click();
    await searching;
    await tagsColumn.selectOption({ label: '(ignore)' });
    const answered = page.waitForResponse(/\/config\/tags\?q=/);
    release();
    await answered;
    // Time for the dropped check to have posted and shown its button had it not been dropped.
    await page.waitForTimeout(1000);
    assert.deepEqual(posts, []);
    assert.equal(await page.getByRole('button', { name: /^Create these/ }).count(), 0);
    await page.unroute(/\/config\/tags\?q=/);

    await tagsColumn.selectOption({ label: 'tags (names, separated by ;)' });
    await page.getByRole('button', { name: 'Check (dry run)' }).click();
    await page.getByRole('button', { name: 'Create these 1 servers' }).click();
    await page.getByText('1 servers created.').waitFor();
    const imported = (await server.request('GET', '/en/api/config/servers?q=10.78.0.2')).body.items[0];
    assert.equal(imported.id_client, far);
    assert.deepEqual(imported.tags, [farTag, otherTag].sort((a, b) => a - b));
    await importing.finish();
  });
});
