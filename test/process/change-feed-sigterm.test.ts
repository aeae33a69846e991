// Contract section 13, the change feed and the process: SIGTERM with streams open ends them
// cleanly and the process exits 0 at once (a signal and an exit code: a process of its own).
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { STREAM, created, openStream, unique, withStreams } from '../support/change-stream.js';
import { startServer } from '../support/server.js';

describe('the change feed and the process', { timeout: 180_000 }, () => {
  test('SIGTERM with streams open: they end cleanly and the process exits 0 at once', { timeout: 60_000 }, async () => {
    const server = await startServer({ env: { SHUTDOWN_GRACE_MS: '8000' }, process: true });
    try {
      const streams = await Promise.all(Array.from({ length: 5 }, () => openStream(server.url, `${STREAM}?since=0`)));
      await withStreams(streams, async () => {
        await Promise.all(streams.map((stream) => stream.waitFor('the first comment', () => stream.comments.length > 0)));
        await created(server, 'tags', { name: unique('term') });
        await Promise.all(streams.map((stream) => stream.waitForChanges(1)));
        const started = performance.now();
        const code = await server.stop();
        const took = performance.now() - started;
        assert.equal(code, 0, server.logs().slice(-2000));
        assert.ok(took < 4000, `exited ${Math.round(took)} ms after SIGTERM (grace 8000 ms)`);
        const ends = await Promise.all(streams.map((stream) => Promise.race([stream.ended, sleep(2000).then(() => 'open')])));
        assert.deepEqual(ends, streams.map(() => 'end'), 'each stream ended with its last chunk, not cut');
      });
    } finally {
      await server.stop();
      await server.cleanup();
    }
  });
});
