// Starts the built service (dist/main.js) as `npm start` would, on a free loopback port,
// for the measuring scripts: they need its process (RSS, signals), not only its URL.
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { assertBuildIsCurrent } from './build-stamp.js';

const MAIN = resolve(import.meta.dirname, '../../dist/main.js');
assertBuildIsCurrent();
const START_TIMEOUT_MS = 30_000;

export interface ServiceProcess {
  readonly url: string;
  readonly pid: number;
  /** SIGTERM and wait: resolves to the exit code. */
  stop(): Promise<number | null>;
}

export interface StartOptions {
  /** The logs go there instead of to a pipe this process reads, so that a busy load generator
   * in this process cannot hold the service up on a full pipe (bench:auth). */
  readonly logFile?: string;
  /** Node's own options, e.g. --cpu-prof (which NODE_OPTIONS does not take). */
  readonly execArgv?: readonly string[];
}

/** Resolves once `workers` processes (WORKERS) have said they listen. `main`: another build's
 * entry point (bench:compare). */
export function startService(env: Record<string, string>, workers = 1, main = MAIN, { logFile, execArgv = [] }: StartOptions = {}): Promise<ServiceProcess> {
  const child: ChildProcess = spawn(process.execPath, [...execArgv, main], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    // The logs are read, as a log shipper would, and dropped once the start is seen (or go to
    // logFile): the service pays for writing them as in production.
    stdio: ['ignore', logFile === undefined ? 'pipe' : openSync(logFile, 'a'), 'inherit'],
  });
  return new Promise((done, fail) => {
    let output = '';
    let started = false;
    const timer = setTimeout(() => fail(new Error(`the service did not start in ${START_TIMEOUT_MS} ms:\n${output}`)), START_TIMEOUT_MS);
    const seen = (chunk: string): void => {
      if (started) return;
      output += chunk;
      const matches = [...output.matchAll(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/g)];
      const url = matches[0]?.[1];
      if (url === undefined || matches.length < workers) return;
      started = true;
      clearTimeout(timer);
      clearInterval(poll);
      const exited = new Promise<number | null>((ended) => child.once('exit', (code) => ended(code)));
      done({
        url,
        pid: child.pid!,
        stop: () => {
          child.kill('SIGTERM');
          return exited;
        },
      });
    };
    if (logFile === undefined) child.stdout!.setEncoding('utf8').on('data', seen);
    const poll = logFile === undefined ? undefined : setInterval(() => seen(readFileSync(logFile, 'utf8').slice(output.length)), 100);
    child.once('exit', (code) => {
      clearTimeout(timer);
      clearInterval(poll);
      if (!started) fail(new Error(`the service exited with ${code} before listening:\n${output}`));
    });
  });
}

/** Resident memory of a process in MiB (Linux /proc). */
export function residentMegabytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** CPU time a process has used so far, user and system, in milliseconds (Linux /proc). */
export function cpuMilliseconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime, in clock ticks of 10 ms (USER_HZ is 100 on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** CPU time all threads of a process have used so far (the JavaScript thread, V8's garbage
 * collector and compiler threads, libuv's pool), in nanoseconds: /proc's schedstat counts it
 * to the nanosecond, where /proc/<pid>/stat counts 10 ms ticks. Threads that ended are not
 * counted: compare it over spans in which a service's threads stay the same. */
export function cpuNanoseconds(pid: number): number {
  let total = 0;
  for (const thread of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${thread}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return total;
}

/** CPU time the main thread of a process (the one JavaScript runs on) has used so far, in
 * nanoseconds. A server whose JavaScript runs on one thread cannot answer more requests a
 * second than a second divided by this time per request. */
export function mainThreadNanoseconds(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]);
}
