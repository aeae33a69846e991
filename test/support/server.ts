// Starts the real service on a free loopback port with a fresh database (on the backend
// TEST_DATABASE names; SQLite in a temporary folder by default), and talks to it over HTTP.
// By default the app is built and listens in the test's own process (a start costs a few
// milliseconds, not a process); `{ process: true }` runs the compiled `dist/main.js` as
// `npm start` does, for what only a process shows: a crash, SIGKILL, signals, WORKERS,
// another user, start-up failures, its stdout and stderr. Every response is checked against
// the OpenAPI document the server serves, so that the document stays true.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { perSuite } from './per-suite.js';
import { startInProcess, type InProcessOptions, type RunningService } from './in-process-server.js';
import { checkerFor, type ObservedResponse, type OpenApiResponseChecker } from './openapi-response-checker.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';
import { runServiceToExit, startService, type RunAs } from '../../scripts/support/service-process.js';

export type { RunAs } from '../../scripts/support/service-process.js';
/** The harness's own request for the document: its log lines are not the test's. */
const HARNESS_REQUEST_ID = 'openapi-response-checker';
const HARNESS_LOG_LINE = `"reqId":"${HARNESS_REQUEST_ID}"`;

/**
 * Every request of the harness goes on a connection of its own. Node's fetch (undici) keeps an
 * idle connection for the server's `Keep-Alive: timeout` hint minus 2 s and retires it with a
 * timer, which a stalled test process (a long synchronous stretch, a loaded machine) cannot run
 * in time: its next request then went out on a connection the server had closed after its
 * keep-alive timeout, and failed with "other side closed" (test/harness-connections.test.ts).
 * The suite tests the API, not connection reuse (test/process/stop-and-workers.test.ts does
 * that with an agent of its own), so it never reuses one.
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
  /** Run the service as this user (the tests run as root; see support/root.ts); needs `process`. */
  user?: RunAs;
  /** Run `dist/main.js` in a process of its own instead of the app in this process. */
  process?: boolean;
  /** Options of the app that are no setting (AppOptions); in this process only. */
  app?: InProcessOptions;
}

export interface TestServer {
  readonly url: string;
  /** The service's process (with WORKERS, the primary; in process, this one). */
  readonly pid: number;
  readonly dataDir: string;
  readonly database: TestDatabase;
  /** The SQLite file ('' on other backends). */
  readonly databaseFile: string;
  /** Everything the database holds, as text (file bytes for SQLite, rows otherwise). */
  dump(): Promise<string>;
  /** Every row of every table, as text (TestDatabase.rows). */
  rows(): Promise<string>;
  /** Everything the process wrote to stdout and stderr so far (in process: its log lines). */
  logs(): string;
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<Reply<T>>;
  /** Throws if a response disagrees with the server's OpenAPI document (request() does this itself). */
  checkResponse(method: string, path: string, response: ObservedResponse): void;
  /** SIGTERM and wait for exit; resolves to the exit code (in process: the same stop, and the
   * code the process would have exited with). */
  stop(): Promise<number | null>;
  /** SIGKILL: no chance to flush anything. Needs `process`. */
  kill(): Promise<void>;
  /** Removes the data folder and drops the database it created (after stop). */
  cleanup(): Promise<void>;
}

async function startRunning(options: StartOptions, env: Record<string, string>): Promise<RunningService> {
  if (options.process === true && options.app !== undefined) throw new Error('app options are for the app in this process: a process of its own gets its environment only');
  if (options.process === true) return startService(env, 1, undefined, { keepOutput: true, ...(options.user === undefined ? {} : { user: options.user }) });
  if (options.user !== undefined) throw new Error('running as another user needs a process of its own: start the server with { process: true }');
  return startInProcess(env, options.app);
}

export async function startServer(options: StartOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'config-api-test-'));
  const database = options.database ?? (await createTestDatabase(dataDir));
  const env = {
    DATABASE_URL: database.url,
    SECRET_KEY_FILE: join(dataDir, 'secret.key'),
    TOKEN_KEY_FILE: join(dataDir, 'token.key'),
    ...options.env,
  };
  let running: RunningService | undefined;
  let checker: OpenApiResponseChecker;
  try {
    running = await startRunning(options, env);
    const document = await fetch(`${running.url}/en/api/openApi`, { headers: { 'x-request-id': HARNESS_REQUEST_ID, ...OWN_CONNECTION } });
    checker = checkerFor(await document.text());
  } catch (error) {
    if (options.process === true) await running?.kill();
    else await running?.stop();
    if (options.database === undefined) await database.drop();
    throw error;
  }
  const { url } = running;
  const service = running;

  return {
    url,
    pid: service.pid,
    dataDir,
    database,
    databaseFile: database.file ?? '',
    dump: () => database.dump(),
    rows: () => database.rows(),
    logs: () => {
      const output = service.output();
      return output.includes(HARNESS_LOG_LINE) ? output.split('\n').filter((line) => !line.includes(HARNESS_LOG_LINE)).join('\n') : output;
    },
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
    stop: () => service.stop(),
    kill: () => service.kill(),
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
  return perSuite('server', () => startServer(options), async (server) => {
    await server.stop();
    await server.cleanup();
  });
}

/**
 * Runs the service to its end on SQLite in `dataDir`, for a start that must fail: its
 * status and its whole stdout and stderr (the harness above may see an exit before the
 * last output).
 */
export function runToExit(dataDir: string, env: Record<string, string>, user?: RunAs): { status: number | null; stdout: string; stderr: string } {
  return runServiceToExit(
    {
      DATABASE_URL: `sqlite:${join(dataDir, 'config.db')}`,
      SECRET_KEY_FILE: join(dataDir, 'secret.key'),
      TOKEN_KEY_FILE: join(dataDir, 'token.key'),
      ...env,
    },
    user,
  );
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
