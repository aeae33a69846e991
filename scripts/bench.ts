// `npm run bench`: the service's throughput next to its peers and ceilings, measured by wrk in
// a process of its own, each scenario's targets loaded in alternating rounds (medians and
// spread printed, with `uptime` before and after). Two tables of scenarios:
// - SERVER_SCENARIOS, at each of BENCH_SIZES servers (10,000 and 1,000,000): GET by id (against
//   node:http, and the read floors: node:http and Fastify reading the row from the same file),
//   GET by id at LOG_LEVEL=info against a twin at warn, the list pages (cached, and the
//   queries on a twin without the list cache), a 304 poll, POST (against node:http and an
//   earlier build, BENCH_BASELINE), PATCH;
// - PEER_SCENARIOS, on 2,000 tags: GET by id, a list page of 100, POST, against node:http,
//   json-server and Platformatic DB (scripts/support/bench-peers.ts).
// Then bulk writes one after another, a kill -9 that every acknowledged create must survive,
// and the change feed. BENCH_SCENARIOS=regex runs the scenarios whose names match; adding one
// is described in docs/performance.md. Not a pass/fail test, except that errors, a lost
// acknowledged write or a target out of reach of the issues' figures exit non-zero only for
// the first two.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { DEFAULT_ENTRY_CACHE_SIZE } from '../src/config/config.js';
import { changeFeedFigures } from './support/change-bench.js';
import { bulkFigures, FIRST_CLIENT, FLEET_CLIENTS, FLEET_TAGS } from './support/fleet-bench.js';
import { comparedTags, seedServiceTags, startJsonServer } from './support/json-server-bench.js';
import { listScenarios, PLAIN_PAGE, singleRequestMedians } from './support/list-bench.js';
import { benchBackend, createBenchDatabase, type BenchDatabase } from './support/bench-database.js';
import { ensureBaseline, PLATFORMATIC_VERSION, startPlatformatic, type PeerServer } from './support/bench-peers.js';
import { seedServers } from './support/seed.js';
import { residentMegabytes, type ServiceProcess } from './support/service-process.js';
import { ensureWrk } from './support/wrk.js';
import {
  alternate, figures, goalsTable, LOG_LEVEL, machine, ROUNDS, sample, SECONDS, startBenchService, startHelperServer, table, uptime, WARM_UP_SECONDS,
  type Figure, type Goal, type HelperServer, type RequestTemplate, type Target,
} from './support/bench-kit.js';

const CEILING = resolve(import.meta.dirname, 'support/ceiling-server.ts');
const SQLITE_FLOOR = resolve(import.meta.dirname, 'support/sqlite-floor-server.ts');
/** Bare Fastify doing the scenario's database work on a copy of the file (sqlite-floor-server.ts). */
const FLOOR = 'Fastify + SQLite';
const SIZES = (process.env.BENCH_SIZES ?? '10000,1000000').split(',').filter(Boolean).map(Number);
/** The benches `npm run bench` runs after its own scenarios (runParts). */
const BENCH_PARTS = ['sd', 'config', 'writes', 'webhooks'];
const ONLY = process.env.BENCH_SCENARIOS ? new RegExp(process.env.BENCH_SCENARIOS) : undefined;
const BASELINE = process.env.BENCH_BASELINE ?? 'b3a2176';
const BACKEND = benchBackend();
const SERVERS = '/en/api/config/servers';
const TAGS = '/en/api/config/tags';
/** The first ids only: at sizes the entry cache cannot hold, what an answer from it costs. */
const CACHED_IDS = 1_000;

/** What the server scenarios of one size run against. */
interface SizeContext {
  readonly rows: number;
  readonly dataDir: string;
  readonly database: BenchDatabase;
  readonly service: ServiceProcess;
  /** The same database without the list cache: what each list query costs the database. */
  readonly uncached: ServiceProcess;
  readonly list: Awaited<ReturnType<typeof listScenarios>>;
}

/** One scenario: the service's request, and the targets it is measured against, by name
 * (the keys of a section's `targets`). `peers` gives a peer's own request for the same thing. */
interface Scenario<C> {
  readonly name: string;
  /** Another service than the bench's main one: without the list cache, or a fresh one at
   * LOG_LEVEL=info for the logging A/B (its warn twin is fresh too). */
  readonly on?: 'uncached' | 'logged';
  readonly when?: (context: C) => boolean;
  readonly request: (context: C) => RequestTemplate;
  readonly against: readonly string[];
  readonly peers?: Readonly<Record<string, RequestTemplate>>;
}

