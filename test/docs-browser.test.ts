// The documentation page in a real browser (headless Chromium), in French and in English: it
// renders every resource, shows every field of every resource's schemas with its type, default
// and description without a click, an operation opens, "Try it out" reaches the service,
// nothing is fetched from elsewhere, and every response the page receives agrees with the
// OpenAPI document. Leaves screenshots in test-artifacts/ for a person to look at.
// @backend-independent (runs once, not once per backend): what it asserts is the page; its one "Try it out" request (a list) is covered on every backend by lists.test.ts.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser, type Locator, type Page, type Response as BrowserResponse } from 'playwright-core';
import { bodyFields } from '../src/registry/managed-fields.js';
import { DEFAULT_REGISTRY } from '../src/registry/registry.js';
import type { FieldDefinition } from '../src/registry/resource-definition.js';
import { startServer, type TestServer } from './support/server.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = resolve(import.meta.dirname, '..', 'test-artifacts');
const RESOURCES = DEFAULT_REGISTRY.resources.map((resource) => resource.name);
const TITLES = { en: /PmaControl configuration API/, fr: /API de configuration PmaControl/ } as const;

// In CI a missing browser is a failure (the test runs and says so); on a workstation
// without Chromium the test is skipped with the way to get it.
const available = existsSync(CHROMIUM);
const skip = available || process.env.CI === 'true' ? false : `Chromium not found at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)`;

let server: TestServer;
let browser: Browser | undefined;

before(async () => {
  server = await startServer();
});
after(async () => {
  await browser?.close();
  await server.stop();
  await server.cleanup();
});

/** A page that records what it fetches elsewhere, its errors, and checks every answer against the document. */
async function openPage(): Promise<{ page: Page; elsewhere: string[]; troubles: string[]; checks: Promise<void>[] }> {
  browser ??= await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 1400 } });
  const elsewhere: string[] = [];
  const troubles: string[] = [];
  const checks: Promise<void>[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(server.url) && !request.url().startsWith('data:')) elsewhere.push(request.url());
  });
  page.on('pageerror', (error) => troubles.push(`page error: ${error.message}`));
  // CSP violations and failed loads are reported on the console.
  page.on('console', (message) => {
    if (message.type() === 'error') troubles.push(`console: ${message.text()}`);
  });
  page.on('response', (response: BrowserResponse) => {
    const url = new URL(response.url());
    if (`${url.protocol}//${url.host}` !== server.url) return;
    checks.push(
      response.text().then((text) =>
        server.checkResponse(response.request().method(), `${url.pathname}${url.search}`, {
          status: response.status(),
          headers: new Headers(response.headers()),
          // Only the documents and API answers have a schema worth checking.
          text: /json|yaml/.test(response.headers()['content-type'] ?? '') ? text : '',
        }),
      ),
    );
  });
  return { page, elsewhere, troubles, checks };
}

/** A schema of the Schemas section, by name. */
function schemaOnPage(page: Page, name: string): Locator {
  const title = page.locator(':scope > .json-schema-2020-12-head .json-schema-2020-12__title', { hasText: new RegExp(`^${name}$`) });
  return page.locator('section.models article[data-json-schema-level="0"]').filter({ has: title });
}

interface ShownProperty {
  /** Laid out on the page (not folded away behind a toggle). */
  visible: boolean;
  /** Its text, white space folded: name, type, rule, description, default. */
  text: string;
  /** The type Swagger UI names in its heading. */
  type: string;
}

/**
 * Every property of every schema of the Schemas section, as the page shows it, read at once;
 * `done` names the schemas already read whole (every property laid out), which are not read
 * again (their text would force a layout of each of their properties at every screen).
 * Plain JavaScript text, run in the page: the test's own code is compiled for Node, not for it.
 */
const readSchemas = (done: string[]): string => `((done) => {
  const fold = (text) => text.replace(/\\s+/g, ' ').trim();
  const headOf = (article) => article.querySelector(':scope > .json-schema-2020-12-head');
  const titleOf = (article) => fold(headOf(article)?.querySelector('.json-schema-2020-12__title')?.textContent ?? '');
  const schemas = {};
  for (const schema of document.querySelectorAll('section.models article[data-json-schema-level="0"]')) {
    const title = titleOf(schema);
    if (done.has(title)) continue;
    const properties = {};
    const list = schema.querySelector(':scope > .json-schema-2020-12-body > .json-schema-2020-12-keyword--properties');
    for (const item of list ? list.querySelectorAll(':scope > ul > li.json-schema-2020-12-property') : []) {
      const article = item.querySelector(':scope > article');
      if (article === null) continue;
      const box = item.getBoundingClientRect();
      properties[titleOf(article)] = {
        visible: box.width > 0 && box.height > 0,
        text: fold(item.innerText),
        type: fold(headOf(article)?.querySelector('.json-schema-2020-12__attribute--primary')?.textContent ?? ''),
      };
    }
    schemas[title] = properties;
  }
  return schemas;
})(new Set(${JSON.stringify(done)}))`;

