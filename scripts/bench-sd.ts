// `npm run bench:sd`: the monitoring integrations (contract section 17) at fleet scale:
// GET /en/api/sd/prometheus and GET /en/api/inventory/ansible over every live monitored
// server, at 100,000 and 1,000,000 servers (BENCH_SD_SIZES, comma-separated), on SQLite (or
// BENCH_DATABASE=postgres), seeded as `npm run bench` seeds them: 1,000 clients, 100 tags, one
// tag per server, one server in 20 not monitored. Each answer is read to its end; the figures
// are the median of ROUNDS requests one after another, the time to the first byte, the
// answer's size, and the service's resident memory at its highest while answering (sampled
// from /proc every 10 ms). The targets: under a second at 100,000 servers, resident memory
// within the service's 200 MB.
//
// The configuration export (contract section 18, GET /en/api/export, JSON and YAML) is measured
// the same way, over every live server with its tags, client and environment by name; its row
// adds servers a second (live servers over the median time). Its targets: at least 50,000
// servers a second at a million servers, resident memory under 200 MB.
//
// The floor, in the same run: the bare SELECT of the columns the answers read (tags as their
// aggregate) over the same servers, every row read as an object and the whole turned into JSON
// text with JSON.stringify, in this process, with no HTTP. The table gives the answers' time
// and CPU over the floor's: what the service adds to reading the rows and writing them out.
import { mkdtempSync, rmSync } from 'node:fs';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchBackend, createBenchDatabase, type BenchDatabase } from './support/bench-database.js';
import { cpuMilliseconds, residentMegabytes, startService } from './support/service-process.js';

const SIZES = (process.env.BENCH_SD_SIZES ?? '100000,1000000').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ALL_PATHS = { prometheus: '/en/api/sd/prometheus', ansible: '/en/api/inventory/ansible', export: '/en/api/export', 'export yaml': '/en/api/export?format=yaml' } as const;
// BENCH_SD_ANSWERS=export,prometheus: only those answers (all four by default).
const PATHS = Object.fromEntries(
  Object.entries(ALL_PATHS).filter(([name]) => (process.env.BENCH_SD_ANSWERS ?? Object.keys(ALL_PATHS).join(',')).split(',').includes(name)),
);

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

interface Figure {
  total: number;
  firstByte: number;
  bytes: number;
}

async function timed(url: string): Promise<Figure> {
  const started = performance.now();
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
  let firstByte = 0;
  let bytes = 0;
  for await (const chunk of response.body!) {
    if (bytes === 0) firstByte = performance.now() - started;
    bytes += (chunk as Uint8Array).byteLength;
  }
  return { total: performance.now() - started, firstByte, bytes };
}

// The servers both answers show (live, monitored), the columns they read, in id order.
const FLOOR_SQL = `select id, ip, port, hostname, id_client, id_environment, ssl, is_proxy, is_vip,
  (select string_agg_or_group_concat from server_tags l where l.id_server = servers.id) as tags
  from servers where is_deleted = 0 and is_monitored = 1 order by id`;

/** One run of the floor: wall and CPU milliseconds of this process, and the text's size. */
async function floorOnce(database: BenchDatabase): Promise<Figure & { cpu: number }> {
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  let text: string;
  if (database.file !== undefined) {
    const db = new SqliteDatabase(database.file, { readonly: true });
    try {
      text = JSON.stringify(db.prepare(FLOOR_SQL.replace('string_agg_or_group_concat', 'group_concat(l.id_tag)')).all());
    } finally {
      db.close();
    }
  } else {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      text = JSON.stringify((await client.query(FLOOR_SQL.replace('string_agg_or_group_concat', "string_agg(cast(l.id_tag as text), ',')"))).rows);
    } finally {
      await client.end();
    }
  }
  const total = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  return { total, firstByte: total, bytes: Buffer.byteLength(text), cpu: (cpu.user + cpu.system) / 1000 };
}

