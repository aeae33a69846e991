// `npm run bench`: throughput and p99 latency of the service next to its ceiling, a bare
// node:http server that answers a body of the same size, on loopback, one process each.
// Scenarios: GET by id, GET a list page of 100 (plain, filtered by tag and by client, and the
// fleet-scale lists of scripts/support/list-bench.ts: each filter, sort, q, a cursor page at
// the end, a 304 poll), POST, PATCH, at 10,000 and 1,000,000 servers (BENCH_SIZES), each with
// 1,000 clients and 100 tags; then bulk writes (scripts/support/fleet-bench.ts). On SQLite,
// GET by id's floors too: node:http and Fastify reading the row from the same file, against
// node:http (rows `node:http + SQLite read`, `Fastify + SQLite read`;
// scripts/support/read-floor-server.ts), GET by id from the
// entry cache where the servers outnumber it, and what these say of GET by id's budget
// (scripts/support/read-budget.ts). Then the cost
// of authentication: GET by id with a bearer token, with 10 and with 10,000 managed tokens
// (BENCH_TOKENS), next to the same request to an anonymous twin of the service (a copy of its
// database; SQLite only): on a shared machine that ratio moves by far more than 5 %, so the
// figure of what authentication costs comes from `npm run bench:auth` (scripts/bench-auth.ts). BENCH_DATABASE=postgres runs it all on a fresh PostgreSQL database
// (scripts/support/bench-database.ts). Then the change feed (scripts/support/change-bench.ts;
// BENCH_CHANGES=0 skips it). Prints tables; nothing here is a pass/fail test, except that a run with errors or
// a lost acknowledged write exits non-zero.
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { DEFAULT_ENTRY_CACHE_SIZE } from '../src/config/config.js';
import { changeFeedFigures } from './support/change-bench.js';
import { comparedScenarios, startJsonServer } from './support/json-server-bench.js';
import { bulkFigures, FIRST_CLIENT, FLEET_CLIENTS, FLEET_TAGS } from './support/fleet-bench.js';
import { listScenarios, PLAIN_PAGE, relativeToPlainPage, singleRequestMedians } from './support/list-bench.js';
import { benchBackend, createBenchDatabase, serviceCpuMeter, type BenchDatabase } from './support/bench-database.js';
import { seedTokens } from './support/seed.js';
import { readBudget } from './support/read-budget.js';
import { cpuMilliseconds, mainThreadNanoseconds, residentMegabytes } from './support/service-process.js';
import { freePort } from './support/free-port.js';

const MAIN = resolve(import.meta.dirname, '../dist/main.js');
const CEILING = resolve(import.meta.dirname, 'support/ceiling-server.ts');
const READ_FLOOR = resolve(import.meta.dirname, 'support/read-floor-server.ts');
/** The read floors' rows, by the framework they run on (scripts/support/read-floor-server.ts). */
const READ_FLOOR_ROWS = { node: 'node:http + SQLite read', fastify: 'Fastify + SQLite read' } as const;
/** GET by id of the first CACHED_IDS servers only, on SQLite at sizes the entry cache cannot
 * hold: they stay in it, so this row is what a request from the cache costs there. */
const CACHED_ROW = 'GET by id, cached';
const CACHED_IDS = 1_000;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
// A service just started runs its first second or two a third slower (JIT, entry cache): the
// rounds measure it warm, as it runs for days. node:http and the read floor warm up as long.
const WARM_UP_SECONDS = Number(process.env.BENCH_WARM_UP_SECONDS ?? 3);
// json-server writes its whole file at every POST, and the file grows by a tag at each: its
// warm-up stays at the one second of the earlier runs, so that the file it is measured with
// is the size it was then (the service, by then, has served every other scenario).
const JSON_SERVER_WARM_UP_SECONDS = 1;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const SIZES = (process.env.BENCH_SIZES ?? '10000,1000000').split(',').map(Number);
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'info';
const TOKEN_COUNTS = (process.env.BENCH_TOKENS ?? '10,10000').split(',').filter(Boolean).map(Number);
// sqlite (a file) or postgres (a database made on BENCH_POSTGRES_URL's server and dropped after).
const BACKEND = benchBackend();

