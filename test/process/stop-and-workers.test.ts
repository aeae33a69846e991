// Operating the service as a process: the orderly stop with requests in flight (SIGTERM and
// the exit code) and WORKERS (a cluster of processes on one port, a worker killed with SIGKILL).
import assert from 'node:assert/strict';
import { Agent, request as httpRequest } from 'node:http';
import { describe, test } from 'node:test';
import { logLines, waitForLogs, type LogLine } from '../support/log-lines.js';
import { ITEM_ROUTE, sampleValue } from '../support/prometheus-text.js';
import { startServer, type TestServer } from '../support/server.js';

interface SlowRequest {
  /** Sends the rest of the body: the request can then complete. */
  finish(): void;
  abort(): void;
  response: Promise<{ status: number; text: string }>;
}

/** A POST whose body arrives in two parts: between them the request is in flight. */
function startSlowPost(baseUrl: string, path: string, body: unknown): SlowRequest {
  const bytes = Buffer.from(JSON.stringify(body));
  // A keep-alive connection, the harder case: the server must still close it after answering.
  const request = httpRequest(new URL(path, baseUrl), {
    method: 'POST',
    agent: new Agent({ keepAlive: true }),
    headers: { 'content-type': 'application/json', 'content-length': String(bytes.length) },
  });
  const response = new Promise<{ status: number; text: string }>((done, fail) => {
    request.on('response', (reply) => {
      let text = '';
      reply.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      reply.on('end', () => done({ status: reply.statusCode ?? 0, text }));
    });
    request.on('error', fail);
  });
  request.write(bytes.subarray(0, 4));
  return { finish: () => request.end(bytes.subarray(4)), abort: () => request.destroy(), response };
}

function receivedPost(lines: LogLine[]): boolean {
  return lines.some((line) => line.msg === 'request received' && line.method === 'POST');
}

describe('stopping', () => {
  test('SIGTERM refuses new connections, completes the request in flight, closes the database and exits 0', async () => {
    // SIGTERM and the exit code: a process of its own.
    const server = await startServer({ env: { LOG_LEVEL: 'debug' }, process: true });
    let restarted: TestServer | undefined;
    try {
      const slow = startSlowPost(server.url, '/en/api/config/tags', { name: 'in-flight' });
      await waitForLogs(server.logs, receivedPost);

      const exited = server.stop();
      await waitForLogs(server.logs, (lines) => lines.some((line) => String(line.msg).startsWith('stopping')));
      await assert.rejects(fetch(`${server.url}/healthz`), 'no new connection is accepted while draining');

      slow.finish();
      const reply = await slow.response;
      assert.equal(reply.status, 201, reply.text);
      const started = Date.now();
      assert.equal(await exited, 0);
      assert.ok(Date.now() - started < 3000, 'exits as soon as the last request is answered');
      assert.ok(logLines(server.logs()).some((line) => line.msg === 'stopped'));

      restarted = await startServer({ dataDir: server.dataDir, database: server.database });
      const list = await restarted.request('GET', '/en/api/config/tags');
      assert.deepEqual(list.body.items.map((tag: { name: string }) => tag.name), ['in-flight'], 'the answered write is stored');
    } finally {
      await restarted?.stop();
      await server.cleanup();
    }
  });

  test('past SHUTDOWN_GRACE_MS with a request still in flight, it exits 1 and says why', async () => {
    const server = await startServer({ env: { LOG_LEVEL: 'debug', SHUTDOWN_GRACE_MS: '500' }, process: true });
    const slow = startSlowPost(server.url, '/en/api/config/tags', { name: 'never-finished' });
    slow.response.catch(() => undefined);
    try {
      await waitForLogs(server.logs, receivedPost);
      const started = Date.now();
      assert.equal(await server.stop(), 1);
      const elapsed = Date.now() - started;
      assert.ok(elapsed >= 450 && elapsed < 3000, `exited after ${elapsed} ms`);
      assert.ok(logLines(server.logs()).some((line) => line.level === 50 && /grace period/.test(String(line.msg))), server.logs());
    } finally {
      slow.abort();
      await server.cleanup();
    }
  });
});

describe('WORKERS', () => {
  function listening(lines: LogLine[]): LogLine[] {
    return lines.filter((line) => /^Server listening at/.test(String(line.msg)));
  }

  test('WORKERS=2 serves from two processes on one port, sums their metrics, restarts a killed worker, and stops with 0', async () => {
    const server = await startServer({ env: { WORKERS: '2' }, process: true });
    try {
      const started = listening(await waitForLogs(server.logs, (lines) => listening(lines).length >= 2));
      const pids = new Set(started.map((line) => line.pid));
      assert.equal(pids.size, 2, 'two worker processes');
      assert.equal(new Set(started.map((line) => /:(\d+)$/.exec(String(line.msg))?.[1])).size, 1, 'one shared port');

      const created = await server.request('POST', '/en/api/config/tags', { body: { name: 'clustered' } });
      assert.equal(created.status, 201);
      for (let i = 0; i < 20; i++) assert.equal((await server.request('GET', `/en/api/config/tags/${created.body.id}`)).status, 200);
      const metrics = (await server.request('GET', '/metrics')).text;
      assert.equal(sampleValue(metrics, 'http_requests_total', { method: 'GET', route: ITEM_ROUTE, status: '200' }), 20, 'every worker counted');

      const victim = started[0]!.pid!;
      process.kill(victim, 'SIGKILL');
      const lines = await waitForLogs(server.logs, (all) => listening(all).length >= 3);
      const died = lines.find((line) => line.msg === 'worker died; restarting it');
      assert.equal(died?.workerPid, victim);
      const replacement = listening(lines)[2]!;
      assert.ok(!pids.has(replacement.pid), 'a new process');
      for (let i = 0; i < 10; i++) assert.equal((await server.request('GET', `/en/api/config/tags/${created.body.id}`)).status, 200);

      assert.equal(await server.stop(), 0);
      assert.ok(logLines(server.logs()).some((line) => line.msg === 'all workers stopped'));
    } finally {
      await server.stop();
      await server.cleanup();
    }
  });
});
