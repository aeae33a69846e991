// `npm run bench:sd`: the monitoring integrations (contract section 17) at fleet scale:
// GET /en/api/sd/prometheus and GET /en/api/inventory/ansible over every live monitored
// server, at 100,000 and 1,000,000 servers (BENCH_SD_SIZES, comma-separated), on SQLite (or
// BENCH_DATABASE=postgres), seeded as `npm run bench` seeds them: 1,000 clients, 100 tags, one
// tag per server, one server in 20 not monitored. Each answer is read to its end; the figures
// are the median of ROUNDS requests one after another, the time to the first byte, the
// answer's size, and the service's resident memory at its highest while answering (sampled
// from /proc every 10 ms). The targets: under a second at 100,000 servers, resident memory
// within the service's 200 MB.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchBackend, createBenchDatabase } from './support/bench-database.js';
import { cpuMilliseconds, residentMegabytes, startService } from './support/service-process.js';

const SIZES = (process.env.BENCH_SD_SIZES ?? '100000,1000000').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PATHS = { prometheus: '/en/api/sd/prometheus', ansible: '/en/api/inventory/ansible' } as const;

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

async function main(): Promise<void> {
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
            `| ${size.toLocaleString('en')} | ${name} | ${Math.round(total)} | ${Math.round(median(figures.map((figure) => figure.firstByte)))} | ${Math.round(cpu)} | ${(figures[0]!.bytes / 1e6).toFixed(1)} | ${Math.round(idle)} -> ${Math.round(peak)} |`,
          );
          console.log(rows[rows.length - 1]);
        }
      } finally {
        await service.stop();
      }
    } finally {
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  console.log(`\n| servers | answer | ms (median of ${ROUNDS}) | first byte ms | service CPU ms | MB | resident MB idle -> peak |\n|---:|---|---:|---:|---:|---:|---|`);
  for (const row of rows) console.log(row);
  console.log(`\n${new Date().toISOString()}, Node ${process.version}, ${backend}; 1 server in 20 not monitored; load average ${loadavg().map((value) => value.toFixed(1)).join(' ')}`);
}

await main();