interface Measure {
  requestsPerSecond: number;
  p99: number;
  errors: number;
  acknowledged: number;
  /** Every request answered in the rounds (not in the warm-up). */
  answered: number;
  /** The service's CPU time per request answered, in µs: steadier than req/s on a loaded VM. */
  cpuMicros?: number;
  /** Its main thread's time per request answered, in µs, where sideBySide was given its pid
   * (scripts/support/read-budget.ts). */
  threadMicros?: number;
}

interface Row {
  rows: number;
  scenario: string;
  project: Measure;
  ceiling: Measure;
  /** What `ceiling` measured: node:http, or the anonymous twin (authentication's cost). */
  against: 'node:http' | 'anonymous' | 'json-server';
}

interface Scenario {
  name: string;
  /** Sent to the service without its list cache (LIST_CACHE_SIZE=0): what the query costs. */
  uncached?: true;
  method: 'GET' | 'POST' | 'PATCH';
  headers?: Record<string, string>;
  /** A fresh request each time: random ids, unique bodies. */
  next: () => { path: string; body?: string; headers?: Record<string, string> };
}

async function startService(dataDir: string, databaseUrl = `sqlite:${join(dataDir, 'config.db')}`, env: Record<string, string> = {}, log = 'service.log'): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      SECRET_KEY_FILE: join(dataDir, 'secret.key'),
      TOKEN_KEY_FILE: join(dataDir, 'token.key'),
      LOG_LEVEL,
      SQLITE_SYNCHRONOUS: process.env.SQLITE_SYNCHRONOUS ?? '',
      ...env,
    },
    // Logs go to a file, as they would go to a log shipper: a pipe read by this busy
    // process would throttle the service instead.
    stdio: ['ignore', openSync(join(dataDir, log), 'a'), 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}: see ${dataDir}/service.log`);
    const ready = await fetch(`${url}/healthz`).then((r) => r.ok, () => false);
    if (ready) return { child, url };
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error('service did not start in time');
}

function stopped(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  return new Promise((done) => {
    child.once('exit', () => done());
    child.kill(signal);
  });
}

/** The ceiling: what node:http alone does with a body of the same size and status, served
 * from a process of its own as the service is. */
async function ceilingServer(dataDir: string, status: number, body: string): Promise<{ url: string; pid: number; close: () => Promise<void> }> {
  const bodyFile = join(dataDir, 'ceiling-body.json');
  writeFileSync(bodyFile, body);
  return helperServer(CEILING, [String(status), bodyFile]);
}

/** One of the bench's own servers (the ceiling, the read floor), in a process of its own. */
async function helperServer(script: string, args: string[]): Promise<{ url: string; pid: number; close: () => Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((done, fail) => {
    let output = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      const listening = /listening (\d+)/.exec(output);
      if (listening !== null) done(Number(listening[1]));
    });
    child.once('exit', (code) => fail(new Error(`${script} exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, pid: child.pid!, close: () => stopped(child, 'SIGTERM') };
}

/** The service and its ceiling (or any other server: `againstScenario`), loaded in turns: a
 * warm-up each (`warmUpSeconds`: the JIT, the service's caches), then ROUNDS rounds of
 * SECONDS / ROUNDS each. This VM's speed drifts by up to 2x within minutes; measured one after
 * the other, the two sides would see different machines. `warmedUp` runs between the warm-ups
 * and the rounds: where the CPU count of the measure starts. */
