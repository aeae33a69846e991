// `npm run bench:console`: the operator console (contract section 19) at fleet scale, in
// headless Chromium against the built service (`npm run build` first, as the script does),
// on SQLite (or BENCH_DATABASE=postgres) seeded as `npm run bench` seeds it (BENCH_CONSOLE_SIZE
// servers, a million by default). Each figure is the median and spread of ROUNDS runs in a
// fresh browser context (no cache), alternated so that the machine's load falls on all alike:
//   - first page interactive: from navigation to the server list's rows on screen and the
//     page answering a click (the list is the first page an operator opens);
//   - next page: a click on "Next page" (a cursor page) to its rows on screen;
//   - filtered: a filter by client and `q` applied to its rows on screen;
//   - floors: the same list fetched by Node's fetch alone (what the API costs, no browser), and
//     a fresh context loading a page of no script (/healthz: what the browser alone costs on
//     this machine now), against which first page interactive is read as a ratio.
// The target: first page interactive under 1 s on loopback. Printed with the load average.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { benchBackend, createBenchDatabase } from './support/bench-database.js';
import { startService } from './support/service-process.js';

const SIZE = Number(process.env.BENCH_CONSOLE_SIZE ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const sorted = (values: readonly number[]): number[] => [...values].sort((a, b) => a - b);
const median = (values: readonly number[]): number => sorted(values)[Math.floor(values.length / 2)]!;
const spread = (values: readonly number[]): string => `${sorted(values)[0]!.toFixed(0)}-${sorted(values).at(-1)!.toFixed(0)}`;
const load = (): string => loadavg().map((value) => value.toFixed(2)).join(' ');

async function consoleRound(browser: Browser, url: string): Promise<{ interactive: number; next: number; filtered: number }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  let started = performance.now();
  await page.goto(`${url}/en/console/#/servers`, { waitUntil: 'commit' });
  await page.locator('table.list tbody tr[data-id]').first().waitFor();
  // Interactive: the page runs a click's handler (the select-all box) at once.
  await page.getByLabel('Select every row of this page').check();
  const interactive = performance.now() - started;
  const firstRow = await page.locator('table.list tbody tr[data-id]').first().getAttribute('data-id');
  started = performance.now();
  await page.getByRole('button', { name: 'Next page' }).click();
  await page.locator(`table.list tbody tr[data-id]:not([data-id="${firstRow}"])`).first().waitFor();
  const next = performance.now() - started;
  started = performance.now();
  await page.getByLabel('Client').selectOption({ index: 1 });
  await page.getByLabel('Search').fill('10.1');
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.waitForURL(/q=10\.1/);
  await page.locator('p.total').waitFor();
  await page.locator('table.list tbody tr').first().waitFor();
  const filtered = performance.now() - started;
  await context.close();
  return { interactive, next, filtered };
}

async function main(): Promise<void> {
  const backend = benchBackend();
  const manifest = JSON.parse(readFileSync(resolve(import.meta.dirname, '..', 'dist', 'console', 'manifest.json'), 'utf8')) as { sizes: Record<string, { gzip: number; brotli: number }> };
  const sizes = Object.values(manifest.sizes);
  const dir = mkdtempSync(join(tmpdir(), 'config-api-bench-console-'));
  const database = await createBenchDatabase(backend, dir);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
  try {
    const env = { DATABASE_URL: database.url, SECRET_KEY_FILE: join(dir, 'secret.key'), TOKEN_KEY_FILE: join(dir, 'token.key') };
    await (await startService(env)).stop();
    const seeded = Date.now();
    await database.seed(SIZE);
    console.log(`${SIZE} servers seeded (${backend}) in ${((Date.now() - seeded) / 1000).toFixed(1)} s; load ${load()}`);
    const service = await startService(env);
    try {
      await consoleRound(browser, service.url); // warm-up: page cache, statements, the browser itself
      const rounds: { interactive: number; next: number; filtered: number; ceiling: number; blank: number }[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        let started = performance.now();
        await (await fetch(`${service.url}/en/api/config/servers?limit=50&sort=-id`)).text();
        const ceiling = performance.now() - started;
        const context = await browser.newContext();
        started = performance.now();
        await (await context.newPage()).goto(`${service.url}/healthz`);
        const blank = performance.now() - started;
        await context.close();
        rounds.push({ ...(await consoleRound(browser, service.url)), ceiling, blank });
      }
      const line = (name: string, values: number[]): string => `| ${name} | ${median(values).toFixed(0)} | ${spread(values)} |`;
      console.log(`\nconsole at ${SIZE.toLocaleString('en')} servers (${backend}), ${ROUNDS} rounds, load ${load()}`);
      console.log(`download: ${sizes.reduce((sum, size) => sum + size.gzip, 0)} bytes gzip, ${sizes.reduce((sum, size) => sum + size.brotli, 0)} bytes brotli\n`);
      console.log('| measure | median ms | spread ms |\n|---|---|---|');
      console.log(line('first page interactive', rounds.map((one) => one.interactive)));
      console.log(line('next page (cursor)', rounds.map((one) => one.next)));
      console.log(line('filter (client + q)', rounds.map((one) => one.filtered)));
      console.log(line('floor: the list by fetch alone', rounds.map((one) => one.ceiling)));
      console.log(line('floor: a fresh context loading /healthz', rounds.map((one) => one.blank)));
      const interactive = median(rounds.map((one) => one.interactive));
      const blank = median(rounds.map((one) => one.blank));
      console.log(`\nfirst page interactive: ${interactive.toFixed(0)} ms (target under 1000 ms): ${interactive < 1000 ? 'met' : 'NOT met'}; ${(interactive / blank).toFixed(1)}x the browser's own floor`);
    } finally {
      await service.stop();
    }
  } finally {
    await browser.close();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
