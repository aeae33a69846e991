// `npm test`: runs the black-box suite once per database backend. SQLite always runs;
// PostgreSQL and MariaDB run where they answer (TEST_POSTGRES_URL / TEST_MARIADB_URL, else
// this machine's loopback servers). TEST_BACKENDS=sqlite,postgres,mariadb demands those
// backends: one that cannot be reached is then a failure, never a skip.
// A file whose opening comment says `@backend-independent` (it never reaches a database, or
// what it asserts does not depend on one) runs once, on the first backend. The files of a
// backend run side by side (TEST_CONCURRENCY at a time): a file
// waits mostly on sockets, timers and the database, and shares no port, file, database name
// or environment with another (each has its own process, folders and databases). The backends
// run one after another unless TEST_BACKENDS_SIDE_BY_SIDE=true.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { MARIADB_ADMIN_URL, POSTGRES_ADMIN_URL, type Backend } from '../test/support/test-database.js';

const ALL: Backend[] = ['sqlite', 'postgres', 'mariadb'];
const PROBE_TIMEOUT_MS = 3000;
const MARKER = '@backend-independent';
/** Files of one backend run at once. As many as the cores: more (4 on two cores) starved the
 * processes some files start (WORKERS=2 took over 30 s to listen). */
const CONCURRENCY = Number(process.env.TEST_CONCURRENCY) || availableParallelism();
const SLOWEST_SHOWN = 12;
/** Each backend's file times of its last run (git-ignored), read to start the slowest first. */
const TIMES_DIR = join('test-artifacts', 'file-times');
/** Backends side by side (TEST_BACKENDS_SIDE_BY_SIDE=true) is faster on a quiet machine with
 * cores to spare; on two cores, three backends of two files each starved the tests that start
 * processes of their own (WORKERS=2 took 10-15 s to listen), so they run one after another. */
const SIDE_BY_SIDE = process.env.TEST_BACKENDS_SIDE_BY_SIDE === 'true';

/** Whether the file says, in its opening comment, that it runs once for all backends. */
function backendIndependent(file: string): boolean {
  return readFileSync(file, 'utf8').slice(0, 2000).includes(MARKER);
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

interface RunResult {
  backend: Backend;
  passed: number;
  failed: number;
  skipped: number;
  exitCode: number;
  note?: string;
}

/** Seconds per file from a times table ("  12.3 s  test/foo.test.ts" lines). */
function parseTimes(text: string): Map<string, number> {
  const times = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^\s*([\d.]+) s {2}(\S+)$/.exec(line);
    if (match !== null) times.set(match[2]!, Number(match[1]));
  }
  return times;
}

function lastTimes(backend: Backend): Map<string, number> {
  try {
    return parseTimes(readFileSync(join(TIMES_DIR, `${backend}.txt`), 'utf8'));
  } catch {
    return new Map();
  }
}

/**
 * The files in the order they start: slowest first (their time on this backend's last run,
 * else on the backend that ran before it in this run), files never timed before all of them.
 * With files run a few at a time, a long file started last keeps one lane busy while the
 * others sit idle; started first, it runs beside the short ones.
 */
function slowestFirst(files: string[], times: Map<string, number>): string[] {
  const known = (file: string): number => times.get(file) ?? Number.POSITIVE_INFINITY;
  return [...files].sort((a, b) => known(b) - known(a) || a.localeCompare(b));
}

function count(output: string, label: string): number {
  const match = new RegExp(`^[ℹ#] ${label} (\\d+)$`, 'm').exec(output);
  return match?.[1] === undefined ? 0 : Number(match[1]);
}

