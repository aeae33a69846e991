// `npm run bench:tag`: what the first page of `?tag=` costs next to the plain first page, at
// BENCH_TAG_SERVERS servers (1,000,000 by default) on SQLite, this build against another
// (BENCH_BASELINE: a built checkout of an earlier revision), in one run. One database is
// seeded as `npm run bench` seeds it (100 tags, one per server) under the baseline's schema
// and copied; this build migrates its copy at start (the time is printed). The two services
// are then loaded in turns, ROUNDS times: per scenario, CPU time per request read from /proc
// (steadier than requests per second on a shared VM) and the median of single requests.
// LIST_CACHE_SIZE=0: each request runs its queries (a build that caches list answers would
// otherwise serve the repeated pages from memory).
//
//   git worktree add --detach /tmp/base <revision> && (cd /tmp/base && npm ci && npm run build)
//   BENCH_BASELINE=/tmp/base npm run bench:tag
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { FLEET_TAGS } from './support/fleet-bench.js';
import { seedServers } from './support/seed.js';
import { cpuMilliseconds, startService, type ServiceProcess } from './support/service-process.js';

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

function start(dir: string, main: string): Promise<ServiceProcess> {
  const env = { DATABASE_URL: `sqlite:${join(dir, 'config.db')}`, SECRET_KEY_FILE: join(dir, 'secret.key'), TOKEN_KEY_FILE: join(dir, 'token.key'), LIST_CACHE_SIZE: '0' };
  return startService(env, 1, main);
}

async function get(url: string, path: string): Promise<void> {
  const response = await fetch(`${url}${path}`);
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
}

/** CPU µs per request over REQUESTS requests from CONNECTIONS connections, then the median
 * of SINGLES requests sent one after another, in ms. */
async function measure(service: ServiceProcess, path: () => string): Promise<{ cpu: number; single: number }> {
  let sent = 0;
  const before = cpuMilliseconds(service.pid);
  const connection = async (): Promise<void> => {
    while (sent < REQUESTS) {
      sent += 1;
      await get(service.url, path());
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, connection));
  const cpu = ((cpuMilliseconds(service.pid) - before) * 1000) / REQUESTS;
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
  const builds = { baseline: resolve(BASELINE, 'dist/main.js'), 'this-build': resolve(import.meta.dirname, '../dist/main.js') };
  const dirs = { baseline: mkdtempSync(join(tmpdir(), 'config-api-tag-base-')), 'this-build': mkdtempSync(join(tmpdir(), 'config-api-tag-new-')) };
  const services: Partial<Record<keyof typeof builds, ServiceProcess>> = {};
  try {
    await (await start(dirs.baseline, builds.baseline)).stop();
    let started = Date.now();
    seedServers(join(dirs.baseline, 'config.db'), SERVERS);
    console.log(`${SERVERS} servers seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    for (const file of ['config.db', 'secret.key', 'token.key']) copyFileSync(join(dirs.baseline, file), join(dirs['this-build'], file));
    services.baseline = await start(dirs.baseline, builds.baseline);
    started = Date.now();
    services['this-build'] = await start(dirs['this-build'], builds['this-build']);
    console.log(`this build started on the baseline's database (its new migrations included) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    // Warm-up: JIT, page cache, prepared statements.
    for (const service of Object.values(services)) for (const path of Object.values(SCENARIOS)) for (let i = 0; i < 200; i++) await get(service.url, path());
    const figures: Record<string, { cpu: number; single: number }[]> = {};
    for (let round = 0; round < ROUNDS; round++) {
      const line: string[] = [];
      for (const [side, service] of Object.entries(services)) {
        const [plain, tag] = [await measure(service!, SCENARIOS.plain!), await measure(service!, SCENARIOS.tag!)];
        (figures[`${side} plain`] ??= []).push(plain);
        (figures[`${side} tag`] ??= []).push(tag);
        (figures[`${side} ratio`] ??= []).push({ cpu: tag.cpu / plain.cpu, single: tag.single / plain.single });
        line.push(`${side}: plain ${Math.round(plain.cpu)} µs ${plain.single.toFixed(1)} ms, tag ${Math.round(tag.cpu)} µs ${tag.single.toFixed(1)} ms, ${(tag.cpu / plain.cpu).toFixed(2)}x`);
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
    console.log(`\n${new Date().toISOString()}, Node ${process.version}, ${SERVERS} servers, ${REQUESTS} requests x ${ROUNDS} rounds, load average at the end ${load()}`);
  } finally {
    for (const service of Object.values(services)) await service?.stop();
    for (const dir of Object.values(dirs)) rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
