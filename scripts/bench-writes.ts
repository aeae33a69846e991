// `npm run bench:writes` (issue #38): single POSTs of servers from 32 keep-alive connections
// (wrk), on PostgreSQL and MariaDB, through one instance and through two instances sharing
// the database, in alternating rounds; beside them the floor, bare single-row INSERTs of the
// same concurrency from this process; the cores the machine and the database server kept busy
// during one instance's load and the floor's (a second instance adds writes only if cores are
// left); and the change feed's latency, from a write's record (`at`, taken just before its
// commit) to its arrival on a stream of the other instance, during the one-instance load. At
// the end, the change log is checked against the servers: one record per created server, ids
// 1..N without a gap. `uptime` before and after each run.
// BENCH_WRITE_BACKENDS=postgres,mariadb; BENCH_SECONDS, BENCH_ROUNDS; BENCH_POOL_SIZE (32);
// BENCH_WRITES_MAIN: another build's dist/main.js, run in turns alternating with this one's in
// the same run, on the same database (an A/B: ratios per round, CPU per POST of each).
import { mkdtempSync, rmSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { machine, median, ROUNDS, SECONDS, startBenchService, uptime } from './support/bench-kit.js';
import { coresBusy, cpuSnapshot } from './support/machine-cpu.js';
import { cpuMilliseconds, type ServiceProcess } from './support/service-process.js';
import { ensureWrk, runWrk, type RequestTemplate, type WrkResult } from './support/wrk.js';

type Backend = 'postgres' | 'mariadb';
/** The database server's command names, whose CPU the bench reports beside the service's. */
const SERVER_COMMANDS: Record<Backend, readonly string[]> = { postgres: ['postgres'], mariadb: ['mariadbd', 'mysqld'] };
const CORES = availableParallelism();
const BACKENDS = (process.env.BENCH_WRITE_BACKENDS ?? 'postgres,mariadb').split(',').filter(Boolean) as Backend[];
const CONNECTIONS = 32;
const POOL_SIZE = process.env.BENCH_POOL_SIZE ?? '32';
const MAIN = process.env.BENCH_WRITES_MAIN;
const POSTGRES_ADMIN_URL = process.env.BENCH_POSTGRES_URL || process.env.TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const MARIADB_ADMIN_URL = process.env.BENCH_MARIADB_URL || process.env.TEST_MARIADB_URL || 'mysql://root@127.0.0.1:3306/test';

const POST: RequestTemplate = {
  method: 'POST',
  path: '/en/api/config/servers',
  body: `{"ip":"172.{{math.floor(n / 65536) % 256}}.{{math.floor(n / 256) % 256}}.{{n % 256}}","port":{{3306 + math.floor(n / 16777216) % 1000}},"hostname":"w-{{n}}"}`,
};

/** The columns a server create writes, and a row of them: the floor writes what the service does. */
const FLOOR_COLUMNS = ['ip', 'port', 'hostname', 'ssl', 'ssh', 'is_proxy', 'is_vip', 'is_monitored', 'is_deleted', 'live', 'created_at', 'updated_at'];
let floorRuns = 0;
function floorRow(n: number): unknown[] {
  const now = new Date().toISOString();
  return [`10.${floorRuns % 256}.${Math.floor(n / 256) % 256}.${n % 256}`, 3306 + Math.floor(n / 65536), `f-${floorRuns}-${n}`, 0, 0, 0, 0, 1, 0, 1, now, now];
}

interface Database {
  readonly url: string;
  /** Runs `text` on the database (for the floor and the final check). */
  query(text: string): Promise<Record<string, unknown>[]>;
  /** Bare single-row INSERTs, autocommitted, from `connections` connections for `seconds`. */
  floor(connections: number, seconds: number): Promise<number>;
  drop(): Promise<void>;
}

async function createDatabase(backend: Backend): Promise<Database> {
  const name = `config_api_writes_${randomBytes(4).toString('hex')}`;
  if (backend === 'postgres') {
    const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const url = new URL(POSTGRES_ADMIN_URL);
    url.pathname = `/${name}`;
    const pool = new pg.Pool({ connectionString: url.toString(), max: CONNECTIONS });
    pool.on('error', () => undefined);
    return {
      url: url.toString(),
      query: async (text) => (await pool.query(text)).rows,
      floor: async (connections, seconds) => {
        // A copy of the servers table: its columns, defaults and every index (the trigram ones too).
        await pool.query('create table if not exists floor (like servers including defaults including indexes)');
        const insert = `insert into floor (${FLOOR_COLUMNS.join(', ')}) values (${FLOOR_COLUMNS.map((_, index) => `$${index + 1}`).join(', ')})`;
        return loop(connections, seconds, (n) => pool.query(insert, floorRow(n)));
      },
      drop: async () => {
        await pool.end();
        const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
        await client.connect();
        await client.query(`drop database if exists ${name} with (force)`);
        await client.end();
      },
    };
  }
  const admin = await mysql.createConnection({ uri: MARIADB_ADMIN_URL });
  await admin.query(`create database ${name} character set utf8mb4 collate utf8mb4_bin`);
  await admin.end();
  const url = new URL(MARIADB_ADMIN_URL);
  url.pathname = `/${name}`;
  const pool = mysql.createPool({ uri: url.toString(), connectionLimit: CONNECTIONS });
  return {
    url: url.toString(),
    query: async (text) => (await pool.query(text))[0] as Record<string, unknown>[],
    floor: async (connections, seconds) => {
      // A copy of the servers table: its columns and every index (not its foreign keys).
      await pool.query('create table if not exists floor like servers');
      const insert = `insert into floor (${FLOOR_COLUMNS.map((column) => `\`${column}\``).join(', ')}) values (${FLOOR_COLUMNS.map(() => '?').join(', ')})`;
      return loop(connections, seconds, (n) => pool.query(insert, floorRow(n)));
    },
    drop: async () => {
      await pool.end();
      const client = await mysql.createConnection({ uri: MARIADB_ADMIN_URL });
      await client.query(`drop database if exists ${name}`);
      await client.end();
    },
  };
}

/** `connections` loops calling `insert` for `seconds`: statements a second. */
async function loop(connections: number, seconds: number, insert: (n: number) => Promise<unknown>): Promise<number> {
  floorRuns += 1;
  const end = Date.now() + seconds * 1000;
  let n = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < end) await insert(n++);
    }),
  );
  return n / ((Date.now() - started) / 1000);
}

/** A change stream on `url` from after `since` (not the whole log first): each record's delay from its `at` to its arrival, in ms. */
function latencyStream(url: string, since: number): { delays: number[]; close(): void } {
  const delays: number[] = [];
  const req = request(`${url}/en/api/changes/stream?since=${since}`, (response: IncomingMessage) => {
    let text = '';
    response.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
      let end: number;
      while ((end = text.indexOf('\n\n')) >= 0) {
        const at = /"at":"([^"]+)"/.exec(text.slice(0, end));
        if (at !== null) delays.push(Date.now() - Date.parse(at[1]!));
        text = text.slice(end + 2);
      }
    });
  });
  req.on('error', () => undefined);
  req.end();
  return { delays, close: () => req.destroy() };
}

function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const spread = (values: readonly number[]): string => `${Math.round(median(values))}/s (${Math.round(Math.min(...values))}-${Math.round(Math.max(...values))})`;

function checkRun(label: string, result: WrkResult): void {
  if (result.badStatus > 0 || result.socketErrors > 0) console.log(`  ! ${label}: ${result.badStatus} answers outside 2xx, ${result.socketErrors} socket errors`);
}

interface Build {
  readonly name: string;
  /** Its dist/main.js; undefined: this worktree's. */
  readonly main: string | undefined;
  readonly one: number[];
  readonly two: number[];
  /** The service's CPU time per POST, one instance (µs). */
  readonly cpu: number[];
  /** Cores the whole machine kept busy during one instance's load, and of those the database server's. */
  readonly machineCores: number[];
  readonly databaseCores: number[];
}

/** A turn of `build`: its two instances started on the database, one instance's load, then
 * both's, then stopped (two builds' pools at once would pass PostgreSQL's 100 connections). */
async function turn(backend: Backend, build: Build, database: Database, dataDir: string, delays: number[] | undefined): Promise<void> {
  const env = { DATABASE_URL: database.url, DATABASE_POOL_SIZE: POOL_SIZE, LOG_LEVEL: 'warn' };
  const services: ServiceProcess[] = [];
  try {
    const main = build.main === undefined ? {} : { main: build.main };
    const a = await startBenchService(dataDir, env, { log: 'a.log', ...main });
    services.push(a);
    const b = await startBenchService(dataDir, env, { log: 'b.log', ...main });
    services.push(b);
    const [newest] = await database.query('select coalesce(max(id), 0) as id from change_log');
    const stream = delays === undefined ? undefined : latencyStream(b.url, Number(newest!.id));
    const cpuBefore = cpuMilliseconds(a.pid);
    const machineBefore = cpuSnapshot(SERVER_COMMANDS[backend]);
    const single = await runWrk(a.url, POST, SECONDS, CONNECTIONS);
    const busy = coresBusy(machineBefore, cpuSnapshot(SERVER_COMMANDS[backend]), CORES);
    build.cpu.push(((cpuMilliseconds(a.pid) - cpuBefore) * 1000) / single.requests);
    build.machineCores.push(busy.machine);
    build.databaseCores.push(busy.named);
    if (stream !== undefined) {
      await new Promise((done) => setTimeout(done, 1500));
      stream.close();
      delays!.push(...stream.delays);
    }
    checkRun(`${build.name}, one instance`, single);
    build.one.push(single.requestsPerSecond);
    const [viaA, viaB] = await Promise.all([runWrk(a.url, POST, SECONDS, CONNECTIONS / 2), runWrk(b.url, POST, SECONDS, CONNECTIONS / 2)]);
    checkRun(`${build.name}, two instances`, viaA!);
    checkRun(`${build.name}, two instances`, viaB!);
    build.two.push(viaA!.requestsPerSecond + viaB!.requestsPerSecond);
    console.log(
      `  ${build.name}: one instance ${Math.round(single.requestsPerSecond)}/s (p99 ${single.p99Ms} ms, ${Math.round(build.cpu.at(-1)!)} µs of the service's CPU per POST; machine busy ${busy.machine.toFixed(2)} of ${CORES} cores, the database server ${busy.named.toFixed(2)}), two instances ${Math.round(build.two.at(-1)!)}/s; ${uptime()}`,
    );
  } finally {
    for (const service of services) await service.stop();
  }
}

