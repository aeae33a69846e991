// @backend-independent: what is tested is the log output, not the database.
// A log reader that stops reading (a stuck collector) must cost log lines, not requests: the
// service runs in a process of its own whose stdout is a pipe that nobody reads (a FIFO this
// test holds open and never reads), with LOG_BUFFER_BYTES small. Requests must all be answered
// in time, `log_lines_dropped_total` must count what was dropped, and once the pipe is read
// again the lines flow again. Before the fix the service wrote its lines synchronously to a
// blocking pipe: its event loop stopped at the first write past the pipe's 64 KiB, and every
// request after that waited for ever.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startService, type ServiceProcess } from '../../scripts/support/service-process.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';

const REQUESTS = 2000;
const CONNECTIONS = 8;
/** Each request's own bound: the service answers in milliseconds; a stalled loop never does. */
const REQUEST_TIMEOUT_MS = 15_000;

let dataDir: string;
let database: TestDatabase;
let fifo: string;
let pipeEnd: number;
let service: ServiceProcess;

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'config-api-log-pipe-'));
  database = await createTestDatabase(dataDir);
  fifo = join(dataDir, 'stdout.fifo');
  assert.equal(spawnSync('mkfifo', [fifo]).status, 0, 'mkfifo');
  // Read and write, and never read: the pipe has a reader (so opening it to write does not
  // wait, and writes do not fail with EPIPE), but one that never takes anything. Non-blocking,
  // so that reading it later (the reader coming back) cannot hang the test.
  pipeEnd = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
  service = await startService(
    { DATABASE_URL: database.url, SECRET_KEY_FILE: join(dataDir, 'secret.key'), TOKEN_KEY_FILE: join(dataDir, 'token.key'), LOG_LEVEL: 'info', LOG_BUFFER_BYTES: '16384' },
    1,
    undefined,
    { logFile: fifo, readyWhen: 'healthz' },
  );
});

after(async () => {
  await service?.kill();
  if (pipeEnd !== undefined) closeSync(pipeEnd);
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function droppedLines(): Promise<number> {
  const text = await (await fetch(`${service.url}/metrics`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })).text();
  const line = /^log_lines_dropped_total (\d+)$/m.exec(text);
  assert.ok(line !== null, 'log_lines_dropped_total is exported');
  return Number(line[1]);
}

/** Sends `count` GETs from CONNECTIONS clients; each must be answered within its bound. */
async function load(count: number): Promise<void> {
  let sent = 0;
  const client = async (): Promise<void> => {
    while (sent < count) {
      sent += 1;
      const response = await fetch(`${service.url}/en/api/config/servers?limit=1`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
      await response.arrayBuffer();
      assert.equal(response.status, 200);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, client));
}

/** Reads what the pipe holds now, without waiting. */
function drain(): string {
  const buffer = Buffer.alloc(1 << 20);
  let text = '';
  for (;;) {
    try {
      const read = readSync(pipeEnd, buffer, 0, buffer.length, null);
      if (read === 0) return text;
      text += buffer.toString('utf8', 0, read);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return text;
      throw error;
    }
  }
}

test('with nobody reading stdout, every request is answered and the dropped lines are counted; reading again, lines flow again', { timeout: 120_000 }, async () => {
  assert.equal(await droppedLines(), 0, 'nothing dropped before the pipe fills');
  const started = performance.now();
  // A line is about 250 bytes: the pipe (64 KiB) and the buffer (16 KiB) hold a few hundred.
  await load(REQUESTS);
  const seconds = (performance.now() - started) / 1000;
  const dropped = await droppedLines();
  process.stdout.write(`# ${REQUESTS} requests with stdout unread: ${seconds.toFixed(1)} s, ${dropped} lines dropped\n`);
  assert.ok(dropped > REQUESTS / 2, `most lines dropped (${dropped} of ${REQUESTS})`);
  assert.ok(dropped < REQUESTS + 10, 'no more lines dropped than were written');
  assert.equal(service.child.exitCode, null, 'the service still runs');

  // The reader comes back: what the pipe held was whole lines, and new lines arrive.
  const held = drain();
  assert.ok(held.length > 0 && held.endsWith('\n'), 'the pipe held whole lines');
  for (const line of held.trim().split('\n')) JSON.parse(line);
  await load(20);
  await new Promise((done) => setTimeout(done, 200));
  const resumed = drain();
  assert.match(resumed, /"msg":"request completed"/, 'lines flow again once the pipe is read');
  assert.equal(await droppedLines(), dropped, 'nothing more dropped while the pipe is read');
});
