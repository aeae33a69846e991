// Starts the real service (the compiled `dist/main.js`, as `npm start` runs it) on a free
// port with a fresh database (on the backend TEST_DATABASE names; SQLite in a temporary
// folder by default), and talks to it over HTTP. Every response is checked against the
// OpenAPI document the server serves, so that the document stays true.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before } from 'node:test';
import { checkerFor, type ObservedResponse, type OpenApiResponseChecker } from './openapi-response-checker.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';
import { assertBuildIsCurrent } from '../../scripts/support/build-stamp.js';

const MAIN = resolve(import.meta.dirname, '../../dist/main.js');
// A test of old code passes for the wrong reason: stop at once when dist/ is stale.
assertBuildIsCurrent();
/** The harness's own request for the document: its log lines are not the test's. */
const HARNESS_REQUEST_ID = 'openapi-response-checker';
const HARNESS_LOG_LINE = `"reqId":"${HARNESS_REQUEST_ID}"`;
// WORKERS=2 on MariaDB, with the machine's two cores shared with other suites, once took
// more than 15 s to migrate and start both workers: a start that slow is not what is tested.
const START_TIMEOUT_MS = 30_000;

/**
 * Every request of the harness goes on a connection of its own. Node's fetch (undici) keeps an
 * idle connection for the server's `Keep-Alive: timeout` hint minus 2 s and retires it with a
 * timer, which a stalled test process (a long synchronous stretch, a loaded machine) cannot run
 * in time: its next request then went out on a connection the server had closed after its
 * keep-alive timeout, and failed with "other side closed" (test/harness-connections.test.ts).
 * The suite tests the API, not connection reuse (test/operations.test.ts does that with an
 * agent of its own), so it never reuses one.
 */
export const OWN_CONNECTION = { connection: 'close' } as const;

/** fetch, on a connection of its own (see OWN_CONNECTION): for generated clients. */
export function fetchOnOwnConnection(input: Request | string | URL, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  request.headers.set('connection', OWN_CONNECTION.connection);
  return fetch(request);
}

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body, or undefined when it is not JSON. */
  body: T;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** Sent as is; objects are sent as JSON with Content-Type: application/json. */
  body?: unknown;
  /** Send `body` as this raw string instead of JSON-encoding it. */
  raw?: string;
  /** Skip the check against the OpenAPI document: for requests deliberately off the contract. */
  unchecked?: boolean;
}

export interface StartOptions {
  env?: Record<string, string>;
  /** Reuse a data folder (its key file; with SQLite, its database too). */
  dataDir?: string;
  /** Use this database instead of a new one (a restart, or a second instance). It is
   * then the caller's to drop. */
  database?: TestDatabase;
  /** Run the service as this user (the tests run as root; see support/root.ts). */
  user?: RunAs;
}

export interface RunAs {
  uid: number;
  gid: number;
}

export interface TestServer {
  readonly url: string;
  /** The service's process (with WORKERS, the primary). */
  readonly pid: number;
  readonly dataDir: string;
  readonly database: TestDatabase;
  /** The SQLite file ('' on other backends). */
  readonly databaseFile: string;
  /** Everything the database holds, as text (file bytes for SQLite, rows otherwise). */
  dump(): Promise<string>;
  /** Every row of every table, as text (TestDatabase.rows). */
  rows(): Promise<string>;
  /** Everything the process wrote to stdout and stderr so far. */
  logs(): string;
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<Reply<T>>;
  /** Throws if a response disagrees with the server's OpenAPI document (request() does this itself). */
  checkResponse(method: string, path: string, response: ObservedResponse): void;
  /** SIGTERM and wait for exit; resolves to the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL: no chance to flush anything. */
  kill(): Promise<void>;
  /** Removes the data folder and drops the database it created (after stop). */
  cleanup(): Promise<void>;
}

function waitForExit(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((done) => child.once('close', (code) => done(code)));
}