const load = (): string => loadavg().map((value) => value.toFixed(1)).join(' ');
const spread = (values: readonly number[]): string => `${Math.round(Math.min(...values))}-${Math.round(Math.max(...values))}`;

async function main(): Promise<void> {
  const loadAtStart = load();
  const backend = benchBackend();
  const rows: string[] = [];
  for (const size of SIZES) {
    const dir = mkdtempSync(join(tmpdir(), 'config-api-bench-sd-'));
    const database = await createBenchDatabase(backend, dir);
    try {
      const env = { DATABASE_URL: database.url, SECRET_KEY_FILE: join(dir, 'secret.key'), TOKEN_KEY_FILE: join(dir, 'token.key') };
      // The first start makes the schema; the seed fills it; the second start serves it.
      await (await startService(env)).stop();
      const seeded = Date.now();
      await database.seed(size);
      console.log(`${size} servers seeded (${backend}) in ${((Date.now() - seeded) / 1000).toFixed(1)} s`);
      const service = await startService(env);
      try {
        const idle = residentMegabytes(service.pid);
        await floorOnce(database); // warm-up: page cache
        const floors: (Figure & { cpu: number })[] = [];
        for (let round = 0; round < ROUNDS; round++) floors.push(await floorOnce(database));
        const floorMs = median(floors.map((figure) => figure.total));
        const floorCpu = median(floors.map((figure) => figure.cpu));
        rows.push(`| ${size.toLocaleString('en')} | floor: SELECT + JSON.stringify | ${Math.round(floorMs)} (${spread(floors.map((figure) => figure.total))}) | | ${Math.round(floorCpu)} (this process) | ${(floors[0]!.bytes / 1e6).toFixed(1)} | | |`);
        console.log(rows[rows.length - 1]);
        for (const [name, path] of Object.entries(PATHS)) {
          await timed(`${service.url}${path}`); // warm-up: page cache, JIT, statements
          let peak = residentMegabytes(service.pid);
          const sampler = setInterval(() => (peak = Math.max(peak, residentMegabytes(service.pid))), 10);
          const figures: Figure[] = [];
          // CPU time of the service per answer: steadier than wall time on a shared machine.
          const cpuBefore = cpuMilliseconds(service.pid);
          for (let round = 0; round < ROUNDS; round++) figures.push(await timed(`${service.url}${path}`));
          const cpu = (cpuMilliseconds(service.pid) - cpuBefore) / ROUNDS;
          clearInterval(sampler);
          const total = median(figures.map((figure) => figure.total));
          rows.push(
            `| ${size.toLocaleString('en')} | ${name} | ${Math.round(total)} (${spread(figures.map((figure) => figure.total))}) | ${Math.round(median(figures.map((figure) => figure.firstByte)))} | ${Math.round(cpu)} | ${(figures[0]!.bytes / 1e6).toFixed(1)} | ${Math.round(idle)} -> ${Math.round(peak)} | ${(total / floorMs).toFixed(1)}x, CPU ${(cpu / floorCpu).toFixed(1)}x |`,
          );
          console.log(rows[rows.length - 1]);
          if (name.startsWith('export')) {
            rows.push(`| ${size.toLocaleString('en')} | ${name}: servers a second | ${Math.round(size / (total / 1000)).toLocaleString('en')} | | | | | |`);
            console.log(rows[rows.length - 1]);
          }
        }
      } finally {
        await service.stop();
      }
    } finally {
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  console.log(`\n| servers | answer | ms (median of ${ROUNDS}, min-max) | first byte ms | service CPU ms | MB | resident MB idle -> peak | over the floor |\n|---:|---|---:|---:|---:|---:|---|---|`);
  for (const row of rows) console.log(row);
  console.log(`\n${new Date().toISOString()}, Node ${process.version}, ${backend}; 1 server in 20 not monitored; ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}; load average at the start ${loadAtStart}, at the end ${load()}`);
}

await main();
