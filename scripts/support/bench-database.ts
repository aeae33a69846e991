// The database `npm run bench` runs the service on: a SQLite file (the default) or a fresh
// PostgreSQL database (BENCH_DATABASE=postgres, on the server of BENCH_POSTGRES_URL), seeded
// with the same servers, clients and tags either way, so that the two print the same table.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { countServers, seedServers } from './seed.js';
import { cpuMilliseconds } from './service-process.js';
import { FIRST_CLIENT, FLEET_CLIENTS, FLEET_TAGS } from './fleet-bench.js';

export type BenchBackend = 'sqlite' | 'postgres';

/** Starts counting the CPU time of the service's process `pid` and of the database's processes
 * serving it (the work a query costs is done there on PostgreSQL); the function it resolves to
 * gives the milliseconds they have used since. */
export async function serviceCpuMeter(pid: number, database: BenchDatabase): Promise<() => Promise<number>> {
  const before = cpuMilliseconds(pid);
  const serverCpu = await database.serverCpuMeter();
  return async () => cpuMilliseconds(pid) - before + (await serverCpu());
}

export interface BenchDatabase {
  readonly backend: BenchBackend;
  /** DATABASE_URL for the service. */
  readonly url: string;
  /** The SQLite file (the token scenarios seed it directly); undefined on PostgreSQL. */
  readonly file: string | undefined;
  /** Seeds `rows` servers into the schema the service made at its first start. */
  seed(rows: number): Promise<void>;
  countServers(): Promise<number>;
  /** Starts counting the CPU time of the database server's processes serving this database
   * (none for SQLite, which runs inside the service); the function it resolves to gives the
   * milliseconds they have used since. */
  serverCpuMeter(): Promise<() => Promise<number>>;
  drop(): Promise<void>;
}

export function benchBackend(): BenchBackend {
  const name = process.env.BENCH_DATABASE ?? 'sqlite';
  if (name !== 'sqlite' && name !== 'postgres') throw new Error(`BENCH_DATABASE=${name}: use sqlite or postgres`);
  return name;
}

export async function createBenchDatabase(backend: BenchBackend, dataDir: string): Promise<BenchDatabase> {
  if (backend === 'sqlite') {
    const file = join(dataDir, 'config.db');
    return {
      backend,
      url: `sqlite:${file}`,
      file,
      seed: async (rows) => seedServers(file, rows),
      countServers: async () => countServers(file),
      serverCpuMeter: async () => async () => 0,
      drop: async () => undefined,
    };
  }
  const admin = process.env.BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `config_api_bench_${randomBytes(4).toString('hex')}`;
  await query(admin, `create database ${name}`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    backend,
    url: url.toString(),
    file: undefined,
    seed: (rows) => seedPostgres(url.toString(), rows),
    countServers: async () => Number((await query(url.toString(), 'select count(*) as n from servers'))[0]!.n),
    // The backends of the service's pool (the server runs on this machine, as the bench does),
    // counted by process: a pooled connection that closes takes its CPU time with it, and
    // a sum over whichever backends are there would then go down.
    serverCpuMeter: async () => {
      const backendCpu = async (): Promise<Map<number, number>> => {
        const backends = await query(admin, 'select pid from pg_stat_activity where datname = $1', [name]);
        return new Map(backends.map((row) => [Number(row.pid), cpuOf(Number(row.pid))]));
      };
      const before = await backendCpu();
      return async () => {
        let used = 0;
        for (const [pid, cpu] of await backendCpu()) used += cpu - (before.get(pid) ?? 0);
        return used;
      };
    },
    drop: async () => {
      await query(admin, `drop database if exists ${name} with (force)`);
    },
  };
}

function cpuOf(pid: number): number {
  try {
    return cpuMilliseconds(pid);
  } catch {
    return 0; // ended meanwhile
  }
}

async function query(url: string, text: string, values: unknown[] = []): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** The seed of seed.ts, in SQL on the server: the same values row for row. The servers'
 * secondary indexes are dropped for the insert and made again after it (a sort each instead
 * of a million B-tree and trigram-index insertions). */
async function seedPostgres(url: string, rows: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const now = new Date().toISOString();
    const started = Date.now();
    await client.query('begin');
    const indexes = (
      await client.query(
        `select indexname, indexdef from pg_indexes i where tablename = 'servers'
           and not exists (select 1 from pg_constraint c where c.conname = i.indexname)`,
      )
    ).rows as { indexname: string; indexdef: string }[];
    for (const index of indexes) await client.query(`drop index ${index.indexname}`);
    for (let i = 0; i < FLEET_CLIENTS; i++) {
      await client.query(`insert into clients (id, libelle, logo, is_monitored, created_at, updated_at) values ($1, $2, '', 1, $3, $3)`, [FIRST_CLIENT + i, `bench-client-${i}`, now]);
    }
    await client.query(
      `insert into tags (id, name, color, background, created_at, updated_at)
       select t, 'bench-tag-' || t, '#ffffff', '#337ab7', $1, $1 from generate_series(1, $2::int) t`,
      [now, FLEET_TAGS],
    );
    // Server i (from 0) has id i + 1, as the SQLite seed gives it (its table starts empty).
    await client.query(
      `insert into servers (id, ip, port, hostname, ssl, ssh, is_proxy, is_vip, is_monitored, is_deleted, live, created_at, updated_at, id_client, id_environment)
       select i + 1, '10.' || ((i >> 16) & 255) || '.' || ((i >> 8) & 255) || '.' || (i & 255), 3306 + i % 10, 'seed-' || i, 0, 0, 0, 0,
              case when i % 20 = 0 then 0 else 1 end, 0, 1, $1,
              to_char(to_timestamp(($2::bigint - ($3::bigint - i) * 1000) / 1000.0) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
              $4::int + ((i + 1) % $5::int), 1 + ((i + 1) % 6)
       from generate_series(0, $3::int - 1) i`,
      [now, started, rows, FIRST_CLIENT, FLEET_CLIENTS],
    );
    await client.query(`insert into server_tags (id_server, id_tag) select id, 1 + (id % $1::int) from servers`, [FLEET_TAGS]);
    for (const index of indexes) await client.query(index.indexdef);
    for (const [table, count] of [['servers', rows], ['clients', FLEET_CLIENTS], ['tags', FLEET_TAGS]] as const) {
      await client.query(`update resource_counts set total = total + $1, live = live + $1 where table_name = $2`, [count, table]);
      await client.query(`select setval(pg_get_serial_sequence('${table}', 'id'), (select max(id) from ${table}))`);
    }
    await client.query('commit');
    // Statistics for the planner, as a service that has run a while has them.
    await client.query('vacuum analyze');
  } finally {
    await client.end();
  }
}