async function sideBySide(
  serviceUrl: string,
  ceilingUrl: string,
  scenario: Scenario,
  {
    againstScenario = scenario,
    warmUpSeconds = WARM_UP_SECONDS,
    warmedUp = async () => {},
    pids,
  }: { againstScenario?: Scenario; warmUpSeconds?: number; warmedUp?: () => Promise<void>; pids?: { project: number; ceiling: number } } = {},
): Promise<{ project: Measure; ceiling: Measure }> {
  const project = emptyMeasure();
  const ceiling = emptyMeasure();
  project.acknowledged += (await run(serviceUrl, scenario, warmUpSeconds))['2xx'];
  ceiling.acknowledged += (await run(ceilingUrl, againstScenario, warmUpSeconds))['2xx'];
  await warmedUp();
  // Each side idles during the other's turns: its main thread's time over both is its own work.
  const threadsBefore = pids === undefined ? undefined : { project: mainThreadNanoseconds(pids.project), ceiling: mainThreadNanoseconds(pids.ceiling) };
  for (let round = 0; round < ROUNDS; round++) {
    add(project, await run(serviceUrl, scenario, SECONDS / ROUNDS));
    add(ceiling, await run(ceilingUrl, againstScenario, SECONDS / ROUNDS));
  }
  if (pids !== undefined && threadsBefore !== undefined) {
    project.threadMicros = (mainThreadNanoseconds(pids.project) - threadsBefore.project) / 1000 / project.answered;
    ceiling.threadMicros = (mainThreadNanoseconds(pids.ceiling) - threadsBefore.ceiling) / 1000 / ceiling.answered;
  }
  return { project: finish(project), ceiling: finish(ceiling) };
}

function emptyMeasure(): Measure {
  return { requestsPerSecond: 0, p99: 0, errors: 0, acknowledged: 0, answered: 0 };
}

/** Sums the rounds' requests per second (averaged in finish) and keeps their worst p99. */
function add(measure: Measure, result: autocannon.Result): void {
  measure.requestsPerSecond += result.requests.average;
  measure.p99 = Math.max(measure.p99, result.latency.p99);
  // 3xx: the 304 answers of the If-None-Match poll, the only scenario that can have them.
  measure.errors += result.errors + result.timeouts + result.non2xx - result['3xx'];
  measure.acknowledged += result['2xx'];
  measure.answered += result.requests.total;
}

function finish(measure: Measure): Measure {
  return { ...measure, requestsPerSecond: Math.round(measure.requestsPerSecond / ROUNDS) };
}

function run(url: string, scenario: Scenario, seconds: number): Promise<autocannon.Result> {
  return autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      {
        method: scenario.method,
        headers: { 'content-type': 'application/json', ...scenario.headers },
        setupRequest: (request: any) => ({ ...request, ...scenario.next() }),
      },
    ],
  });
}

async function sample(url: string, scenario: Scenario): Promise<{ status: number; body: string }> {
  const request = scenario.next();
  const response = await fetch(`${url}${request.path}`, {
    method: scenario.method,
    headers: { 'content-type': 'application/json', ...scenario.headers, ...request.headers },
    body: request.body,
  });
  return { status: response.status, body: await response.text() };
}

