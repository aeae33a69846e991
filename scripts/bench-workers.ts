// `npm run bench:workers`: what WORKERS=2 gains over WORKERS=1 on this machine, with
// wrk on loopback (scripts/support/wrk.ts) against GET by id and POST (SQLite by default, FULL sync).
// BENCH_SECONDS (default 10) per scenario, BENCH_CONNECTIONS (default 32),
// BENCH_WORKERS (default "1,2"). Prints a table; exits non-zero if any request failed.
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { startService } from './support/service-process.js';
import { ensureWrk, runWrk, type RequestTemplate } from './support/wrk.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const WORKER_COUNTS = (process.env.BENCH_WORKERS ?? '1,2').split(',').map(Number);
const SEED_TAGS = 1000;

interface Measure {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  /** Answers outside 2xx and 3xx, and socket errors. */
  failed: number;
}

async function seed(url: string, count: number, run: string): Promise<number[]> {
  const ids: number[] = [];
  for (let start = 0; start < count; start += 16) {
    const batch = Array.from({ length: Math.min(16, count - start) }, (_, i) =>
      fetch(`${url}/en/api/config/tags`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: `seed-${run}-${start + i}` }),
      }).then(async (reply) => {
        if (reply.status !== 201) throw new Error(`seeding answered ${reply.status}: ${await reply.text()}`);
        return ((await reply.json()) as { id: number }).id;
      }),
    );
    ids.push(...(await Promise.all(batch)));
  }
  return ids;
}

async function load(url: string, seconds: number, request: RequestTemplate): Promise<Measure> {
  const result = await runWrk(url, request, seconds, CONNECTIONS);
  return { requestsPerSecond: Math.round(result.requestsPerSecond), p50: result.p50Ms, p99: result.p99Ms, failed: result.badStatus + result.socketErrors };
}

async function measure(workers: number): Promise<Record<string, Measure>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'config-api-bench-workers-'));
  const service = await startService(
    {
      WORKERS: String(workers),
      DATABASE_URL: process.env.BENCH_DATABASE_URL ?? `sqlite:${join(dataDir, 'config.db')}`,
      SECRET_KEY_FILE: join(dataDir, 'secret.key'),
      TOKEN_KEY_FILE: join(dataDir, 'token.key'),
    },
    workers,
  );
  try {
    // Names unique to the run: a BENCH_DATABASE_URL database is reused from run to run.
    const run = `${workers}-${Date.now().toString(36)}`;
    const ids = await seed(service.url, SEED_TAGS, run);
    // The seeded tags' ids follow one another (one run seeds them all).
    const byId: RequestTemplate = { method: 'GET', path: `/en/api/config/tags/{{random(${Math.min(...ids)}, ${Math.max(...ids)})}}` };
    const create: RequestTemplate = { method: 'POST', path: '/en/api/config/tags', body: `{"name":"bench-${run}-{{n}}","color":"#0a0b0c"}` };
    await load(service.url, 2, byId); // warm-up: JIT, caches, connections
    return { 'GET by id': await load(service.url, SECONDS, byId), POST: await load(service.url, SECONDS, create) };
  } finally {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  ensureWrk();
  const results = new Map<number, Record<string, Measure>>();
  for (const workers of WORKER_COUNTS) {
    process.stdout.write(`measuring WORKERS=${workers} …\n`);
    results.set(workers, await measure(workers));
  }
  const base = results.get(WORKER_COUNTS[0]!)!;
  process.stdout.write(
    `\n${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ` +
      `${new Date().toISOString().slice(0, 10)}; ${CONNECTIONS} connections, ${SECONDS} s per scenario, ` +
      `${process.env.BENCH_DATABASE_URL === undefined ? 'SQLite (synchronous FULL)' : 'BENCH_DATABASE_URL'}\n\n`,
  );
  process.stdout.write('| scenario | WORKERS | req/s | p50 ms | p99 ms | failed | vs WORKERS=' + WORKER_COUNTS[0] + ' |\n|---|---|---|---|---|---|---|\n');
  let failed = 0;
  for (const scenario of Object.keys(base)) {
    for (const [workers, measures] of results) {
      const m = measures[scenario]!;
      failed += m.failed;
      const gain = m.requestsPerSecond / base[scenario]!.requestsPerSecond;
      process.stdout.write(`| ${scenario} | ${workers} | ${m.requestsPerSecond} | ${m.p50} | ${m.p99} | ${m.failed} | ×${gain.toFixed(2)} |\n`);
    }
  }
  process.exitCode = failed > 0 ? 1 : 0;
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