const SCROLLER = "(document.querySelector('section.models .models-scroll') ?? document.scrollingElement)";

/** Scrolls the Schemas section from `from` (a scroll position; the top by default) until
 * `target` is rendered (a virtual list). */
async function scrollModelsUntil(page: Page, target: Locator, from = 0): Promise<void> {
  await page.evaluate(`${SCROLLER}.scrollTop = ${from}`);
  for (let screen = 0; screen < 2000 && (await target.count()) === 0; screen++) {
    await page.evaluate(`${SCROLLER}.scrollTop += Math.floor(${SCROLLER}.clientHeight * 0.8)`);
    await page.waitForTimeout(30);
  }
}

interface ShownSchemas {
  schemas: Record<string, Record<string, ShownProperty>>;
  /** Where each schema was first seen (the scroll position): the screenshot goes back there. */
  seenAt: Map<string, number>;
}

/**
 * The next screen of the reading: Swagger UI renders the Schemas section as a virtual list in a
 * box of at most 800 px (`.models-scroll`), the schemas in view and a few beyond, all of which
 * a screen reads. Stepping 80 % of the box took 245 screens and 50 to 70 s per language on a
 * loaded machine, reading about one new schema a screen; the step goes to the top of the last
 * schema rendered when that is further (the ones before it were all rendered, and read), so no
 * schema is passed unread. Plain JavaScript text, run in the page; null when at the end.
 */
const NEXT_SCREEN = `(() => {
  const box = ${SCROLLER};
  const before = box.scrollTop;
  let target = before + Math.floor(box.clientHeight * 0.8);
  const items = box.matches('.models-scroll') ? box.querySelectorAll(':scope > div > [data-index]') : [];
  const last = [...items].sort((a, b) => Number(a.dataset.index) - Number(b.dataset.index)).at(-1);
  if (last !== undefined) target = Math.max(target, Math.floor(last.getBoundingClientRect().top - box.getBoundingClientRect().top + before));
  box.scrollTop = target;
  return box.scrollTop === before ? null : box.scrollTop;
})()`;

/** Swagger UI renders a long Schemas section as a virtual list (only what is in view): the
 * page is read as a reader scrolls it, top to bottom. A schema read with a property not laid
 * out yet is read again on the next screen. */
async function shownSchemas(page: Page): Promise<ShownSchemas> {
  const schemas: Record<string, Record<string, ShownProperty>> = {};
  const seenAt = new Map<string, number>();
  await page.evaluate(`${SCROLLER}.scrollTop = 0`);
  let position = 0;
  for (let screen = 0; screen < 2000; screen++) {
    const done = Object.entries(schemas).filter(([, properties]) => Object.values(properties).length > 0 && Object.values(properties).every((property) => property.visible));
    const read = (await page.evaluate(readSchemas(done.map(([name]) => name)))) as Record<string, Record<string, ShownProperty>>;
    for (const name of Object.keys(read)) if (!seenAt.has(name)) seenAt.set(name, position);
    Object.assign(schemas, read);
    const moved = (await page.evaluate(NEXT_SCREEN)) as number | null;
    if (moved === null) break;
    position = moved;
    await page.waitForTimeout(30);
  }
  return { schemas, seenAt };
}