const random = (lo: number, hi: number): string => `{{random(${lo}, ${hi})}}`;
/** A new server for each request: n is unique across the run (ports from 20000: none seeded). */
const newServer = `{"ip":"172.16.{{math.floor(n / 256) % 256}}.{{n % 256}}","port":{{20000 + math.floor(n / 65536) % 40000}},"hostname":"bench-{{n}}"}`;
const newTag = `{"name":"posted-{{n}}","color":"#ffffff","background":"#337ab7"}`;

const SERVER_SCENARIOS: readonly Scenario<SizeContext>[] = [
  { name: 'GET by id', request: (c) => ({ method: 'GET', path: `${SERVERS}/${random(1, c.rows)}` }), against: ['node:http', 'node:http + SQLite read', 'Fastify + SQLite read'] },
  // At info a line per request goes to the log file; at warn none: what request logging costs.
  // Both sides are services started for this scenario alone, so that the level is the only
  // difference (the main service has served the scenarios before: a larger heap, a warmer cache).
  { name: 'GET by id, log at info', on: 'logged', request: (c) => ({ method: 'GET', path: `${SERVERS}/${random(1, c.rows)}` }), against: ['LOG_LEVEL=warn'] },
  {
    name: 'GET by id, cached',
    when: (c) => c.database.file !== undefined && c.rows > DEFAULT_ENTRY_CACHE_SIZE,
    request: () => ({ method: 'GET', path: `${SERVERS}/${random(1, CACHED_IDS)}` }),
    against: ['node:http'],
  },
  { name: 'GET list page (100)', request: () => ({ method: 'GET', path: `${SERVERS}?limit=100` }), against: ['node:http'] },
  { name: PLAIN_PAGE, on: 'uncached', request: () => ({ method: 'GET', path: `${SERVERS}?limit=100` }), against: ['node:http'] },
  { name: 'list ?tag=', on: 'uncached', request: () => ({ method: 'GET', path: `${SERVERS}?limit=100&tag=${random(1, FLEET_TAGS)}` }), against: ['node:http'] },
  { name: 'list ?id_client=', on: 'uncached', request: () => ({ method: 'GET', path: `${SERVERS}?limit=100&id_client=${random(FIRST_CLIENT, FIRST_CLIENT + FLEET_CLIENTS - 1)}` }), against: ['node:http'] },
  ...['list ?ip=', 'list ?hostname=', 'list ?port=', 'list ?is_monitored=f', 'list ?sort=-updated', 'list ?sort=hostname', 'list ?q= (8 chars)', 'list cursor at end', 'list 304 poll'].map(
    (name): Scenario<SizeContext> => ({
      name,
      ...(name === 'list 304 poll' ? {} : { on: 'uncached' as const }),
      request: (c) => c.list.find((scenario) => scenario.name === name)!.template,
      against: name === 'list 304 poll' ? ['node:http', FLOOR] : ['node:http'],
    }),
  ),
  { name: 'POST', request: () => ({ method: 'POST', path: SERVERS, body: newServer }), against: ['node:http', 'baseline', FLOOR] },
  { name: 'PATCH', request: (c) => ({ method: 'PATCH', path: `${SERVERS}/${random(1, c.rows)}`, body: `{"hostname":"patched-{{n}}"}` }), against: ['node:http'] },
];

const PEER_SCENARIOS: readonly Scenario<{ service: ServiceProcess }>[] = [
  {
    name: 'GET tag by id',
    request: () => ({ method: 'GET', path: `${TAGS}/${random(1, 2000)}` }),
    against: ['node:http', 'json-server', 'Platformatic DB', FLOOR],
    peers: { 'json-server': { method: 'GET', path: `/tags/${random(1, 2000)}` }, 'Platformatic DB': { method: 'GET', path: `/tags/${random(1, 2000)}` } },
  },
  {
    name: 'tags page (100)',
    request: () => ({ method: 'GET', path: `${TAGS}?limit=100` }),
    against: ['node:http', 'json-server', 'Platformatic DB', FLOOR],
    peers: { 'json-server': { method: 'GET', path: '/tags?_page=1&_per_page=100' }, 'Platformatic DB': { method: 'GET', path: '/tags?limit=100' } },
  },
  {
    name: 'POST tag',
    request: () => ({ method: 'POST', path: TAGS, body: newTag }),
    against: ['node:http', 'json-server', 'Platformatic DB', FLOOR],
    peers: { 'json-server': { method: 'POST', path: '/tags', body: newTag }, 'Platformatic DB': { method: 'POST', path: '/tags', body: newTag } },
  },
];

