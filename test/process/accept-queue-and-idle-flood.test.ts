// What clients see at the edges of the connection handling that only a process of its own
// shows, made for real on loopback:
// - SIGTERM while connections wait in the kernel's accept queue with their request sent
//   (the service is frozen with SIGSTOP while they connect): every one is answered, none is
//   reset, every acknowledged write is stored, and the service exits 0 (within the grace
//   period: past it, it exits 1);
// - the reported flood: 1,100 idle connections at the default MAX_CONNECTIONS lock nobody
//   out (with the flood's sockets in the test's event loop, an in-process service answered
//   some of them 408 before it could close them).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertAllStored } from '../support/entries.js';
import { waitForLogs } from '../support/log-lines.js';
import { postRequest, rawExchange, tally, type RawExchange, type RawResult } from '../support/raw-http.js';
import { startServer, type TestServer } from '../support/server.js';
import { until } from '../support/until.js';

const QUEUED = 200;
const GET_TAGS = 'GET /en/api/config/tags?limit=5 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';

async function listeningPids(server: TestServer, workers: number): Promise<number[]> {
  const lines = await waitForLogs(server.logs, (all) => all.filter((line) => /^Server listening at/.test(String(line.msg))).length >= workers);
  return lines.filter((line) => /^Server listening at/.test(String(line.msg))).map((line) => line.pid!);
}

describe('SIGTERM with a filled accept queue', () => {
  for (const workers of [1, 2]) {
    test(`WORKERS=${workers}: every connection whose request was sent is answered, none is reset, then exit 0`, { timeout: 60_000 }, async (t) => {
      const env: Record<string, string> = workers > 1 ? { WORKERS: String(workers) } : {};
      // Frozen with SIGSTOP and stopped with SIGTERM: a process of its own.
      const server = await startServer({ env, process: true });
      let restarted: TestServer | undefined;
      try {
        const frozen = [...new Set([server.pid, ...(await listeningPids(server, workers))])];
        for (const pid of frozen) process.kill(pid, 'SIGSTOP');
        const exchanges: RawExchange[] = [];
        const bodies: Record<string, unknown>[] = [];
        try {
          // Writes and reads: a write's turn waits for its commit, and a stop must still fit them in.
          for (let i = 0; i < QUEUED; i++) {
            const body = { name: `queued-${i}` };
            bodies.push(body);
            exchanges.push(rawExchange(server.url, i % 4 === 0 ? postRequest('/en/api/config/tags', body) : GET_TAGS));
          }
          // The kernel completes the handshakes while the service is frozen: all wait in its queue.
          await Promise.all(exchanges.map((exchange) => exchange.connected));
          await new Promise((done) => setTimeout(done, 200));
        } finally {
          process.kill(server.pid, 'SIGTERM');
          process.kill(server.pid, 'SIGCONT');
          // With workers, the primary may hand queued connections to a worker before it reads
          // its SIGTERM; a worker that ran then would answer those as usual (keep-alive, closed
          // cleanly after), as it would a request that came just before a real stop. The workers
          // go on once the stop has been passed to them: this test looks at what follows.
          try {
            if (workers > 1) await waitForLogs(server.logs, (all) => all.some((line) => /^stopping: passing the signal/.test(String(line.msg))));
          } finally {
            for (const pid of frozen) if (pid !== server.pid) process.kill(pid, 'SIGCONT');
          }
        }
        const results = await Promise.all(exchanges.map((exchange) => exchange.result));
        const exitCode = await server.stop();
        t.diagnostic(`${JSON.stringify(tally(results))}, Connection: close on ${results.filter((r) => r.headers?.connection === 'close').length}`);
        assert.deepEqual(tally(results), { 'answered 201': QUEUED / 4, 'answered 200': (QUEUED * 3) / 4 }, 'every queued request answered, none reset or left hanging');
        // The requests asked for keep-alive: the answer itself must say that the connection ends.
        assert.deepEqual(results.filter((result) => result.headers?.connection !== 'close').map((result) => result.headers), [], 'every answer says Connection: close');
        // Past SHUTDOWN_GRACE_MS the service (or, with workers, the primary) exits 1.
        assert.equal(exitCode, 0, 'stopped cleanly within the grace period');

        const acknowledged = new Map(results.flatMap((result, i) => (result.status === 201 ? [[JSON.parse(result.body!).id as number, bodies[i]!] as const] : [])));
        restarted = await startServer({ dataDir: server.dataDir, database: server.database });
        await assertAllStored(restarted, 'tags', acknowledged);
      } finally {
        await restarted?.stop();
        await server.stop();
        await server.cleanup();
      }
    });
  }
});

describe('MAX_CONNECTIONS', () => {
  test('the reported flood: 1,100 idle connections at the default MAX_CONNECTIONS (1024) lock nobody out', async () => {
    // A process of its own: with the flood's 1,100 sockets in the same event loop, the service
    // answered a few hundred of them 408 (request time-out) before it could close them.
    const server = await startServer({ process: true });
    const idle: RawExchange[] = [];
    try {
      for (let i = 0; i < 1100; i++) idle.push(rawExchange(server.url, undefined, 60_000));
      await Promise.all(idle.map((exchange) => exchange.connected));
      const started = Date.now();
      const reply = await server.request('GET', '/en/api/config/tags');
      assert.equal(reply.status, 200, reply.text);
      // Before: about 11 s of bare resets for every new client.
      assert.ok(Date.now() - started < 3000, `served in ${Date.now() - started} ms`);
      const ended: RawResult[] = [];
      idle.forEach((exchange) => void exchange.result.then((result) => ended.push(result)));
      await until('room made for the newcomers', () => ended.length >= 1100 + 1 - 1024, 10_000);
      assert.deepEqual(tally(ended), { closed: ended.length }, 'closed cleanly, never reset');
    } finally {
      for (const exchange of idle) exchange.socket.destroy();
      await server.stop();
      await server.cleanup();
    }
  });
});
