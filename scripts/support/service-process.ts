// Starts the built service (dist/main.js) as `npm start` would, on a free loopback port, for
// the measuring scripts (they need its process: RSS, signals) and for the tests that need a
// process of its own (crash, signals, WORKERS, another user, start-up failures).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { openSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { assertBuildIsCurrent } from './build-stamp.js';
import { freePort } from './free-port.js';

const MAIN = resolve(import.meta.dirname, '../../dist/main.js');
// A run of old code passes (or measures) for the wrong reason: stop at once when dist/ is stale.
assertBuildIsCurrent();
// WORKERS=2 on MariaDB, with the machine's two cores shared with other suites, once took
// more than 15 s to migrate and start both workers, and more than 30 s with test files run
// side by side: a start that slow is not what is tested.
const START_TIMEOUT_MS = 60_000;
/** The loopback address it listens on: 127.0.0.1, or [::1] with HOST=::1. */
const LISTENING = /Server listening at (http:\/\/(?:127\.0\.0\.1|\[::1\]):\d+)/g;

export interface ServiceProcess {
  readonly url: string;
  readonly pid: number;
  readonly child: ChildProcess;
  /** What it wrote so far: stdout and stderr with `keepOutput`, else the start only. */
  output(): string;
  /** SIGTERM and wait: resolves to the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL and wait: no chance to flush anything. */
  kill(): Promise<void>;
}

export interface RunAs {
  uid: number;
  gid: number;
}

export interface StartOptions {
  /** The logs go there instead of to a pipe this process reads, so that a busy load generator
   * in this process cannot hold the service up on a full pipe (bench:auth). */
  readonly logFile?: string;
  /** Node's own options, e.g. --cpu-prof (which NODE_OPTIONS does not take). */
  readonly execArgv?: readonly string[];
  /** Keep all of stdout and stderr in memory for output() (the tests read the logs); else
   * stdout is dropped once the start is seen and stderr is this process's. */
  readonly keepOutput?: boolean;
  /** Run it as this user (the tests run as root; see test/support/root.ts). */
  readonly user?: RunAs;
  /** How to tell it is ready: its `Server listening at` line (the default), or `healthz`:
   * GET /healthz answers 200 on a port chosen here. The bench runs at LOG_LEVEL=warn too,
   * where the listening line (info) is never written. One worker only. */
  readonly readyWhen?: 'listening-line' | 'healthz';
}

/** The environment every start gets, under the caller's own. */
function serviceEnv(env: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env };
}

function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  // 'close', not 'exit': it comes once stdout and stderr are read to the end.
  return new Promise((done) => child.once('close', (code) => done(code)));
}

/** Resolves once `workers` processes (WORKERS) have said they listen. `main`: another build's
 * entry point (bench:compare). The one way the tests, the bench and the scripts start it. */
export async function startService(env: Record<string, string>, workers = 1, main = MAIN, options: StartOptions = {}): Promise<ServiceProcess> {
  if (options.readyWhen !== 'healthz') return startProcess(env, workers, main, options);
  if (workers !== 1) throw new Error('readyWhen healthz: one worker only (a cluster answers before each worker listens)');
  const port = env.PORT ?? String(await freePort());
  const service = await startProcess({ ...env, PORT: port }, 0, main, options);
  const url = `http://${env.HOST === '::1' ? '[::1]' : (env.HOST ?? '127.0.0.1')}:${port}`;
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (service.child.exitCode !== null || service.child.signalCode !== null) throw new Error(`the service exited with ${service.child.exitCode} before answering /healthz:\n${service.output()}`);
    if (await fetch(`${url}/healthz`).then(async (response) => (await response.arrayBuffer(), response.ok), () => false)) return { ...service, url };
    if (Date.now() > deadline) {
      await service.kill();
      throw new Error(`the service did not answer /healthz in ${START_TIMEOUT_MS} ms:\n${service.output()}`);
    }
    await new Promise((done) => setTimeout(done, 50));
  }
}

/** Spawns it and resolves once `workers` listening lines are seen (at once for 0: the caller
 * waits on /healthz; url is then empty). */
function startProcess(env: Record<string, string>, workers: number, main: string, { logFile, execArgv = [], keepOutput = false, user }: StartOptions): Promise<ServiceProcess> {
  const child: ChildProcess = spawn(process.execPath, [...execArgv, main], {
    env: serviceEnv(env),
    // The logs are read, as a log shipper would, and dropped once the start is seen (or go to
    // logFile): the service pays for writing them as in production.
    stdio: ['ignore', logFile === undefined ? 'pipe' : openSync(logFile, 'a'), keepOutput ? 'pipe' : 'inherit'],
    ...user,
  });
  let output = '';
  let started = false;
  if (keepOutput) child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  return new Promise((done, fail) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`the service did not start in ${START_TIMEOUT_MS} ms:\n${output}`));
    }, START_TIMEOUT_MS);
    const seen = (chunk: string): void => {
      if (started && !keepOutput) return;
      output += chunk;
      if (started) return;
      const matches = [...output.matchAll(LISTENING)];
      const url = workers === 0 ? '' : matches[0]?.[1];
      if (url === undefined || matches.length < workers) return;
      started = true;
      clearTimeout(timer);
      clearInterval(poll);
      done({
        url,
        pid: child.pid!,
        child,
        output: () => output,
        stop: () => {
          child.kill('SIGTERM');
          return exitOf(child);
        },
        kill: async () => {
          child.kill('SIGKILL');
          await exitOf(child);
        },
      });
    };
    if (logFile === undefined) child.stdout!.setEncoding('utf8').on('data', seen);
    // Waiting on /healthz (workers 0), the file is never read: it may be a FIFO (a test's pipe).
    const poll = logFile === undefined || workers === 0 ? undefined : setInterval(() => seen(readFileSync(logFile, 'utf8').slice(output.length)), 100);
    if (workers === 0) setImmediate(() => seen(''));
    child.once('close', (code) => {
      clearTimeout(timer);
      clearInterval(poll);
      if (!started) fail(new Error(`the service exited with ${code} before listening:\n${output}`));
    });
  });
}

/** Runs the service to its end, for a start that must fail: its status and its whole stdout
 * and stderr. */
export function runServiceToExit(env: Record<string, string>, user?: RunAs): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [MAIN], { env: serviceEnv(env), encoding: 'utf8', timeout: 15_000, killSignal: 'SIGKILL', ...user });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
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