export async function startServer(options: StartOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'config-api-test-'));
  const database = options.database ?? (await createTestDatabase(dataDir));
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: database.url,
      SECRET_KEY_FILE: join(dataDir, 'secret.key'),
      TOKEN_KEY_FILE: join(dataDir, 'token.key'),
      LOG_LEVEL: 'info',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...options.user,
  });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));

  const listening = new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`server did not start in time:\n${output}`)), START_TIMEOUT_MS);
    const look = (): void => {
      // The loopback address it listens on: 127.0.0.1, or [::1] with HOST=::1.
      const match = /Server listening at (http:\/\/(?:127\.0\.0\.1|\[::1\]):\d+)/.exec(output);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        done(match[1]);
      }
    };
    child.stdout!.on('data', look);
    // 'close', not 'exit': it comes once stdout and stderr are read to the end.
    child.once('close', (code) => {
      clearTimeout(timer);
      fail(new Error(`server exited with ${code} before listening:\n${output}`));
    });
  });
  let url: string;
  let checker: OpenApiResponseChecker;
  try {
    url = await listening;
    const document = await fetch(`${url}/en/api/openApi`, { headers: { 'x-request-id': HARNESS_REQUEST_ID, ...OWN_CONNECTION } });
    checker = checkerFor(await document.text());
  } catch (error) {
    child.kill('SIGKILL');
    if (options.database === undefined) await database.drop();
    throw error;
  }

  return {
    url,
    pid: child.pid!,
    dataDir,
    database,
    databaseFile: database.file ?? '',
    dump: () => database.dump(),
    rows: () => database.rows(),
    logs: () => (output.includes(HARNESS_LOG_LINE) ? output.split('\n').filter((line) => !line.includes(HARNESS_LOG_LINE)).join('\n') : output),
    async request(method, path, requestOptions = {}) {
      const headers: Record<string, string> = { ...OWN_CONNECTION, ...requestOptions.headers };
      let body: string | undefined = requestOptions.raw;
      if (body === undefined && requestOptions.body !== undefined) {
        body = JSON.stringify(requestOptions.body);
        if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
      }
      const response = await fetch(`${url}${path}`, { method, headers, body });
      const text = await response.text();
      if (requestOptions.unchecked !== true) checker.check(method, path, { status: response.status, headers: response.headers, text });
      let parsed: unknown;
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      return { status: response.status, headers: response.headers, text, body: parsed as any };
    },
    checkResponse(method, path, response) {
      checker.check(method, path, response);
    },
    async stop() {
      child.kill('SIGTERM');
      return waitForExit(child);
    },
    async kill() {
      child.kill('SIGKILL');
      await waitForExit(child);
    },
    async cleanup() {
      if (options.database === undefined) await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * One server for the tests of the enclosing suite (or file): started before them, stopped
 * and cleaned up after. The returned object stands for that server once it is started.
 */
export function serverPerSuite(options: StartOptions = {}): TestServer {
  let current: TestServer | undefined;
  before(async () => {
    current = await startServer(options);
  });
  after(async () => {
    await current?.stop();
    await current?.cleanup();
  });
  return new Proxy({} as TestServer, {
    get(_target, property) {
      if (current === undefined) throw new Error('the suite server is used before it started');
      const value: unknown = Reflect.get(current, property);
      return typeof value === 'function' ? value.bind(current) : value;
    },
  });
}

/**
 * Runs the service to its end on SQLite in `dataDir`, for a start that must fail: its
 * status and its whole stdout and stderr (the harness above may see an exit before the
 * last output).
 */
export function runToExit(dataDir: string, env: Record<string, string>, user?: RunAs): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: `sqlite:${join(dataDir, 'config.db')}`,
      SECRET_KEY_FILE: join(dataDir, 'secret.key'),
      TOKEN_KEY_FILE: join(dataDir, 'token.key'),
      ...env,
    },
    encoding: 'utf8',
    timeout: 15_000,
    killSignal: 'SIGKILL',
    ...user,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** runToExit on a throw-away data folder: a start that must fail. */
export function runOnceToExit(env: Record<string, string>): { status: number | null; stdout: string; stderr: string } {
  const dir = mkdtempSync(join(tmpdir(), 'config-api-exit-'));
  try {
    return runToExit(dir, env);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