async function benchBackend(backend: Backend): Promise<void> {
  const database = await createDatabase(backend);
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-writes-'));
  try {
    const newBuild = (name: string, main: string | undefined): Build => ({ name, main, one: [], two: [], cpu: [], machineCores: [], databaseCores: [] });
    const builds: Build[] = [newBuild('this build', undefined)];
    if (MAIN !== undefined) builds.push(newBuild('other build', MAIN));
    const floor: number[] = [];
    const delays: number[] = [];
    console.log(`\n## ${backend}, ${CONNECTIONS} connections, pool ${POOL_SIZE} per instance, ${ROUNDS} rounds of ${SECONDS} s${MAIN === undefined ? '' : `, this build and ${MAIN} in alternating turns`}`);
    for (let round = 1; round <= ROUNDS; round++) {
      console.log(`round ${round}, before: ${uptime()}`);
      // Alternating which build goes first, so that neither always meets the other's after-effects.
      const order = round % 2 === 1 ? builds : [...builds].reverse();
      for (const build of order) await turn(backend, build, database, dataDir, build === builds[0] ? delays : undefined);
      const floorBefore = cpuSnapshot(SERVER_COMMANDS[backend]);
      floor.push(await database.floor(CONNECTIONS, SECONDS));
      const floorBusy = coresBusy(floorBefore, cpuSnapshot(SERVER_COMMANDS[backend]), CORES);
      console.log(
        `  bare INSERT into a copy of the servers table (same indexes), ${CONNECTIONS} connections: ${Math.round(floor.at(-1)!)}/s ` +
          `(machine busy ${floorBusy.machine.toFixed(2)} of ${CORES} cores, the database server ${floorBusy.named.toFixed(2)}); after: ${uptime()}`,
      );
    }
    const [servers] = await database.query('select count(*) as n from servers');
    const [log] = await database.query('select count(*) as n, min(id) as lo, max(id) as hi from change_log');
    // A build before issue #38 has no queue.
    const [pending] = await database.query('select count(*) as n from change_log_pending').catch(() => [{ n: 0 }]);
    const exact = Number(servers!.n) === Number(log!.n) && Number(log!.lo) === 1 && Number(log!.hi) === Number(log!.n) && Number(pending!.n) === 0;
    for (const build of builds) {
      console.log(
        `${build.name}: POST /servers, one instance ${spread(build.one)}; two instances ${spread(build.two)} (${(median(build.two) / median(build.one)).toFixed(2)}x); ` +
          `CPU per POST ${Math.round(median(build.cpu))} µs (${Math.round(Math.min(...build.cpu))}-${Math.round(Math.max(...build.cpu))}); of the floor ${(median(build.one) / median(floor)).toFixed(2)}; ` +
          `one instance's load kept ${median(build.machineCores).toFixed(2)} of ${CORES} cores busy (${Math.min(...build.machineCores).toFixed(2)}-${Math.max(...build.machineCores).toFixed(2)}), the database server ${median(build.databaseCores).toFixed(2)}`,
      );
    }
    if (builds.length === 2) {
      const [mine, other] = builds as [Build, Build];
      const ratios = mine.one.map((rate, index) => rate / other.one[index]!);
      console.log(`this build / other build, one instance, per round: ${ratios.map((ratio) => ratio.toFixed(2)).join(', ')}; CPU per POST ${(median(mine.cpu) / median(other.cpu)).toFixed(2)}`);
    }
    console.log(`bare INSERT floor: ${spread(floor)}`);
    console.log(`change feed, commit to a stream on the other instance during this build's one-instance load: p50 ${percentile(delays, 50)} ms, p99 ${percentile(delays, 99)} ms over ${delays.length} records`);
    console.log(`change log: ${log!.n} records (ids ${log!.lo}..${log!.hi}), ${servers!.n} servers, ${pending!.n} waiting: ${exact ? 'exact' : 'NOT EXACT'}`);
    if (!exact) process.exitCode = 1;
  } finally {
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

ensureWrk();
console.log(`# bench:writes, ${machine()}`);
for (const backend of BACKENDS) await benchBackend(backend);
