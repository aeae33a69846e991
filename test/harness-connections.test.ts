// The harness must not lose a request to a race with the server's keep-alive timeout. Node's
// fetch (undici) keeps an idle connection for the server's `Keep-Alive: timeout` hint minus
// 2 s and retires it with a timer; a test process that stalls past the server's own timeout (a
// long synchronous stretch, or a busy machine that does not schedule it) cannot run that timer
// before its next request, reuses a connection the server has closed, and the request fails
// with "other side closed". This stalls on purpose, the way a loaded machine does by accident.
// @backend-independent (runs once, not once per backend): it asserts the harness's connection handling against the server's keep-alive timeout; no database takes part in it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serverPerSuite } from './support/server.js';

// The smallest timeout with which undici keeps connections at all (hint 3 s, minus its 2 s).
const KEEP_ALIVE_TIMEOUT_MS = 3000;
const server = serverPerSuite({ env: { KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_TIMEOUT_MS) } });

function stall(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end);
}

test('a request after the test process stalled past the server’s keep-alive timeout is answered', { timeout: 30_000 }, async () => {
  assert.equal((await server.request('GET', '/en/api/config/tags')).status, 200);
  stall(KEEP_ALIVE_TIMEOUT_MS + 1000);
  assert.equal((await server.request('GET', '/en/api/config/tags')).status, 200);
});
