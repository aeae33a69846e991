// The console's browser tests: one headless Chromium per test file (launched on first use),
// one browser context per flow. Each console page records every request it makes to the
// API (`/{lang}/api/...`) and checks it against the operations of the served OpenAPI
// document, checks every answer against the document as the suite does, reports page errors
// and anything fetched from another origin; `checkAxe` runs axe-core (from npm, evaluated in
// the page: the console's CSP forbids inline scripts, which the DevTools protocol is not
// subject to) and fails on a serious or critical violation; `screenshots` keeps each page at
// 1280x800 and at a phone's 390x844 in test-artifacts/.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { TestServer } from './server.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = resolve(import.meta.dirname, '..', '..', 'test-artifacts', 'console');
export const chromiumAvailable = existsSync(CHROMIUM);
/** In CI a missing browser is a failure; elsewhere the file is skipped with the way to get it. */
export const skipWithoutChromium = chromiumAvailable || process.env.CI === 'true' ? false : `Chromium not found at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)`;

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
export const DESKTOP = { width: 1280, height: 800 } as const;
export const PHONE = { width: 390, height: 844 } as const;

let browser: Browser | undefined;

export async function consoleBrowser(): Promise<Browser> {
  assert.ok(chromiumAvailable, `Chromium is required (CI=true) but not found at ${CHROMIUM}`);
  browser ??= await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return browser;
}

export async function closeConsoleBrowser(): Promise<void> {
  await browser?.close();
  browser = undefined;
}

/** `/{lang}/api/config/{resource}/{id}` and the like, as patterns, with their methods. */
async function documentOperations(server: TestServer): Promise<{ pattern: RegExp; methods: Set<string>; template: string }[]> {
  const document = (await server.request('GET', '/en/api/openApi')).body as { paths: Record<string, Record<string, unknown>> };
  return Object.entries(document.paths).map(([template, operations]) => ({
    template,
    pattern: new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    methods: new Set(Object.keys(operations).map((method) => method.toUpperCase())),
  }));
}

export interface ConsoleSession {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Every API request the page made, as `METHOD /path` (no query). */
  readonly apiRequests: string[];
  /** Requests that no operation of the document declares. */
  readonly offContract: string[];
  readonly troubles: string[];
  /** Waits for the answer checks, then asserts that nothing went wrong; closes the context. */
  finish(): Promise<void>;
}

export interface OpenOptions {
  lang?: 'en' | 'fr';
  /** Put in the tab's session storage before the page loads, as a signed-in tab has it. */
  token?: string;
  viewport?: { width: number; height: number };
  /** Problems the flow provokes on purpose (a 409, a 412, a 422, a revoked token's 401). */
  expectedStatuses?: number[];
}

export async function openConsole(server: TestServer, path = '#/servers', options: OpenOptions = {}): Promise<ConsoleSession> {
  const operations = await documentOperations(server);
  const context = await (await consoleBrowser()).newContext({ viewport: options.viewport ?? DESKTOP });
  if (options.token !== undefined) {
    await context.addInitScript(`sessionStorage.setItem('pmacontrol-console-token', ${JSON.stringify(options.token)})`);
  }
  const page = await context.newPage();
  const apiRequests: string[] = [];
  const offContract: string[] = [];
  const troubles: string[] = [];
  const checks: Promise<void>[] = [];
  const expected = new Set(options.expectedStatuses ?? []);
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (`${url.protocol}//${url.host}` !== server.url) {
      if (url.protocol !== 'data:') troubles.push(`fetched from elsewhere: ${request.url()}`);
      return;
    }
    if (!/^\/[^/]+\/api\//.test(url.pathname)) return;
    const method = request.method();
    apiRequests.push(`${method} ${url.pathname}`);
    const operation = operations.find((one) => one.pattern.test(url.pathname));
    if (operation === undefined || !operation.methods.has(method)) offContract.push(`${method} ${url.pathname}`);
  });
  page.on('pageerror', (error) => troubles.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const status = /status of (\d{3})/.exec(message.text());
    // The browser reports every refused request on its console; those a flow provokes are fine.
    if (status !== null && expected.has(Number(status[1]))) return;
    troubles.push(`console: ${message.text()}`);
  });
  page.on('response', (response) => {
    const url = new URL(response.url());
    if (`${url.protocol}//${url.host}` !== server.url || url.pathname.endsWith('/changes/stream')) return;
    checks.push(
      (async () => {
        const type = response.headers()['content-type'] ?? '';
        const text = /json/.test(type) ? await response.text() : '';
        server.checkResponse(response.request().method(), `${url.pathname}${url.search}`, { status: response.status(), headers: new Headers(response.headers()), text });
      })().catch((error: Error) => {
        // A page that navigated away no longer has the body; everything else is a finding.
        if (!/No resource with given identifier|Target closed|has been closed/.test(error.message)) troubles.push(`answer check: ${error.message}`);
      }),
    );
  });
  await page.goto(`${server.url}/${options.lang ?? 'en'}/console/${path}`);
  return {
    context,
    page,
    apiRequests,
    offContract,
    troubles,
    async finish() {
      await Promise.all(checks);
      await context.close();
      assert.deepEqual(offContract, [], 'the console made requests that the OpenAPI document does not declare');
      assert.deepEqual(troubles, [], 'the console reported errors');
    },
  };
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/** axe-core on the page as it is: no serious or critical violation. */
export async function checkAxe(page: Page, where: string): Promise<void> {
  const has = await page.evaluate('typeof window.axe === "object"');
  if (!has) await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate('axe.run(document, { resultTypes: ["violations"] }).then((result) => result.violations)')) as AxeViolation[];
  const serious = violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  assert.deepEqual(
    serious.map((violation) => `${violation.impact} ${violation.id}: ${violation.help} (${violation.nodes.map((node) => JSON.stringify(node.target)).slice(0, 3).join(', ')})`),
    [],
    `axe-core on ${where}`,
  );
}

/** The page at both sizes, kept as test-artifacts/console/{name}-{desktop,phone}.png; axe-core at both. */
export async function screenshots(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  for (const [label, size] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
    await page.setViewportSize(size);
    await checkAxe(page, `${name} (${label})`);
    await page.screenshot({ path: join(ARTIFACTS, `${name}-${label}.png`), fullPage: true });
    // Readable: nothing wider than the screen but the tables, which scroll in their own region.
    const overflow = (await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')) as number;
    assert.ok(overflow <= 1, `${name} at ${label} is wider than the screen by ${overflow} px`);
  }
  await page.setViewportSize(DESKTOP);
}
