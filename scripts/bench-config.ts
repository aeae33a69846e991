// `npm run bench:config`: the apply of contract section 18 (issue #34's figures), on SQLite (or
// BENCH_DATABASE=postgres), against the built service as an operator runs it:
// - a document creating 10,000 servers (BENCH_CONFIG_CREATE) with 100 tags, 100 clients and
//   20 environments, each server with a client, an environment and two tags: one POST /apply;
// - a document of 100,000 servers (BENCH_CONFIG_UNCHANGED) applied once (timed too), then its
//   dry run over the unchanged store, ROUNDS times (the median), then its apply, which must
//   write nothing.
// The floor, in the same run and service: the same 10,000 servers (other addresses, no
// references) created by ten bulk POSTs of 1,000, the fastest way the API had to create them
// before. Figures go to docs/performance.md with `uptime`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchBackend, createBenchDatabase } from './support/bench-database.js';
import { machine, median, ROUNDS, startBenchService, uptime } from './support/bench-kit.js';

const CREATE = Number(process.env.BENCH_CONFIG_CREATE ?? 10_000);
const UNCHANGED = Number(process.env.BENCH_CONFIG_UNCHANGED ?? 100_000);

const address = (block: number, index: number): string => `10.${block}.${Math.floor(index / 250)}.${(index % 250) + 1}`;

function fleetDocument(servers: number, block: number): Record<string, unknown> {
  const tags = Array.from({ length: 100 }, (_, index) => ({ name: `tag-${index}` }));
  const clients = Array.from({ length: 100 }, (_, index) => ({ libelle: `client-${index}` }));
  const environments = Array.from({ length: 20 }, (_, index) => ({ libelle: `Env ${index}`, key: `env-${index}`, class: 'info', letter: 'E' }));
  const entries = Array.from({ length: servers }, (_, index) => ({
    ip: address(block + Math.floor(index / 60_000), index % 60_000),
    port: 3306,
    hostname: `db-${block}-${index}`,
    id_client: `client-${index % 100}`,
    id_environment: `env-${index % 20}`,
    tags: [`tag-${index % 100}`, `tag-${(index + 1) % 100}`],
  }));
  return { version: 1, tags, clients, environments, servers: entries };
}

async function post(url: string, body: unknown): Promise<{ ms: number; answer: any }> {
  const text = JSON.stringify(body);
  const started = performance.now();
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
  const answer = await response.json();
  const ms = performance.now() - started;
  if (response.status >= 300) throw new Error(`${url} answered ${response.status}: ${JSON.stringify(answer).slice(0, 500)}`);
  return { ms, answer };
}

const seconds = (ms: number): string => (ms / 1000).toFixed(2);

async function main(): Promise<void> {
  const before = uptime();
  const backend = benchBackend();
  const dir = mkdtempSync(join(tmpdir(), 'config-api-bench-config-'));
  const database = await createBenchDatabase(backend, dir);
  const rows: string[] = [];
  try {
    const service = await startBenchService(dir, { DATABASE_URL: database.url, REQUEST_TIMEOUT_MS: '600000', DATABASE_QUERY_TIMEOUT_MS: '600000', HEAVY_QUERY_WAIT_MS: '600000' }, { execArgv: (process.env.BENCH_SERVICE_EXEC_ARGV ?? '').split(' ').filter(Boolean) });
    try {
      const apply = `${service.url}/en/api/apply`;
      const created = await post(apply, fleetDocument(CREATE, 20));
      if (created.answer.counts.create !== CREATE + 220) throw new Error(`expected ${CREATE + 220} creates: ${JSON.stringify(created.answer.counts)}`);

      const floorStarted = performance.now();
      for (let start = 0; start < CREATE; start += 1000) {
        const bodies = Array.from({ length: Math.min(1000, CREATE - start) }, (_, index) => ({ ip: address(90, start + index), hostname: `floor-${start + index}` }));
        await post(`${service.url}/en/api/config/servers`, bodies);
      }
      const floor = performance.now() - floorStarted;
      rows.push(`| apply creating ${CREATE.toLocaleString('en')} servers (+100 tags, 100 clients, 20 environments) | ${seconds(created.ms)} | < 3 | floor: ${CREATE / 1000} bulk POSTs of 1,000 servers ${seconds(floor)} s; ${(created.ms / floor).toFixed(1)}x |`);
      console.log(rows.at(-1));

      const document = fleetDocument(UNCHANGED, 30);
      const bulk = await post(apply, document);
      rows.push(`| apply creating ${UNCHANGED.toLocaleString('en')} servers | ${seconds(bulk.ms)} | | ${bulk.answer.counts.create} created |`);
      console.log(rows.at(-1));
      const dryRuns: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const dry = await post(`${apply}?dry_run=true`, document);
        if (dry.answer.counts.unchanged !== UNCHANGED + 220) throw new Error(`the dry run found changes: ${JSON.stringify(dry.answer.counts)}`);
        dryRuns.push(dry.ms);
      }
      rows.push(`| dry run of the unchanged ${UNCHANGED.toLocaleString('en')}-server document (median of ${ROUNDS}) | ${seconds(median(dryRuns))} (${dryRuns.map(seconds).join(', ')}) | < 5 | |`);
      console.log(rows.at(-1));
      const lastBefore = (await post(`${apply}?dry_run=true`, { version: 1 })).answer.change_id;
      const again = await post(apply, document);
      const wrote = again.answer.counts.create + again.answer.counts.update + again.answer.counts.delete;
      if (wrote !== 0 || again.answer.change_id !== lastBefore) throw new Error(`the apply of an unchanged document wrote: ${JSON.stringify(again.answer.counts)}`);
      rows.push(`| apply of the unchanged ${UNCHANGED.toLocaleString('en')}-server document | ${seconds(again.ms)} | | 0 changes, no change record |`);
      console.log(rows.at(-1));
    } finally {
      await service.stop();
    }
  } finally {
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\n| scenario (${backend}) | s | target s | notes |\n|---|---:|---:|---|`);
  for (const row of rows) console.log(row);
  console.log(`\n${new Date().toISOString()}, ${machine()}\nuptime before: ${before}\nuptime after:  ${uptime()}`);
}

await main();
