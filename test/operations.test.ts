// Operating the service: health and readiness probes, Prometheus metrics, request logs, and
// WORKERS' refusal of a private in-memory database. The orderly stop with requests in flight
// and WORKERS (a cluster on one port) need a process: test/process/stop-and-workers.test.ts.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { logLines, waitForLogs, type LogLine } from './support/log-lines.js';
import { ITEM_ROUTE, sampleValue, samples } from './support/prometheus-text.js';
import { startServer, type TestServer } from './support/server.js';
import { startTcpProxy } from './support/tcp-proxy.js';
import { BACKEND, createTestDatabase } from './support/test-database.js';

const COLLECTION_ROUTE = '/:lang/api/config/:resource';

async function withServer(env: Record<string, string>, work: (server: TestServer) => Promise<void>): Promise<void> {
  const server = await startServer({ env });
  try {
    await work(server);
  } finally {
    await server.stop();
    await server.cleanup();
  }
}

function completedLines(server: TestServer): LogLine[] {
  return logLines(server.logs()).filter((line) => line.msg === 'request completed');
}

describe('health and readiness', () => {
  test('/healthz and /readyz answer 200 with a small JSON body, uncached, without a language prefix', async () => {
    await withServer({}, async (server) => {
      const health = await server.request('GET', '/healthz');
      assert.equal(health.status, 200);
      assert.equal(health.body.status, 'ok');
      assert.match(health.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(health.headers.get('cache-control'), 'no-store');

      const ready = await server.request('GET', '/readyz');
      assert.equal(ready.status, 200, ready.text);
      assert.equal(ready.body.status, 'ready');

      assert.equal((await server.request('HEAD', '/healthz')).status, 200);
    });
  });

  test('another method is a 405 problem with Allow', async () => {
    await withServer({}, async (server) => {
      for (const path of ['/healthz', '/readyz', '/metrics']) {
        const reply = await server.request('POST', path, { body: {} });
        assert.equal(reply.status, 405, path);
        assert.equal(reply.headers.get('allow'), 'GET, HEAD');
        assert.match(reply.headers.get('content-type') ?? '', /^application\/problem\+json/);
        assert.equal(reply.body.code, 'METHOD_NOT_ALLOWED');
      }
    });
  });

  test('/readyz is 503 UNAVAILABLE within seconds while the database is unreachable, /healthz stays 200', {
    skip: BACKEND === 'sqlite' ? 'an embedded SQLite database cannot become unreachable' : false,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'config-api-ops-'));
    const database = await createTestDatabase(dir);
    const real = new URL(database.url);
    const proxy = await startTcpProxy(real.hostname, Number(real.port || (BACKEND === 'postgres' ? 5432 : 3306)));
    const viaProxy = new URL(database.url);
    viaProxy.port = String(proxy.port);
    const server = await startServer({ database: { ...database, url: viaProxy.toString() }, dataDir: dir });
    try {
      assert.equal((await server.request('GET', '/readyz')).status, 200);
      await proxy.down();

      const started = Date.now();
      const ready = await server.request('GET', '/readyz');
      assert.equal(ready.status, 503, ready.text);
      assert.match(ready.headers.get('content-type') ?? '', /^application\/problem\+json/);
      assert.equal(ready.body.code, 'UNAVAILABLE');
      assert.ok(Date.now() - started < 3500, `answered in ${Date.now() - started} ms`);
      assert.doesNotMatch(ready.text, /ECONNREFUSED|select|at .*\.js/i, 'no internals');
      assert.equal((await server.request('GET', '/healthz')).status, 200, 'alive, only not ready');

      await proxy.up();
      const deadline = Date.now() + 15_000;
      let status = 0;
      while (Date.now() < deadline && status !== 200) {
        status = (await server.request('GET', '/readyz')).status;
        if (status !== 200) await new Promise((done) => setTimeout(done, 200));
      }
      assert.equal(status, 200, 'ready again once the database is back');
    } finally {
      await proxy.close();
      await server.stop();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('metrics', () => {
  test('Prometheus text with request counters and latency labelled by route pattern', async () => {
    await withServer({}, async (server) => {
      const before = await server.request('GET', '/metrics');
      assert.equal(before.status, 200);
      assert.match(before.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
      const labels = { method: 'GET', route: ITEM_ROUTE, status: '200' };
      const countBefore = sampleValue(before.text, 'http_requests_total', labels);

      const created = await server.request('POST', '/en/api/config/tags', { body: { name: 'metered' } });
      assert.equal(created.status, 201);
      for (let i = 0; i < 3; i++) assert.equal((await server.request('GET', `/en/api/config/tags/${created.body.id}`)).status, 200);
      await server.request('GET', '/en/api/config/tags/999999');
      await server.request('GET', '/no/such/path/at/all');

      const after = (await server.request('GET', '/metrics')).text;
      assert.equal(sampleValue(after, 'http_requests_total', labels) - countBefore, 3);
      assert.equal(sampleValue(after, 'http_requests_total', { method: 'POST', route: COLLECTION_ROUTE, status: '201' }), 1);
      assert.equal(sampleValue(after, 'http_requests_total', { method: 'GET', route: ITEM_ROUTE, status: '404' }), 1);
      assert.equal(sampleValue(after, 'http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }), 1);
      assert.equal(sampleValue(after, 'http_request_duration_seconds_count', labels), 3);
      assert.ok(sampleValue(after, 'http_request_duration_seconds_sum', labels) > 0);
      assert.equal(sampleValue(after, 'http_request_duration_seconds_bucket', { ...labels, le: '+Inf' }), 3);
      // Buckets are cumulative: each counts the requests at or under its bound.
      const buckets = samples(after).filter(
        (s) => s.name === 'http_request_duration_seconds_bucket' && s.labels.route === ITEM_ROUTE && s.labels.method === 'GET' && s.labels.status === '200',
      );
      assert.equal(buckets.length, 14, '13 bounds and +Inf');
      buckets.forEach((bucket, index) => assert.ok(index === 0 || bucket.value >= buckets[index - 1]!.value, `bucket le=${bucket.labels.le} is cumulative`));
      assert.equal(sampleValue(after, 'http_request_duration_seconds_bucket', { ...labels, le: '10' }), 3, 'a cached GET takes less than 10 s');

      const routes = new Set(samples(after).map((s) => s.labels.route).filter(Boolean));
      for (const route of routes) assert.ok(route === 'unmatched' || route!.startsWith('/'), route);
      assert.ok(![...routes].some((route) => /\d/.test(route!)), `no raw ids or paths in route labels: ${[...routes].join(' ')}`);

      for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes']) {
        assert.ok(samples(after).some((s) => s.name === name), `default metric ${name}`);
      }
      const poolMax = samples(after).find((s) => s.name === 'db_pool_connections_max');
      if (BACKEND === 'sqlite') assert.equal(poolMax, undefined, 'SQLite has no pool');
      else {
        assert.equal(poolMax?.value, 10, 'DATABASE_POOL_SIZE');
        for (const name of ['db_pool_connections_open', 'db_pool_connections_idle', 'db_pool_waiting_queries']) {
          assert.ok(samples(after).some((s) => s.name === name), name);
        }
      }
    });
  });
});

describe('request logs', () => {
  test('one JSON line per completed request, with the request id, route, method, status and duration; no query string, header or body', async () => {
    await withServer({}, async (server) => {
      const traced = await server.request('POST', '/en/api/config/tags', {
        headers: { 'x-request-id': 'trace-42.a', authorization: 'Bearer header-secret-456' },
        body: { name: 'body-secret-789' },
      });
      assert.equal(traced.status, 201);
      assert.equal(traced.headers.get('x-request-id'), 'trace-42.a');
      const searched = await server.request('GET', '/en/api/config/tags?q=query-secret-123');
      assert.equal(searched.status, 200, searched.text);

      const unsafe = await server.request('GET', '/en/api/config/tags', { headers: { 'x-request-id': 'has spaces{}' } });
      const generated = unsafe.headers.get('x-request-id') ?? '';
      assert.match(generated, /^[0-9a-f-]{36}$/, 'an unsafe id is replaced by a generated one');

      const completed = (id: string) => (all: LogLine[]) => all.find((l) => l.reqId === id && l.msg === 'request completed');
      const lines = await waitForLogs(server.logs, (all) => completed('trace-42.a')(all) !== undefined && completed(generated)(all) !== undefined);
      const line = completed('trace-42.a')(lines)!;
      assert.equal(line.route, COLLECTION_ROUTE);
      assert.equal(line.method, 'POST');
      assert.equal(line.status, 201);
      assert.equal(typeof line.durationMs, 'number');

      const everything = server.logs();
      for (const secret of ['query-secret-123', 'header-secret-456', 'body-secret-789', 'has spaces']) {
        assert.ok(!everything.includes(secret), `${secret} must not be logged`);
      }
    });
  });

  test('probes and scrapes are logged at debug, not at the default level', async () => {
    await withServer({}, async (server) => {
      await server.request('GET', '/healthz');
      await server.request('GET', '/metrics');
      await server.request('GET', '/en/api/config/tags');
      await waitForLogs(server.logs, () => completedLines(server).some((line) => line.route === COLLECTION_ROUTE));
      const routes = completedLines(server).map((line) => line.route);
      assert.ok(!routes.includes('/healthz') && !routes.includes('/metrics'), routes.join(' '));
    });
  });
});

describe('WORKERS', () => {
  test('WORKERS above 1 refuses a private in-memory database', async () => {
    await assert.rejects(startServer({ env: { WORKERS: '2', DATABASE_URL: 'sqlite::memory:' } }), /WORKERS above 1 needs a database the workers share/);
  });
});
