// `npm run bench:tag`: what the first page of `?tag=` costs next to the plain first page, at
// BENCH_TAG_SERVERS servers (1,000,000 by default) on SQLite (or BENCH_DATABASE=postgres),
// this build against another (BENCH_BASELINE: a built checkout of an earlier revision), in
// one run. Two databases are seeded as `npm run bench` seeds them (100 tags, one per server)
// under the baseline's schema; this build migrates its own at start (the time is printed).
// The two services are then loaded in turns, ROUNDS times: per scenario, CPU time per request
// read from /proc (the service's, plus its PostgreSQL backends'; steadier than requests per
// second on a shared VM) and the median of single requests.
// LIST_CACHE_SIZE=0: each request runs its queries (a build that caches list answers would
// otherwise serve the repeated pages from memory).
//
//   git worktree add --detach /tmp/base <revision> && (cd /tmp/base && npm ci && npm run build)
//   BENCH_BASELINE=/tmp/base npm run bench:tag
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { benchBackend, createBenchDatabase, serviceCpuMeter, type BenchDatabase } from './support/bench-database.js';
import { FLEET_TAGS } from './support/fleet-bench.js';
import { startService, type ServiceProcess } from './support/service-process.js';

const BASELINE = process.env.BENCH_BASELINE;
const SERVERS = Number(process.env.BENCH_TAG_SERVERS ?? 1_000_000);
const REQUESTS = Number(process.env.BENCH_COMPARE_REQUESTS ?? 1500);
const SINGLES = 15;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONNECTIONS = 8;
const LIST = '/en/api/config/servers?limit=100';
const SCENARIOS: Readonly<Record<string, () => string>> = {
  plain: () => LIST,
  tag: () => `${LIST}&tag=${1 + Math.floor(Math.random() * FLEET_TAGS)}`,
};

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const load = () => loadavg().map((value) => value.toFixed(1)).join(' ');

interface Side {
  readonly main: string;
  readonly dir: string;
  readonly database: BenchDatabase;
  service?: ServiceProcess;
}

function start(side: Side, main = side.main): Promise<ServiceProcess> {
  const env = { DATABASE_URL: side.database.url, SECRET_KEY_FILE: join(side.dir, 'secret.key'), TOKEN_KEY_FILE: join(side.dir, 'token.key'), LIST_CACHE_SIZE: '0' };
  return startService(env, 1, main);
}

async function get(url: string, path: string): Promise<void> {
  const response = await fetch(`${url}${path}`);
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
}

/** CPU µs per request over REQUESTS requests from CONNECTIONS connections, then the median
 * of SINGLES requests sent one after another, in ms. */
async function measure(side: Side, path: () => string): Promise<{ cpu: number; single: number }> {
  const service = side.service!;
  let sent = 0;
  const cpuUsed = await serviceCpuMeter(service.pid, side.database);
  const connection = async (): Promise<void> => {
    while (sent < REQUESTS) {
      sent += 1;
      await get(service.url, path());
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, connection));
  const cpu = ((await cpuUsed()) * 1000) / REQUESTS;
  const times: number[] = [];
  for (let i = 0; i < SINGLES; i++) {
    const started = performance.now();
    await get(service.url, path());
    times.push(performance.now() - started);
  }
  return { cpu, single: median(times) };
}

async function main(): Promise<void> {
  if (BASELINE === undefined) throw new Error('set BENCH_BASELINE to a built checkout of the revision to compare with (see the top of this file)');
  const backend = benchBackend();
  const sides: Record<string, Side> = {};
  for (const [name, main] of [['baseline', resolve(BASELINE, 'dist/main.js')], ['this-build', resolve(import.meta.dirname, '../dist/main.js')]] as const) {
    const dir = mkdtempSync(join(tmpdir(), `config-api-tag-${name}-`));
    sides[name] = { main, dir, database: await createBenchDatabase(backend, dir) };
  }
  try {
    for (const side of Object.values(sides)) {
      // The baseline's schema, then the seed: this build finds what an upgrade finds.
      await (await start(side, sides.baseline!.main)).stop();
      const started = Date.now();
      await side.database.seed(SERVERS);
      console.log(`${SERVERS} servers seeded (${backend}) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
    sides.baseline!.service = await start(sides.baseline!);
    const started = Date.now();
    sides['this-build']!.service = await start(sides['this-build']!);
    console.log(`this build started on a database of the baseline (its new migrations included) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    // Warm-up: JIT, page cache, prepared statements.
    for (const side of Object.values(sides)) for (const path of Object.values(SCENARIOS)) for (let i = 0; i < 200; i++) await get(side.service!.url, path());
    const figures: Record<string, { cpu: number; single: number }[]> = {};
    for (let round = 0; round < ROUNDS; round++) {
      const line: string[] = [];
      for (const [name, side] of Object.entries(sides)) {
        const [plain, tag] = [await measure(side, SCENARIOS.plain!), await measure(side, SCENARIOS.tag!)];
        (figures[`${name} plain`] ??= []).push(plain);
        (figures[`${name} tag`] ??= []).push(tag);
        (figures[`${name} ratio`] ??= []).push({ cpu: tag.cpu / plain.cpu, single: tag.single / plain.single });
        line.push(`${name}: plain ${Math.round(plain.cpu)} µs ${plain.single.toFixed(1)} ms, tag ${Math.round(tag.cpu)} µs ${tag.single.toFixed(1)} ms, ${(tag.cpu / plain.cpu).toFixed(2)}x`);
      }
      console.log(`round ${round + 1} (load ${load()}): ${line.join('; ')}`);
    }
    console.log(`\n| side, scenario | CPU µs/req median (min-max) | single request ms median (min-max) |\n|---|---:|---:|`);
    for (const [name, values] of Object.entries(figures)) {
      const cpu = values.map((value) => value.cpu);
      const single = values.map((value) => value.single);
      const digits = name.endsWith('ratio') ? 2 : 0;
      const range = (all: number[], fixed: number) => `${median(all).toFixed(fixed)} (${Math.min(...all).toFixed(fixed)}-${Math.max(...all).toFixed(fixed)})`;
      console.log(`| ${name} | ${range(cpu, digits)} | ${range(single, name.endsWith('ratio') ? 2 : 1)} |`);
    }
    console.log(`\n${new Date().toISOString()}, Node ${process.version}, ${backend}, ${SERVERS} servers, ${REQUESTS} requests x ${ROUNDS} rounds, load average at the end ${load()}`);
  } finally {
    for (const side of Object.values(sides)) {
      await side.service?.stop();
      await side.database.drop();
      rmSync(side.dir, { recursive: true, force: true });
    }
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