/** The figures issue #37 asks for, checked against the run. */
const GOALS: readonly Goal[] = [
  { scenario: 'GET tag by id', against: 'json-server', atLeast: 2.5, source: '#37', floor: FLOOR },
  { scenario: 'GET tag by id', against: 'Platformatic DB', atLeast: 2.5, source: '#37', floor: FLOOR },
  { scenario: 'tags page (100)', against: 'json-server', atLeast: 3, source: '#37', floor: FLOOR },
  { scenario: 'tags page (100)', against: 'Platformatic DB', atLeast: 3, source: '#37', floor: FLOOR },
  { scenario: 'POST tag', against: 'json-server', atLeast: 15, source: '#37', floor: FLOOR },
  { scenario: 'POST tag', against: 'Platformatic DB', atLeast: 10, source: '#37', floor: FLOOR },
  { scenario: 'list 304 poll', against: 'node:http', atLeast: 0.5, source: '#37', floor: FLOOR },
  { scenario: 'GET by id, log at info', against: 'LOG_LEVEL=warn', atLeast: 0.85, source: '#37' },
  { scenario: 'POST', against: 'baseline', atLeast: 0.8, source: '#37', floor: FLOOR },
];

const selected = <C>(scenarios: readonly Scenario<C>[], context: C): Scenario<C>[] =>
  scenarios.filter((scenario) => (ONLY === undefined || ONLY.test(scenario.name)) && (scenario.when === undefined || scenario.when(context)));

/** A node:http server answering the service's own answer to the request (status and body). */
async function ceilingFor(dataDir: string, url: string, request: RequestTemplate): Promise<HelperServer> {
  const answer = await sample(url, request);
  const bodyFile = join(dataDir, 'ceiling-body.json');
  writeFileSync(bodyFile, answer.body);
  return startHelperServer(CEILING, [String(answer.status), bodyFile]);
}

/** Bare Fastify doing the request's database work on a copy of `file` (a copy: its writes
 * must not reach the service's counts, and the service's must not reach it). */
