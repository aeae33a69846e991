// What clients see at the edges of the connection handling, made for real on loopback:
// - a flood of idle connections past MAX_CONNECTIONS: the ones idle for longest are closed
//   cleanly to make room, and new clients are served at once;
// - past MAX_CONNECTIONS with every connection busy: a newcomer is answered 503 with
//   Retry-After, not reset, while the probes are still answered.
// SIGTERM with a filled accept queue, and the flood of 1,100 idle connections, need a process
// of their own: test/process/accept-queue-and-idle-flood.test.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertCausesLogged, waitForLogs } from './support/log-lines.js';
import { postRequest, rawExchange, tally, type RawExchange, type RawResult } from './support/raw-http.js';
import { startServer } from './support/server.js';

describe('MAX_CONNECTIONS', () => {
  test('a flood of idle connections: the ones idle for longest are closed cleanly, and new clients are served at once', async () => {
    const server = await startServer({ env: { MAX_CONNECTIONS: '20' } });
    try {
      // As many idle connections as the limit, one after the other, then as many again.
      const idle: RawExchange[] = [];
      for (let i = 0; i < 40; i++) {
        const exchange = rawExchange(server.url, undefined);
        await exchange.connected;
        idle.push(exchange);
        // Let the service accept it, so that the order of arrival is the order of idleness.
        await new Promise((done) => setTimeout(done, 5));
      }
      const started = Date.now();
      const reply = await server.request('GET', '/en/api/config/tags');
      assert.equal(reply.status, 200, reply.text);
      assert.ok(Date.now() - started < 3000, `served in ${Date.now() - started} ms`);

      const ended = idle.map(() => undefined as RawResult | undefined);
      idle.forEach((exchange, i) => void exchange.result.then((result) => (ended[i] = result)));
      const deadline = Date.now() + 5000;
      while (ended.filter(Boolean).length < 20 && Date.now() < deadline) await new Promise((done) => setTimeout(done, 20));
      const closed = ended.flatMap((result, i) => (result === undefined ? [] : [i]));
      assert.ok(closed.length >= 20, `closed ${closed.length}`);
      assert.deepEqual(closed, Array.from({ length: closed.length }, (_, i) => i), 'the oldest idle went first');
      for (const i of closed) assert.equal(ended[i]!.outcome, 'closed', `idle connection ${i}: a clean close, not a reset`);
      for (const exchange of idle) exchange.socket.destroy();
    } finally {
      await server.stop();
      await server.cleanup();
    }
  });

  test('every connection busy: a newcomer gets 503 UNAVAILABLE with Retry-After, not a reset; the probes are still answered', async () => {
    const limit = 10;
    const server = await startServer({ env: { MAX_CONNECTIONS: String(limit), LOG_LEVEL: 'debug' } });
    const busy: RawExchange[] = [];
    try {
      // Requests whose body never ends: in progress for as long as the test wants.
      const rests: string[] = [];
      for (let i = 0; i < limit; i++) {
        const request = postRequest('/en/api/config/tags', { name: `busy-${i}` }, true);
        busy.push(rawExchange(server.url, request.slice(0, -4)));
        rests.push(request.slice(-4));
      }
      await waitForLogs(server.logs, (lines) => lines.filter((line) => line.msg === 'request received' && line.method === 'POST').length >= limit);

      const turnedAway = await server.request('GET', '/en/api/config/tags');
      assert.equal(turnedAway.status, 503, turnedAway.text);
      assert.equal(turnedAway.body.code, 'UNAVAILABLE');
      assert.equal(turnedAway.headers.get('retry-after'), '1');
      assert.match(turnedAway.body.detail, /too many open connections/);
      const raw = await rawExchange(server.url, 'GET /en/api/config/tags HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n').result;
      assert.equal(raw.outcome, 'answered', 'answered, then closed cleanly');
      assert.equal(raw.status, 503);
      assert.equal(raw.headers?.connection, 'close');
      assert.equal((await server.request('GET', '/healthz')).status, 200, 'a probe is answered whatever the count');
      const failed = await waitForLogs(server.logs, (lines) => lines.some((line) => line.msg === 'request failed'));
      assert.match(String((failed.find((line) => line.msg === 'request failed')!.err as { message?: string }).message), /connections\.full/);
      await assertCausesLogged(server.logs, [], 2);

      busy.forEach((exchange, i) => exchange.socket.write(rests[i]!));
      const finished = await Promise.all(busy.map((exchange) => exchange.result));
      assert.deepEqual(tally(finished), { 'answered 201': limit }, 'the requests in progress all completed');
      assert.equal((await server.request('GET', '/en/api/config/tags')).status, 200, 'served again once connections are free');
      await waitForLogs(server.logs, (lines) => lines.some((line) => /over MAX_CONNECTIONS/.test(String(line.msg))));
    } finally {
      for (const exchange of busy) exchange.socket.destroy();
      await server.stop();
      await server.cleanup();
    }
  });
});
