// `npm run bench:writes` (issue #38): single POSTs of servers from 32 keep-alive connections
// (wrk), on PostgreSQL and MariaDB, through one instance and through two instances sharing
// the database, in alternating rounds; beside them the floor, bare single-row INSERTs of the
// same concurrency from this process; and the change feed's latency, from a write's record
// (`at`, taken just before its commit) to its arrival on a stream of the other instance,
// during the one-instance load. At the end, the change log is checked against the servers:
// one record per created server, ids 1..N without a gap. `uptime` before and after each run.
// BENCH_WRITE_BACKENDS=postgres,mariadb; BENCH_SECONDS, BENCH_ROUNDS; BENCH_POOL_SIZE (32);
// BENCH_WRITES_MAIN: another build's dist/main.js (the build before issue #38, for the same
// load on the same machine at about the same time).
import { mkdtempSync, rmSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { machine, median, ROUNDS, SECONDS, startBenchService, uptime } from './support/bench-kit.js';
import { cpuMilliseconds, type ServiceProcess } from './support/service-process.js';
import { ensureWrk, runWrk, type RequestTemplate, type WrkResult } from './support/wrk.js';

type Backend = 'postgres' | 'mariadb';
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
        await pool.query('create table if not exists floor (id serial primary key, ip varchar(64), port int, hostname varchar(255), created_at varchar(32))');
        return loop(connections, seconds, (n) => pool.query('insert into floor (ip, port, hostname, created_at) values ($1, $2, $3, $4)', [`10.0.${n % 256}.1`, n, `f-${n}`, new Date().toISOString()]));
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
      await pool.query('create table if not exists floor (id int auto_increment primary key, ip varchar(64), port int, hostname varchar(255), created_at varchar(32)) engine = InnoDB');
      return loop(connections, seconds, (n) => pool.query('insert into floor (ip, port, hostname, created_at) values (?, ?, ?, ?)', [`10.0.${n % 256}.1`, n, `f-${n}`, new Date().toISOString()]));
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

async function benchBackend(backend: Backend): Promise<void> {
  const database = await createDatabase(backend);
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-writes-'));
  const services: ServiceProcess[] = [];
  try {
    const env = { DATABASE_URL: database.url, DATABASE_POOL_SIZE: POOL_SIZE, LOG_LEVEL: 'warn' };
    const a = await startBenchService(dataDir, env, { log: 'a.log', ...(MAIN === undefined ? {} : { main: MAIN }) });
    services.push(a);
    const b = await startBenchService(dataDir, env, { log: 'b.log', ...(MAIN === undefined ? {} : { main: MAIN }) });
    services.push(b);
    const one: number[] = [];
    const two: number[] = [];
    const floor: number[] = [];
    const delays: number[] = [];
    /** The service's own CPU time per POST, one instance (ms): on a shared machine, what the
     * rate would be with a core of its own. */
    const cpu: number[] = [];
    console.log(`\n## ${backend}, ${CONNECTIONS} connections, pool ${POOL_SIZE} per instance, ${ROUNDS} rounds of ${SECONDS} s`);
    for (let round = 1; round <= ROUNDS; round++) {
      console.log(`round ${round}, before: ${uptime()}`);
      const [newest] = await database.query('select coalesce(max(id), 0) as id from change_log');
      const stream = latencyStream(b.url, Number(newest!.id));
      const cpuBefore = cpuMilliseconds(a.pid);
      const single = await runWrk(a.url, POST, SECONDS, CONNECTIONS);
      cpu.push((cpuMilliseconds(a.pid) - cpuBefore) / single.requests);
      await new Promise((done) => setTimeout(done, 1500));
      stream.close();
      delays.push(...stream.delays);
      checkRun('one instance', single);
      one.push(single.requestsPerSecond);
      const [viaA, viaB] = await Promise.all([runWrk(a.url, POST, SECONDS, CONNECTIONS / 2), runWrk(b.url, POST, SECONDS, CONNECTIONS / 2)]);
      checkRun('two instances', viaA!);
      checkRun('two instances', viaB!);
      two.push(viaA!.requestsPerSecond + viaB!.requestsPerSecond);
      floor.push(await database.floor(CONNECTIONS, SECONDS));
      console.log(
        `  one instance ${Math.round(single.requestsPerSecond)}/s (p99 ${single.p99Ms} ms, ${cpu.at(-1)!.toFixed(2)} ms of the service's CPU per POST), two instances ${Math.round(two.at(-1)!)}/s, bare INSERT ${Math.round(floor.at(-1)!)}/s; after: ${uptime()}`,
      );
    }
    const [servers] = await database.query('select count(*) as n from servers');
    const [log] = await database.query('select count(*) as n, min(id) as lo, max(id) as hi from change_log');
    // A build before issue #38 has no queue.
    const [pending] = await database.query('select count(*) as n from change_log_pending').catch(() => [{ n: 0 }]);
    const exact = Number(servers!.n) === Number(log!.n) && Number(log!.lo) === 1 && Number(log!.hi) === Number(log!.n) && Number(pending!.n) === 0;
    console.log(`POST /servers, one instance: ${spread(one)}; two instances: ${spread(two)} (${(median(two) / median(one)).toFixed(2)}x); bare INSERT floor: ${spread(floor)}`);
    console.log(`the service's CPU per POST, one instance: ${median(cpu).toFixed(2)} ms (a core of its own would serve ${Math.round(1000 / median(cpu))}/s)`);
    console.log(`change feed, commit to a stream on the other instance during the one-instance load: p50 ${percentile(delays, 50)} ms, p99 ${percentile(delays, 99)} ms over ${delays.length} records`);
    console.log(`change log: ${log!.n} records (ids ${log!.lo}..${log!.hi}), ${servers!.n} servers, ${pending!.n} waiting: ${exact ? 'exact' : 'NOT EXACT'}`);
    if (!exact) process.exitCode = 1;
  } finally {
    for (const service of services) await service.stop();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

ensureWrk();
console.log(`# bench:writes, ${machine()}${MAIN === undefined ? '' : `, build ${MAIN}`}`);
for (const backend of BACKENDS) await benchBackend(backend);
