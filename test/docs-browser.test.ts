// The documentation page in a real browser (headless Chromium): it renders every resource,
// an operation opens, "Try it out" reaches the service, nothing is fetched from elsewhere,
// and every response the page receives agrees with the OpenAPI document. Leaves a
// screenshot in test-artifacts/docs-page.png for a person to look at.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser, type Response as BrowserResponse } from 'playwright-core';
import { startServer, type TestServer } from './support/server.js';
import { DEFAULT_REGISTRY } from '../src/registry/registry.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = resolve(import.meta.dirname, '..', 'test-artifacts');
const SCREENSHOT = join(ARTIFACTS, 'docs-page.png');
const RESOURCES = DEFAULT_REGISTRY.resources.map((resource) => resource.name);

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

describe('the documentation page in Chromium', { skip }, () => {
  test('renders the seven resources, opens an operation, tries it, and stays on this origin', { timeout: 120_000 }, async () => {
    assert.ok(available, `Chromium is required (CI=true) but not found at ${CHROMIUM}`);
    browser = await chromium.launch({
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

    await page.goto(`${server.url}/en/api/docs`);
    await page.waitForSelector('.opblock-tag-section', { timeout: 30_000 });
    const shown = await page.$$eval('.opblock-tag', (tags) => tags.map((tag) => tag.getAttribute('data-tag')));
    for (const resource of RESOURCES) assert.ok(shown.includes(resource), `tag ${resource} is shown (${shown.join(', ')})`);
    assert.match((await page.textContent('.info .title')) ?? '', /PmaControl configuration API/);

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

    // For the screenshot: the whole page, with a short operation open instead of the long list.
    await operation.locator('.opblock-summary').click();
    const readOne = page.locator('#operations-tags-getTag');
    await readOne.locator('.opblock-summary').click();
    await readOne.locator('.responses-table').first().waitFor();
    // The section opens with an animation: let the layout settle before measuring the page.
    await page.evaluate(() => new Promise((done) => setTimeout(done, 500)));
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    await Promise.all(checks);
    assert.deepEqual(elsewhere, [], 'the page fetched something from another origin');
    assert.deepEqual(troubles, [], 'the page reported errors');
  });
});
