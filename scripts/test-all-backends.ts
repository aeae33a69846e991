// `npm test`: runs the black-box suite once per database backend. SQLite always runs;
// PostgreSQL and MariaDB run where they answer (TEST_POSTGRES_URL / TEST_MARIADB_URL, else
// this machine's loopback servers). TEST_BACKENDS=sqlite,postgres,mariadb demands those
// backends: one that cannot be reached is then a failure, never a skip.
// A file whose opening comment says `@backend-independent` (it never reaches a database, or
// what it asserts does not depend on one) runs once, on the first backend. Every (backend,
// file) pair is a job of one pool (scripts/support/test-pool.ts): TEST_CONCURRENCY jobs at a
// time, whatever their backend, the slowest first, one Chromium file at a time. A file waits
// mostly on sockets, timers and the database, and shares no port, file, database name or
// environment with another (each has its own process, folders and databases).
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { MARIADB_ADMIN_URL, POSTGRES_ADMIN_URL, type Backend } from '../test/support/test-database.js';
import { lastTimes, runPool, saveTimes, type Job, type JobResult } from './support/test-pool.js';

const ALL: Backend[] = ['sqlite', 'postgres', 'mariadb'];
const PROBE_TIMEOUT_MS = 3000;
const MARKER = '@backend-independent';
/** Files run at once, all backends together. As many as the cores: more (4 on two cores)
 * starved the processes some files start (WORKERS=2 took over 30 s to listen). */
const CONCURRENCY = Number(process.env.TEST_CONCURRENCY) || availableParallelism();
const SLOWEST_SHOWN = 12;
/** A file that drives Chromium (the documentation page, the console). */
const BROWSER = /from 'playwright-core'|support\/console-browser\.js'/;

/** Whether the file says, in its opening comment, that it runs once for all backends. */
function backendIndependent(text: string): boolean {
  return text.slice(0, 2000).includes(MARKER);
}

async function reachable(backend: Backend): Promise<string | undefined> {
  try {
    if (backend === 'postgres') {
      const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: PROBE_TIMEOUT_MS });
      await client.connect();
      await client.end();
    } else if (backend === 'mariadb') {
      const connection = await mysql.createConnection({ uri: MARIADB_ADMIN_URL, connectTimeout: PROBE_TIMEOUT_MS });
      await connection.end();
    }
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

interface BackendResult {
  backend: Backend;
  passed: number;
  failed: number;
  skipped: number;
  note?: string;
}

async function main(): Promise<void> {
  const demanded = process.env.TEST_BACKENDS?.split(',').map((name) => name.trim()).filter(Boolean);
  for (const name of demanded ?? []) {
    if (!ALL.includes(name as Backend)) throw new Error(`TEST_BACKENDS: unknown backend "${name}"`);
  }
  // test/process/ holds the files that start the service as a process of their own (a crash,
  // signals, WORKERS, a full disk, read-only files, start-up failures); test/ builds it in process.
  // TEST_FILES=test/a.test.ts,test/b.test.ts runs only those (while working on them).
  const only = process.env.TEST_FILES?.split(',').map((name) => name.trim()).filter(Boolean);
  const files = ['test', join('test', 'process')]
    .flatMap((folder) =>
      readdirSync(folder)
        .filter((name) => name.endsWith('.test.ts'))
        .sort()
        .map((name) => join(folder, name)),
    )
    .filter((file) => only === undefined || only.includes(file));
  const texts = new Map(files.map((file) => [file, readFileSync(file, 'utf8')]));
  const independent = new Set(files.filter((file) => backendIndependent(texts.get(file)!)));

  const unreachable: BackendResult[] = [];
  const backends: Backend[] = [];
  for (const backend of (demanded as Backend[] | undefined) ?? ALL) {
    const problem = await reachable(backend);
    if (problem === undefined) backends.push(backend);
    else if (demanded !== undefined) unreachable.push({ backend, passed: 0, failed: 1, skipped: 0, note: `unreachable: ${problem}` });
    else process.stdout.write(`\n==== ${backend}: not run (unreachable: ${problem}); set TEST_BACKENDS to require it ====\n`);
  }

  // Slowest first: each job's time on its backend's last run, else the file's on another backend.
  const times = new Map(backends.map((backend) => [backend, lastTimes(backend)]));
  const anyTime = (file: string): number | undefined => [...times.values()].map((own) => own.get(file)).find((seconds) => seconds !== undefined);
  const jobs: Job[] = backends.flatMap((backend, index) =>
    // The backend-independent files go with the first backend that runs.
    (index === 0 ? files : files.filter((file) => !independent.has(file))).map((file) => ({
      backend,
      file,
      expected: times.get(backend)!.get(file) ?? anyTime(file) ?? Number.POSITIVE_INFINITY,
      browser: BROWSER.test(texts.get(file)!),
    })),
  );
  process.stdout.write(`running ${jobs.length} files on ${backends.join(', ') || 'no backend'}, ${CONCURRENCY} at a time (one Chromium file at a time); ${independent.size} backend-independent files once\n`);
  const started = performance.now();
  const results: JobResult[] = await runPool(jobs, CONCURRENCY);
  const seconds = Math.round((performance.now() - started) / 1000);
  if (results.length > 0) saveTimes(results);

  process.stdout.write('\n---- slowest files ----\n');
  for (const result of [...results].sort((a, b) => b.seconds - a.seconds).slice(0, SLOWEST_SHOWN)) {
    process.stdout.write(`${result.seconds.toFixed(1).padStart(7)} s  ${result.job.backend.padEnd(8)} ${result.job.file}\n`);
  }
  const totals: BackendResult[] = backends.map((backend) => {
    const own = results.filter((result) => result.job.backend === backend);
    // A file that ended badly without a failed test (a crash, a hook that threw) is one failure.
    const failed = own.reduce((sum, r) => sum + r.failed + (r.exitCode !== 0 && r.failed === 0 ? 1 : 0), 0);
    const broken = own.filter((r) => r.exitCode !== 0).map((r) => r.job.file);
    return {
      backend,
      passed: own.reduce((sum, r) => sum + r.passed, 0),
      failed,
      skipped: own.reduce((sum, r) => sum + r.skipped, 0),
      ...(broken.length === 0 ? {} : { note: `failed: ${broken.join(', ')}` }),
    };
  });
  const all = [...totals, ...unreachable];
  process.stdout.write('\n| backend | passed | failed | skipped | note |\n|---|---|---|---|---|\n');
  for (const r of all) process.stdout.write(`| ${r.backend} | ${r.passed} | ${r.failed} | ${r.skipped} | ${r.note ?? ''} |\n`);
  const passed = all.reduce((sum, r) => sum + r.passed, 0);
  const failed = all.reduce((sum, r) => sum + r.failed, 0);
  // The last line is the plain 'N passed, N failed' that CI reads; the time goes before it.
  process.stdout.write(`\nin ${seconds} s\nbackends: ${passed} passed, ${failed} failed\n`);
  process.exitCode = failed > 0 ? 1 : 0;
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