async function floorOnCopy(file: string, dataDir: string, request: RequestTemplate): Promise<Target & { close: () => Promise<void> }> {
  const copy = join(dataDir, `floor-${Date.now()}.db`);
  const source = new SqliteDatabase(file, { readonly: true });
  source.exec(`vacuum into '${copy}'`);
  source.close();
  const floor = await startHelperServer(SQLITE_FLOOR, [copy, 'fastify']);
  return {
    name: FLOOR,
    url: floor.url,
    pid: floor.pid,
    request,
    close: async () => {
      await floor.close();
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${copy}${suffix}`, { force: true });
    },
  };
}

/** Runs one scenario against its targets (made by `make`, closed after) and keeps its figures. */
async function measure(group: string, scenario: string, service: Target, others: readonly (Target & { close?: () => Promise<void> })[], results: Figure[]): Promise<void> {
  try {
    process.stderr.write(`${group} ${scenario}: ${[service, ...others].map((t) => t.name).join(', ')}\n`);
    results.push(...figures(group, scenario, await alternate([service, ...others])));
  } finally {
    for (const other of others) await other.close?.();
  }
}

async function benchSize(rows: number, results: Figure[], notes: string[]): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'config-api-bench-'));
  const database = await createBenchDatabase(BACKEND, dataDir);
  const started: { stop(): Promise<unknown> }[] = [];
  try {
    // A first start makes the schema; the seed then goes straight into the database.
    await (await startBenchService(dataDir, { DATABASE_URL: database.url })).stop();
    const seeded = Date.now();
    await database.seed(rows);
    notes.push(`${rows} servers seeded (${BACKEND}) in ${((Date.now() - seeded) / 1000).toFixed(1)} s`);
    const service = await startBenchService(dataDir, { DATABASE_URL: database.url });
    const uncached = await startBenchService(dataDir, { DATABASE_URL: database.url, LIST_CACHE_SIZE: '0' }, { log: 'uncached.log' });
    started.push(uncached);
    const context: SizeContext = { rows, dataDir, database, service, uncached, list: await listScenarios(service.url, rows) };
    const group = String(rows);
    let quiet: ServiceProcess | undefined;
    let baseline: { name: string; service: ServiceProcess } | undefined;
    let acknowledged = 0;
    const before = await database.countServers();
    let logged: ServiceProcess | undefined;
    for (const scenario of selected(SERVER_SCENARIOS, context)) {
      if (scenario.on === 'logged') {
        logged ??= await startBenchService(dataDir, { DATABASE_URL: database.url, LOG_LEVEL: 'info' }, { log: 'info.log' });
        started.push(logged);
      }
      const on = scenario.on === 'uncached' ? uncached : scenario.on === 'logged' ? logged! : service;
      const request = scenario.request(context);
      const others: (Target & { close?: () => Promise<void> })[] = [];
      for (const name of scenario.against) {
        if (name === 'node:http') {
          const ceiling = await ceilingFor(dataDir, on.url, request);
          others.push({ name, url: ceiling.url, pid: ceiling.pid, request, close: () => ceiling.close() });
        } else if (name.endsWith('SQLite read')) {
          if (database.file === undefined) continue;
          const floor = await startHelperServer(SQLITE_FLOOR, [database.file, name.startsWith('Fastify') ? 'fastify' : 'node']);
          others.push({ name, url: floor.url, pid: floor.pid, request, close: () => floor.close() });
        } else if (name === FLOOR) {
          if (database.file === undefined) continue;
          others.push(await withOwnTag(await floorOnCopy(database.file, dataDir, request)));
        } else if (name === 'LOG_LEVEL=warn') {
          quiet ??= await startBenchService(dataDir, { DATABASE_URL: database.url, LOG_LEVEL: 'warn' }, { log: 'warn.log' });
          others.push({ name, url: quiet.url, pid: quiet.pid, request });
        } else if (name === 'baseline') {
          if (BASELINE === '' || database.file === undefined) continue;
          baseline ??= await startBaseline(rows, dataDir);
          others.push({ name, url: baseline.service.url, pid: baseline.service.pid, request });
        }
      }
      const figuresBefore = results.length;
      await measure(group, scenario.name, { name: 'service', url: on.url, pid: on.pid, request }, others, results);
      if (scenario.name === 'POST') acknowledged += results[figuresBefore]!.answered + 1;
    }
    if (baseline !== undefined) notes.push(`${rows} servers: baseline = ${baseline.name}, on a copy of the same seed in its own schema`);
    await quiet?.stop();
    await logged?.stop();
    await baseline?.service.stop();
    const singles = context.list.filter((s) => s.name !== 'list 304 poll');
    notes.push(...(await singleRequestMedians(uncached.url, rows, singles)));
    await uncached.stop();
    if (ONLY === undefined) {
      const bulk = await bulkFigures(service.url);
      acknowledged += bulk.acknowledged;
      notes.push(...bulk.notes.map((note) => `${rows} servers: ${note}`));
    }
    notes.push(`${rows} servers: resident memory of the service after the run ${Math.round(residentMegabytes(service.pid))} MB`);
    // Every acknowledged create must survive a kill -9 (warm-ups' creates are not counted:
    // the check errs on the safe side).
    await service.kill();
    const present = (await database.countServers()) - before;
    notes.push(`${rows} servers: kill -9 after the run; at least ${acknowledged} creates acknowledged, ${present} present`);
    if (present < acknowledged) {
      notes.push('LOST ACKNOWLEDGED WRITES');
      process.exitCode = 1;
    }
  } finally {
    for (const process of started) await process.stop().catch(() => undefined);
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A conditional request sent to `target` names `target`'s own tag of the page: a floor's tag
 * is not the service's, and a poll with another's tag would measure full answers. */
async function withOwnTag<T extends Target>(target: T): Promise<T> {
  if (target.request.headers?.['if-none-match'] === undefined) return target;
  const answer = await fetch(`${target.url}${target.request.path}`);
  await answer.arrayBuffer();
  const tag = answer.headers.get('etag');
  if (tag === null) throw new Error(`${target.name} gives no ETag for ${target.request.path}`);
  return { ...target, request: { ...target.request, headers: { ...target.request.headers, 'if-none-match': tag } } };
}

/** The earlier build on a SQLite file of its own, seeded with the same servers. */
async function startBaseline(rows: number, dataDir: string): Promise<{ name: string; service: ServiceProcess }> {
  const { name, main } = ensureBaseline(BASELINE);
  const dir = join(dataDir, 'baseline');
  mkdirSync(dir, { recursive: true });
  const env = { DATABASE_URL: `sqlite:${join(dir, 'config.db')}` };
  await (await startBenchService(dir, env, { main })).stop();
  seedServers(join(dir, 'config.db'), rows);
  return { name, service: await startBenchService(dir, env, { main }) };
}

async function benchPeers(results: Figure[], notes: string[]): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'config-api-bench-peers-'));
  const tags = comparedTags();
  const peers: Record<string, PeerServer> = {};
  const service = await startBenchService(dataDir, { DATABASE_URL: `sqlite:${join(dataDir, 'config.db')}` });
  try {
    await seedServiceTags(service.url, tags);
    const scenarios = selected(PEER_SCENARIOS, { service });
    if (scenarios.length === 0) return;
    peers['json-server'] = await startJsonServer(dataDir, tags);
    peers['Platformatic DB'] = await startPlatformatic(dataDir, tags, LOG_LEVEL);
    for (const scenario of scenarios) {
      const request = scenario.request({ service });
      const others: (Target & { close?: () => Promise<void> })[] = [];
      for (const name of scenario.against) {
        if (name === 'node:http') {
          const ceiling = await ceilingFor(dataDir, service.url, request);
          others.push({ name, url: ceiling.url, pid: ceiling.pid, request, close: () => ceiling.close() });
        } else if (name === FLOOR) {
          others.push(await floorOnCopy(join(dataDir, 'config.db'), dataDir, request));
        } else {
          const peer = peers[name]!;
          // json-server writes its whole file at each POST, and the file grows with each:
          // a one-second warm-up keeps it near the size of the rounds before.
          others.push({ name, url: peer.url, pid: peer.pid, request: scenario.peers![name]!, ...(name === 'json-server' ? { warmUpSeconds: 1 } : {}) });
        }
      }
      await measure('2,000 tags', scenario.name, { name: 'service', url: service.url, pid: service.pid, request }, others, results);
    }
    notes.push(`peers: json-server 1.0.0-beta.3 and Platformatic DB ${PLATFORMATIC_VERSION} (SQLite, logger at ${LOG_LEVEL} to a file), each on the same 2,000 tags`);
  } finally {
    for (const peer of Object.values(peers)) await peer.close();
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  ensureWrk();
  const results: Figure[] = [];
  const notes: string[] = [];
  const loadBefore = uptime();
  for (const rows of SIZES) await benchSize(rows, results, notes);
  await benchPeers(results, notes);
  const loadAfter = uptime();

  process.stdout.write(
    `\n${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${machine()}; wrk, 1 thread, ${process.env.BENCH_CONNECTIONS ?? 32} connections; ` +
      `${ROUNDS} rounds of ${SECONDS} s per target after a ${WARM_UP_SECONDS} s warm-up, targets in turns; LOG_LEVEL=${LOG_LEVEL} to a file; ` +
      `${BACKEND === 'sqlite' ? `SQLite, SQLITE_SYNCHRONOUS=${process.env.SQLITE_SYNCHRONOUS || 'FULL'}` : 'PostgreSQL'}\n` +
      `uptime before: ${loadBefore}\nuptime after:  ${loadAfter}\n\n`,
  );
  process.stdout.write(`${table(results)}\n\n${goalsTable(GOALS, results)}\n\n${notes.map((note) => `- ${note}`).join('\n')}\n`);
  if (results.some((f) => f.errors > 0 && f.target !== 'json-server')) process.exitCode = 1;
  // After the tables, so that a failure here loses none of them.
  if (ONLY === undefined && process.env.BENCH_CHANGES !== '0') process.stdout.write(`${(await changeFeedFigures()).map((note) => `- ${note}`).join('\n')}\n`);
  if (ONLY === undefined) runParts();
}

/** The benches of part three, each a script of its own (`npm run bench:<part>` runs one alone),
 * run one after another at the end so that one `npm run bench` gives every issue's figures:
 * BENCH_PARTS picks them (comma-separated, empty for none). Each runs in a process of its own,
 * on the build made above, so that one's memory and timers cannot colour the next. */
function runParts(): void {
  const parts = (process.env.BENCH_PARTS ?? BENCH_PARTS.join(',')).split(',').filter((part) => part !== '');
  for (const part of parts) {
    if (!BENCH_PARTS.includes(part)) throw new Error(`BENCH_PARTS: no bench named ${part} (${BENCH_PARTS.join(', ')})`);
    process.stdout.write(`\n## npm run bench:${part}\n\n`);
    const run = spawnSync(process.execPath, ['--import', 'tsx', resolve(import.meta.dirname, `bench-${part}.ts`)], { stdio: 'inherit' });
    if (run.status !== 0) process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
