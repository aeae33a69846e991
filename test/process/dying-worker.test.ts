// WORKERS=2 under load, and a worker killed with kill -9 again and again: every connection
// must be answered or closed, never left hanging (with node:cluster's round robin, the
// primary kept a connection it had handed to a worker that died before taking it, open and
// unanswered: see run-primary.ts). Every request uses a new connection, as the clients that
// met the fault did, so that many are opened around each kill. Every acknowledged write
// must be stored, and the worker restarted each time.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertAllStored } from '../support/entries.js';
import { logLines, waitForLogs, type LogLine } from '../support/log-lines.js';
import { postRequest, rawExchange, type RawResult } from '../support/raw-http.js';
import { startServer } from '../support/server.js';

const CLIENTS = 12;
const KILLS = 4;
/** Far beyond any answer on a busy machine: a connection still open after it was left hanging. */
const HANGING_MS = 10_000;

function listening(lines: LogLine[]): LogLine[] {
  return lines.filter((line) => /^Server listening at/.test(String(line.msg)));
}

function livePids(lines: LogLine[]): number[] {
  const died = new Set(lines.filter((line) => line.msg === 'worker died; restarting it').map((line) => line.workerPid));
  return listening(lines)
    .map((line) => line.pid!)
    .filter((pid) => !died.has(pid));
}

test('WORKERS=2, workers killed with kill -9 under load: no connection is left hanging, every acknowledged write is kept', { timeout: 180_000 }, async (t) => {
  const server = await startServer({ env: { WORKERS: '2' }, process: true });
  // Out here so that a failure stops the load too: its clients looped for ever against the
  // stopped service, and the file never ended (seen when a replacement was slow to listen).
  let loading = true;
  try {
    await waitForLogs(server.logs, (lines) => listening(lines).length >= 2);
    const seed = await server.request('POST', '/en/api/config/tags', { body: { name: 'seed' } });
    assert.equal(seed.status, 201);
    const read = `GET /en/api/config/tags/${seed.body.id} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`;

    const acknowledged = new Map<number, Record<string, unknown>>();
    const outcomes = new Map<string, number>();
    let sent = 0;
    const client = async (): Promise<void> => {
      while (loading) {
        const n = sent++;
        const body = { name: `load-${n}` };
        const write = n % 3 === 0;
        const result: RawResult = await rawExchange(server.url, write ? postRequest('/en/api/config/tags', body, true) : read, HANGING_MS).result;
        const key = result.outcome === 'answered' ? `answered ${result.status}` : result.outcome;
        outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
        if (write && result.status === 201) acknowledged.set(JSON.parse(result.body!).id, body);
      }
    };
    const clients = Array.from({ length: CLIENTS }, client);

    for (let kill = 0; kill < KILLS; kill++) {
      const before = logLines(server.logs());
      const live = livePids(before);
      assert.equal(live.length, 2, 'two workers serve before each kill');
      process.kill(live[kill % 2]!, 'SIGKILL');
      // The replacement listens; then the load runs on two workers again for a moment.
      await waitForLogs(server.logs, (lines) => listening(lines).length > listening(before).length, 30_000);
      await new Promise((done) => setTimeout(done, 300));
    }
    loading = false;
    await Promise.all(clients);

    t.diagnostic(JSON.stringify(Object.fromEntries(outcomes)));
    assert.equal(outcomes.get('hanging') ?? 0, 0, 'no connection left unanswered and open');
    for (const key of outcomes.keys()) assert.ok(/^answered 20[01]$|^reset$|^closed$/.test(key), `unexpected outcome ${key}`);
    assert.ok((outcomes.get('answered 201') ?? 0) > 0 && (outcomes.get('answered 200') ?? 0) > 0, 'the load was served');
    assert.equal(logLines(server.logs()).filter((line) => line.msg === 'worker died; restarting it').length, KILLS);
    await assertAllStored(server, 'tags', acknowledged);
    assert.equal(await server.stop(), 0);
  } finally {
    loading = false;
    await server.stop();
    await server.cleanup();
  }
});