async function benchSize(rows: number, results: Row[], notes: string[]): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'config-api-bench-'));
  const database: BenchDatabase = await createBenchDatabase(BACKEND, dataDir);
  try {
    // A first start creates the schema; the seed then goes straight into the database.
    const first = await startService(dataDir, database.url);
    await stopped(first.child, 'SIGTERM');
    const seeded = Date.now();
    await database.seed(rows);
    notes.push(`${rows} servers seeded (${BACKEND}) in ${((Date.now() - seeded) / 1000).toFixed(1)} s`);

    const { child, url } = await startService(dataDir, database.url);
    // The list queries are measured on a second process without the list cache (the page of a
    // repeated URL would otherwise come from memory): what each filter and sort costs the
    // database. The cached page and the 304 poll are measured on the service as it ships.
    const bare = await startService(dataDir, database.url, { LIST_CACHE_SIZE: '0' }, 'uncached.log');
    const serving = (scenario: Scenario) => (scenario.uncached ? bare : { child, url });
    // The VM is shared: the load the run met is part of its figures.
    const load = () => loadavg().map((value) => value.toFixed(1)).join(' ');
    notes.push(`${rows} servers: load average (1, 5, 15 min) before the scenarios ${load()}`);
    let created = 0;
    const randomId = (): number => 1 + Math.floor(Math.random() * rows);
    const scenarios: Scenario[] = [
      { name: 'GET by id', method: 'GET', next: () => ({ path: `/en/api/config/servers/${randomId()}` }) },
      // PostgreSQL and MariaDB keep no entry cache (docs/decisions.md): no such row there.
      ...(database.file !== undefined && rows > DEFAULT_ENTRY_CACHE_SIZE ? [{ name: CACHED_ROW, method: 'GET' as const, next: () => ({ path: `/en/api/config/servers/${1 + Math.floor(Math.random() * CACHED_IDS)}` }) }] : []),
      { name: 'GET list page (100)', method: 'GET', next: () => ({ path: '/en/api/config/servers?limit=100' }) },
      { name: PLAIN_PAGE, uncached: true, method: 'GET', next: () => ({ path: '/en/api/config/servers?limit=100' }) },
      { name: 'list ?tag=', uncached: true, method: 'GET', next: () => ({ path: `/en/api/config/servers?limit=100&tag=${1 + Math.floor(Math.random() * FLEET_TAGS)}` }) },
      {
        name: 'list ?id_client=',
        uncached: true,
        method: 'GET',
        next: () => ({ path: `/en/api/config/servers?limit=100&id_client=${FIRST_CLIENT + Math.floor(Math.random() * FLEET_CLIENTS)}` }),
      },
      ...(await listScenarios(url, rows)),
      {
        name: 'POST',
        method: 'POST',
        next: () => {
          created += 1;
          return { path: '/en/api/config/servers', body: JSON.stringify({ ip: `172.16.${(created >> 8) & 255}.${created & 255}`, port: 10000 + (created >> 16), hostname: `bench-${created}` }) };
        },
      },
      {
        name: 'PATCH',
        method: 'PATCH',
        next: () => ({ path: `/en/api/config/servers/${randomId()}`, body: JSON.stringify({ hostname: `patched-${Math.random().toString(36).slice(2, 10)}` }) }),
      },
    ];
    const before = await database.countServers();
    let acknowledgedCreates = 0;
    for (const scenario of scenarios) {
      const service = serving(scenario);
      const shape = await sample(service.url, scenario);
      const ceilingProcess = await ceilingServer(dataDir, shape.status, shape.body);
      // The service idles during the ceiling's turns: its CPU time over both is its own work.
      // On PostgreSQL, its backends' CPU time is added: the work a query costs is done there.
      let cpuUsed: () => Promise<number> = async () => 0;
      const warmedUp = async (): Promise<void> => {
        cpuUsed = await serviceCpuMeter(service.child.pid!, database);
      };
      const pids = { project: service.child.pid!, ceiling: ceilingProcess.pid };
      const { project, ceiling } = await sideBySide(service.url, ceilingProcess.url, scenario, { warmedUp, pids });
      project.cpuMicros = ((await cpuUsed()) * 1000) / project.answered;
      if (scenario.method === 'POST') acknowledgedCreates = project.acknowledged + 1; // + the sample
      results.push({ rows, scenario: scenario.name, project, ceiling, against: 'node:http' });
      if (scenario.name === 'GET by id' && database.file !== undefined) {
        for (const framework of ['node', 'fastify'] as const) results.push(await readFloor(rows, database.file, framework, ceilingProcess, scenario));
      }
      await ceilingProcess.close();
    }
    // json-server on the same 2,000 tags: the issue's point of comparison for lists and POST.
    const jsonServer = await startJsonServer(dataDir, url);
    for (const compared of comparedScenarios()) {
      const mine: Scenario = { name: compared.name, method: compared.method, next: compared.service };
      const { project, ceiling } = await sideBySide(url, jsonServer.url, mine, { againstScenario: { ...mine, next: compared.jsonServer }, warmUpSeconds: JSON_SERVER_WARM_UP_SECONDS });
      results.push({ rows, scenario: compared.name, project, ceiling, against: 'json-server' });
    }
    await jsonServer.close();
    notes.push(`${rows} servers: load average after the scenarios ${load()}`);
    notes.push(...relativeToPlainPage(rows, results));
    if (database.file !== undefined) notes.push(...readBudget(rows, results, { miss: 'GET by id', floor: READ_FLOOR_ROWS.node, frameworkFloor: READ_FLOOR_ROWS.fastify, cached: CACHED_ROW }));
    const singles = scenarios.filter((scenario) => scenario.method === 'GET' && !scenario.name.startsWith('GET by id'));
    notes.push(...(await singleRequestMedians(bare.url, rows, singles.filter((scenario) => scenario.uncached))));
    notes.push(...(await singleRequestMedians(url, rows, singles.filter((scenario) => !scenario.uncached))));
    await stopped(bare.child, 'SIGTERM');
    const bulk = await bulkFigures(url);
    acknowledgedCreates += bulk.acknowledged;
    notes.push(...bulk.notes.map((note) => `${rows} servers: ${note}`));
    const rss = Math.round(residentMegabytes(child.pid!));
    notes.push(`${rows} servers: resident memory of the service after the run ${rss} MB`);

    // Every acknowledged create must survive a kill -9.
    await stopped(child, 'SIGKILL');
    const present = (await database.countServers()) - before;
    notes.push(`${rows} servers: kill -9 after the run; ${acknowledgedCreates} creates acknowledged, ${present} present`);
    if (present < acknowledgedCreates) {
      notes.push('LOST ACKNOWLEDGED WRITES');
      process.exitCode = 1;
    }
    // The token scenarios copy and seed the SQLite file.
    if (TOKEN_COUNTS.length > 0 && database.file !== undefined) await benchTokens(rows, dataDir, results, notes);
  } finally {
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** GET by id from a read floor (scripts/support/read-floor-server.ts: node:http or Fastify
 * reading the row from the same SQLite file, nothing else) against node:http (`ceiling`, GET
 * by id's own): the most any SQLite-backed GET by id on that framework can reach on this
 * machine when the row is read for the request. */
async function readFloor(rows: number, file: string, framework: keyof typeof READ_FLOOR_ROWS, ceiling: { url: string; pid: number }, scenario: Scenario): Promise<Row> {
  const floor = await helperServer(READ_FLOOR, [file, framework]);
  try {
    const { project, ceiling: against } = await sideBySide(floor.url, ceiling.url, scenario, { pids: { project: floor.pid, ceiling: ceiling.pid } });
    return { rows, scenario: READ_FLOOR_ROWS[framework], project, ceiling: against, against: 'node:http' };
  } finally {
    await floor.close();
  }
}

async function until(holds: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await holds())) {
    if (Date.now() > deadline) throw new Error('the service did not take the seeded tokens in time');
    await new Promise((done) => setTimeout(done, 100));
  }
}

