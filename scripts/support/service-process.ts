// Starts the built service (dist/main.js) as `npm start` would, on a free loopback port,
// for the measuring scripts: they need its process (RSS, signals), not only its URL.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const MAIN = resolve(import.meta.dirname, '../../dist/main.js');
const START_TIMEOUT_MS = 30_000;

export interface ServiceProcess {
  readonly url: string;
  readonly pid: number;
  /** SIGTERM and wait: resolves to the exit code. */
  stop(): Promise<number | null>;
}

/** Resolves once `workers` processes (WORKERS) have said they listen. `main`: another build's
 * entry point (bench:compare). */
export function startService(env: Record<string, string>, workers = 1, main = MAIN): Promise<ServiceProcess> {
  const child: ChildProcess = spawn(process.execPath, [main], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    // The logs are read, as a log shipper would, and dropped once the start is seen: the
    // service pays for writing them as in production.
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((done, fail) => {
    let output = '';
    let started = false;
    const timer = setTimeout(() => fail(new Error(`the service did not start in ${START_TIMEOUT_MS} ms:\n${output}`)), START_TIMEOUT_MS);
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      if (started) return;
      output += chunk;
      const matches = [...output.matchAll(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/g)];
      const url = matches[0]?.[1];
      if (url === undefined || matches.length < workers) return;
      started = true;
      clearTimeout(timer);
      const exited = new Promise<number | null>((ended) => child.once('exit', (code) => ended(code)));
      done({
        url,
        pid: child.pid!,
        stop: () => {
          child.kill('SIGTERM');
          return exited;
        },
      });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
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
