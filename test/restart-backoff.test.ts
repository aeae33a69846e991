// The restart policy of cluster workers (WORKERS > 1), without processes: a worker that
// keeps dying young waits longer each time, one that ran a while restarts at once.
// @backend-independent (runs once, not once per backend): the back-off arithmetic alone.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RestartBackoff } from '../src/cluster/restart-backoff.js';

test('quick deaths double the wait up to the ceiling; a healthy run resets it', () => {
  const backoff = new RestartBackoff(100, 1000, 10_000);
  assert.deepEqual([50, 50, 50, 50, 50, 50].map((lived) => backoff.delayAfter(lived)), [100, 200, 400, 800, 1000, 1000]);
  assert.equal(backoff.delayAfter(60_000), 100, 'a worker that lived long is restarted at once');
  assert.equal(backoff.delayAfter(10), 200);
});