/** GET by id with a bearer token, next to the same GET without one sent to an anonymous twin
 * of the service: a copy of its files as the write scenarios and the kill left them, without
 * tokens. Both are started afresh, then loaded in turns: what authentication costs, with
 * TOKEN_COUNTS managed tokens in the service's database. */
async function benchTokens(rows: number, dataDir: string, results: Row[], notes: string[]): Promise<void> {
  const twinDir = mkdtempSync(join(tmpdir(), 'config-api-bench-twin-'));
  for (const file of ['config.db', 'config.db-wal', 'secret.key']) {
    if (existsSync(join(dataDir, file))) copyFileSync(join(dataDir, file), join(twinDir, file));
  }
  const service = await startService(dataDir);
  const twin = await startService(twinDir);
  const { url } = service;
  try {
    const anonymous: Scenario = { name: 'GET by id', method: 'GET', next: () => ({ path: `/en/api/config/servers/${1 + Math.floor(Math.random() * rows)}` }) };
    let seeded = 0;
    for (const count of TOKEN_COUNTS) {
      const token = seedTokens(join(dataDir, 'config.db'), join(dataDir, 'token.key'), count - seeded);
      seeded = count;
      const headers = { authorization: `Bearer ${token}` };
      // The service reads the tokens within a second; from then on a request needs one.
      await until(async () => (await fetch(`${url}/en/api/config/servers/1`, { headers })).status === 200 && (await fetch(`${url}/healthz`)).ok);
      const withToken: Scenario = { ...anonymous, name: `GET by id, ${count} tokens`, headers };
      // CPU time per request: on this shared VM, steadier than throughput (both sides idle but for their turns).
      let cpuBefore = [0, 0];
      const warmedUp = async (): Promise<void> => {
        cpuBefore = [cpuMilliseconds(service.child.pid!), cpuMilliseconds(twin.child.pid!)];
      };
      const { project, ceiling } = await sideBySide(url, twin.url, withToken, { againstScenario: anonymous, warmedUp });
      const [mine, theirs] = [cpuMilliseconds(service.child.pid!) - cpuBefore[0]!, cpuMilliseconds(twin.child.pid!) - cpuBefore[1]!];
      const perRequest = [(mine * 1000) / project.answered, (theirs * 1000) / ceiling.answered];
      notes.push(
        `${withToken.name}: CPU per request ${perRequest[0]!.toFixed(1)} µs with the token, ${perRequest[1]!.toFixed(1)} µs anonymous ` +
          `(${((perRequest[0]! / perRequest[1]! - 1) * 100).toFixed(1)} %)`,
      );
      results.push({ rows, scenario: withToken.name, project, ceiling, against: 'anonymous' });
    }
    notes.push('GET by id with a token vs anonymous: two processes compared by throughput, which moves with the machine; npm run bench:auth measures what authentication costs');
  } finally {
    await stopped(twin.child, 'SIGTERM');
    await stopped(service.child, 'SIGTERM');
    rmSync(twinDir, { recursive: true, force: true });
  }
}

