// Lists at fleet scale (contract section 15), black-box: totals that stop counting, list
// ETags and 304.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startServer, type TestServer } from './support/server.js';

let server: TestServer;
const SERVERS = '/en/api/config/servers';
// Small, so that a few servers go past it.
const EXACT_MAX = 3;

before(async () => {
  server = await startServer({ env: { LIST_EXACT_TOTAL_MAX: String(EXACT_MAX) } });
  const batch = Array.from({ length: 6 }, (_, i) => ({ ip: `10.9.0.${i + 1}`, port: i < 5 ? 3306 : 3307, hostname: `scale-${i}` }));
  assert.equal((await server.request('POST', SERVERS, { body: batch })).status, 201);
});
after(async () => {
  await server.stop();
  await server.cleanup();
});

describe('total', () => {
  test('an unfiltered list counts exactly, whatever its size', async () => {
    const reply = await server.request('GET', `${SERVERS}?limit=1`);
    assert.equal(reply.body.total, 6);
    assert.equal(reply.body.total_exact, true);
  });

  test('a filtered list counts exactly up to LIST_EXACT_TOTAL_MAX', async () => {
    const reply = await server.request('GET', `${SERVERS}?port=3307`);
    assert.deepEqual([reply.body.total, reply.body.total_exact], [1, true]);
    const none = await server.request('GET', `${SERVERS}?port=3308`);
    assert.deepEqual([none.body.total, none.body.total_exact], [0, true]);
  });

  test('past it, total is a lower bound and says so', async () => {
    const first = await server.request('GET', `${SERVERS}?port=3306&limit=2`);
    assert.equal(first.body.items.length, 2);
    assert.deepEqual([first.body.total, first.body.total_exact], [EXACT_MAX, false]);
    // A page past the bound raises it to the entries seen so far.
    const deeper = await server.request('GET', `${SERVERS}?port=3306&limit=2&offset=2`);
    assert.deepEqual([deeper.body.total, deeper.body.total_exact], [4, false]);
  });
});
