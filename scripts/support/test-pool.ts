// One pool of test-file runs for all backends: every (backend, file) pair is a job, and
// TEST_CONCURRENCY of them run at once whatever their backend, slowest first. One pool rather
// than one run per backend: backends one after another left a core idle whenever a backend's
// last long file ran alone (the run of a backend waits for its slowest file), and backends side
// by side, each with as many files as the cores, ran six files on two cores and starved the
// ones that start processes. Files that drive Chromium take one lane of their own: at most one
// runs at a time (a browser uses a core by itself; two of them starved everything else).
// Each job is `node --import tsx --test-reporter=spec <file>`: the file is the test process
// itself (no runner process between), its output is held and printed whole when it ends.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Backend } from '../../test/support/test-database.js';

export interface Job {
  backend: Backend;
  file: string;
  /** Seconds it took last time (Infinity when never timed: such files start first). */
  expected: number;
  /** It drives Chromium: one such file at a time. */
  browser: boolean;
}

export interface JobResult {
  job: Job;
  seconds: number;
  passed: number;
  failed: number;
  skipped: number;
  exitCode: number;
}

/** Each backend's file times of its last run (git-ignored), read to start the slowest first. */
export const TIMES_DIR = join('test-artifacts', 'file-times');

/** Seconds per file from a times table ("  12.3 s  test/foo.test.ts" lines). */
function parseTimes(text: string): Map<string, number> {
  const times = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^\s*([\d.]+) s {2}(\S+)$/.exec(line);
    if (match !== null) times.set(match[2]!, Number(match[1]));
  }
  return times;
}

export function lastTimes(backend: Backend): Map<string, number> {
  try {
    return parseTimes(readFileSync(join(TIMES_DIR, `${backend}.txt`), 'utf8'));
  } catch {
    return new Map();
  }
}

/** Writes each backend's times of this run, slowest first (what the next run orders by); a
 * file that did not run this time (TEST_FILES) keeps its time of before. */
export function saveTimes(results: JobResult[]): void {
  mkdirSync(TIMES_DIR, { recursive: true });
  for (const backend of new Set(results.map((result) => result.job.backend))) {
    const times = lastTimes(backend);
    for (const result of results) if (result.job.backend === backend) times.set(result.job.file, result.seconds);
    const lines = [...times]
      .sort((a, b) => b[1] - a[1])
      .map(([file, seconds]) => `${seconds.toFixed(1).padStart(7)} s  ${file}\n`);
    writeFileSync(join(TIMES_DIR, `${backend}.txt`), lines.join(''));
  }
}

function count(output: string, label: string): number {
  const match = new RegExp(`^ℹ ${label} (\\d+)$`, 'm').exec(output);
  return match?.[1] === undefined ? 0 : Number(match[1]);
}

function runJob(job: Job): Promise<JobResult> {
  const started = performance.now();
  return new Promise((done) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--test-reporter=spec', '--test-reporter-destination=stdout', job.file], {
      env: { ...process.env, TEST_DATABASE: job.backend },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.on('close', (code, signal) => {
      const seconds = (performance.now() - started) / 1000;
      const exitCode = code ?? 1;
      process.stdout.write(`\n──── ${job.backend} ${job.file} (${seconds.toFixed(1)} s${exitCode === 0 ? '' : `, exit ${code ?? signal}`}) ────\n${output}`);
      done({ job, seconds, passed: count(output, 'pass'), failed: count(output, 'fail') + count(output, 'cancelled'), skipped: count(output, 'skipped'), exitCode });
    });
  });
}

/** Runs the jobs `concurrency` at a time, slowest expected first, one browser file at a time. */
export async function runPool(jobs: Job[], concurrency: number): Promise<JobResult[]> {
  const queue = [...jobs].sort((a, b) => b.expected - a.expected || a.file.localeCompare(b.file) || a.backend.localeCompare(b.backend));
  const results: JobResult[] = [];
  let browsers = 0;
  return new Promise((finished) => {
    let running = 0;
    const next = (): void => {
      while (running < concurrency) {
        const index = queue.findIndex((job) => !job.browser || browsers === 0);
        if (index < 0) break;
        const [job] = queue.splice(index, 1) as [Job];
        running++;
        if (job.browser) browsers++;
        void runJob(job).then((result) => {
          results.push(result);
          running--;
          if (job.browser) browsers--;
          next();
        });
      }
      if (running === 0 && queue.length === 0) finished(results);
    };
    next();
  });
}