/** Markdown as the page shows it: code spans without their backticks. */
const shown = (markdown: string): string => markdown.replace(/`/g, '').replace(/\s+/g, ' ');

/** Asserts every field shown; returns where each schema was first seen. */
async function assertFieldsShown(page: Page, language: 'en' | 'fr'): Promise<Map<string, number>> {
  const { schemas, seenAt } = await shownSchemas(page);
  for (const resource of DEFAULT_REGISTRY.resources) {
    const expected: [string, readonly (readonly [string, FieldDefinition])[]][] = [
      [resource.schemaName, resource.shownFields],
      [`${resource.schemaName}Create`, bodyFields(resource)],
    ];
    for (const [schemaName, fields] of expected) {
      const properties = schemas[schemaName];
      assert.ok(properties !== undefined, `${language}: schema ${schemaName} is on the page (${Object.keys(schemas).join(', ')})`);
      for (const [name, field] of fields) {
        const property = properties[name];
        const where = `${language}: ${schemaName}.${name}`;
        assert.ok(property?.visible, `${where} is shown`);
        assert.ok(property.text.includes(shown(field.description[language])), `${where} shows its description: ${property.text}`);
        assert.notEqual(property.type, '', `${where} shows its type`);
        assert.doesNotMatch(property.type, /\((\w+)( \| \1)+\)/, `${where}: a type that says nothing (${property.type})`);
        // A body's read-only fields are ignored: no default to take there.
        const defaulted = 'default' in field && !(field.readOnly && schemaName.endsWith('Create'));
        // Swagger UI words an empty array; every other default is shown as JSON.
        const defaultText = Array.isArray(field.default) && field.default.length === 0 ? 'empty array' : JSON.stringify(field.default);
        if (defaulted) assert.ok(property.text.includes(`Default${defaultText}`), `${where} shows its default: ${property.text}`);
      }
    }
  }
  assert.equal(schemas.ServerCreate?.ip?.type, 'string (ipv4 | ipv6 | hostname)');
  return seenAt;
}

describe('the documentation page in Chromium', { skip }, () => {
  for (const language of ['en', 'fr'] as const) {
    test(`${language}: every field with its type, default and description in sight; an operation tried; nothing from elsewhere`, { timeout: 180_000 }, async () => {
      assert.ok(available, `Chromium is required (CI=true) but not found at ${CHROMIUM}`);
      const { page, elsewhere, troubles, checks } = await openPage();
      await page.goto(`${server.url}/${language}/api/docs`);
      await page.waitForSelector('.opblock-tag-section', { timeout: 60_000 });
      const tags = await page.$$eval('.opblock-tag', (elements) => elements.map((element) => element.getAttribute('data-tag')));
      for (const resource of RESOURCES) assert.ok(tags.includes(resource), `tag ${resource} is shown (${tags.join(', ')})`);
      assert.match((await page.textContent('.info .title')) ?? '', TITLES[language]);

      // The reference: the Schemas section is open as the page loads, every field spelled out.
      await page.waitForSelector('section.models.is-open article', { timeout: 60_000 });
      const seenAt = await assertFieldsShown(page, language);
      const serverCreate = schemaOnPage(page, 'ServerCreate');
      mkdirSync(ARTIFACTS, { recursive: true });
      // Back to where the reading met it, not from the top again (18 s on a loaded machine).
      await scrollModelsUntil(page, serverCreate, seenAt.get('ServerCreate'));
      await serverCreate.scrollIntoViewIfNeeded();
      await serverCreate.screenshot({ path: join(ARTIFACTS, `docs-schema-${language}.png`) });

      // Open the tags section, then "List entries of tags"; Try it out is on already, so
      // Execute sends it at once.
      await page.locator('#operations-tag-tags').click();
      const operation = page.locator('#operations-tags-listTags');
      await operation.locator('.opblock-summary').click();
      await operation.locator('.opblock-body').waitFor();
      await operation.locator('button.execute').click();
      const status = operation.locator('.live-responses-table tr.response .response-col_status').first();
      await status.waitFor({ timeout: 30_000 });
      assert.equal((await status.textContent())?.trim(), '200');

      // For the screenshot: a short operation open instead of the long list, its request body's
      // fields shown as a schema rather than an example.
      await operation.locator('.opblock-summary').click();
      const create = page.locator('#operations-tags-createTag');
      await create.locator('.opblock-summary').click();
      await create.locator('.opblock-body').waitFor();
      // Try it out puts the editable example first; its Schema tab lists the fields.
      await create.locator('.opblock-section-request-body button[data-name="model"]').first().click();
      await create.locator('.opblock-section-request-body .json-schema-2020-12').first().waitFor();
      // The section opens with an animation: let the layout settle before the picture.
      await page.evaluate(() => new Promise((done) => setTimeout(done, 500)));
      await page.locator('#operations-tag-tags').scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(ARTIFACTS, `docs-page-${language}.png`) });
      await Promise.all(checks);
      assert.deepEqual(elsewhere, [], 'the page fetched something from another origin');
      assert.deepEqual(troubles, [], 'the page reported errors');
      await page.close();
    });
  }
});