/** One backend's run; its output is held and printed whole, since the backends run side by side. */
function runSuite(backend: Backend, files: string[], earlierTimes: Map<string, number>): Promise<RunResult> {
  const own = lastTimes(backend);
  const ordered = slowestFirst(files, own.size > 0 ? own : earlierTimes);
  const timesDir = mkdtempSync(join(tmpdir(), 'test-times-'));
  const timesFile = join(timesDir, 'times.txt');
  return new Promise((done) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join('scripts', 'support', 'run-test-files.ts'), timesFile, String(CONCURRENCY), ...ordered],
      { env: { ...process.env, TEST_DATABASE: backend }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.on('close', (code) => {
      let times = '';
      try {
        const all = readFileSync(timesFile, 'utf8');
        times = all.split('\n').slice(0, SLOWEST_SHOWN).join('\n');
        mkdirSync(TIMES_DIR, { recursive: true });
        writeFileSync(join(TIMES_DIR, `${backend}.txt`), all);
      } catch {
        // The run ended before the reporter wrote: its output says why.
      }
      rmSync(timesDir, { recursive: true, force: true });
      process.stdout.write(`\n==== test suite on ${backend} (${files.length} files) ====\n${output}\n---- slowest files on ${backend} ----\n${times}\n`);
      done({
        backend,
        passed: count(output, 'pass'),
        failed: count(output, 'fail') + count(output, 'cancelled'),
        skipped: count(output, 'skipped'),
        exitCode: code ?? 1,
      });
    });
  });
}

async function main(): Promise<void> {
  const demanded = process.env.TEST_BACKENDS?.split(',').map((name) => name.trim()).filter(Boolean);
  for (const name of demanded ?? []) {
    if (!ALL.includes(name as Backend)) throw new Error(`TEST_BACKENDS: unknown backend "${name}"`);
  }
  // test/process/ holds the files that start the service as a process of their own (a crash,
  // signals, WORKERS, a full disk, read-only files, start-up failures); test/ builds it in process.
  const files = ['test', join('test', 'process')].flatMap((folder) =>
    readdirSync(folder)
      .filter((name) => name.endsWith('.test.ts'))
      .sort()
      .map((name) => join(folder, name)),
  );
  const independent = new Set(files.filter(backendIndependent));

  const results: RunResult[] = [];
  const suites: { backend: Backend; files: string[] }[] = [];
  const started = performance.now();
  for (const backend of (demanded as Backend[] | undefined) ?? ALL) {
    const problem = await reachable(backend);
    if (problem !== undefined) {
      const note = `unreachable: ${problem}`;
      if (demanded !== undefined) results.push({ backend, passed: 0, failed: 1, skipped: 0, exitCode: 1, note });
      else process.stdout.write(`\n==== ${backend}: not run (${note}); set TEST_BACKENDS to require it ====\n`);
      continue;
    }
    suites.push({ backend, files: suites.length === 0 ? files : files.filter((file) => !independent.has(file)) });
  }
  // The backend-independent files go with the first backend that runs.
  process.stdout.write(`running ${suites.length} backend(s) ${SIDE_BY_SIDE ? 'side by side' : 'one after another'}, ${CONCURRENCY} files at a time each; ${independent.size} backend-independent files once\n`);
  if (SIDE_BY_SIDE) results.push(...(await Promise.all(suites.map((suite) => runSuite(suite.backend, suite.files, new Map())))));
  else {
    let earlier = new Map<string, number>();
    for (const suite of suites) {
      results.push(await runSuite(suite.backend, suite.files, earlier));
      earlier = lastTimes(suite.backend);
    }
  }

  process.stdout.write('\n| backend | passed | failed | skipped | note |\n|---|---|---|---|---|\n');
  for (const r of results) process.stdout.write(`| ${r.backend} | ${r.passed} | ${r.failed} | ${r.skipped} | ${r.note ?? (r.exitCode === 0 ? '' : `exit ${r.exitCode}`)} |\n`);
  const passed = results.reduce((sum, r) => sum + r.passed, 0);
  const failed = results.reduce((sum, r) => sum + r.failed + (r.exitCode !== 0 && r.failed === 0 ? 1 : 0), 0);
  // The last line is the plain 'N passed, N failed' that CI reads; the time goes before it.
  process.stdout.write(`\nin ${Math.round((performance.now() - started) / 1000)} s\nbackends: ${passed} passed, ${failed} failed\n`);
  process.exitCode = failed > 0 ? 1 : 0;
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