function cell(value: number | string, width: number): string {
  return String(value).padStart(width);
}

async function main(): Promise<void> {
  const results: Row[] = [];
  const notes: string[] = [];
  for (const rows of SIZES) await benchSize(rows, results, notes);
  if (process.env.BENCH_CHANGES !== '0') notes.push(...(await changeFeedFigures()));

  const cpu = readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/)?.[1] ?? 'unknown CPU';
  process.stdout.write(
    `\n${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpu}, ${SECONDS} s per measure in ${ROUNDS} rounds after a ${WARM_UP_SECONDS} s warm-up, ${CONNECTIONS} connections, ` +
      `LOG_LEVEL=${LOG_LEVEL}, ${BACKEND === 'sqlite' ? `SQLite, SQLITE_SYNCHRONOUS=${process.env.SQLITE_SYNCHRONOUS || 'default'}` : 'PostgreSQL'}, load average ${loadavg().map((load) => load.toFixed(1)).join(' ')}\n\n`,
  );
  for (const against of ['node:http', 'json-server', 'anonymous'] as const) {
    const rows = results.filter((r) => r.against === against);
    if (rows.length === 0) continue;
    const side = against === 'anonymous' ? 'with token' : 'service';
    process.stdout.write(`| servers | scenario | ${side} req/s | ${side} p99 ms | CPU µs/req | ${against} req/s | ${against} p99 ms | ratio | errors |\n`);
    process.stdout.write('|---:|---|---:|---:|---:|---:|---:|---:|---:|\n');
    for (const r of rows) {
      const ratio = (r.project.requestsPerSecond / r.ceiling.requestsPerSecond).toFixed(2);
      process.stdout.write(
        `| ${cell(r.rows, 9)} | ${r.scenario.padEnd(23)} | ${cell(r.project.requestsPerSecond, 6)} | ${cell(r.project.p99, 4)} | ${cell(r.project.cpuMicros === undefined ? '-' : Math.round(r.project.cpuMicros), 5)} | ` +
          `${cell(r.ceiling.requestsPerSecond, 6)} | ${cell(r.ceiling.p99, 4)} | ${cell(ratio, 5)} | ${cell(r.project.errors + r.ceiling.errors, 3)} |\n`,
      );
      if (r.project.errors + (against === 'node:http' ? 0 : r.ceiling.errors) > 0) process.exitCode = 1;
    }
    process.stdout.write('\n');
  }
  // How much slower each scenario is at the largest size than at the smallest.
  const smallest = Math.min(...SIZES);
  const largest = Math.max(...SIZES);
  if (largest > smallest) {
    for (const r of results.filter((row) => row.rows === largest && row.against === 'node:http')) {
      const small = results.find((row) => row.rows === smallest && row.scenario === r.scenario);
      if (small === undefined) continue;
      const factor = (small.project.requestsPerSecond / r.project.requestsPerSecond).toFixed(2);
      notes.push(`${r.scenario}: ${smallest} servers ${small.project.requestsPerSecond} req/s, ${largest} servers ${r.project.requestsPerSecond} req/s (${factor}x slower)`);
    }
  }
  process.stdout.write(`\n${notes.map((note) => `- ${note}`).join('\n')}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
