// ssh-keys and SECRET_KEY at start-up: an invalid SECRET_KEY, or a key file that is not a key,
// stops the process before it listens, with a clear message that never repeats the secret (a
// start-up failure, its exit status and stderr: a process of its own).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { runToExit, startServer } from '../support/server.js';
import { freshDataDir } from '../support/ssh-keys.js';

describe('ssh-keys: SECRET_KEY', () => {
  const firstKey = randomBytes(32).toString('hex');

  for (const invalid of ['short', 'g'.repeat(64), '0'.repeat(62), `${firstKey}00`]) {
    test(`an invalid SECRET_KEY (${invalid.length} characters) stops the process before listening, with a clear message`, async () => {
      const dir = freshDataDir();
      try {
        await assert.rejects(startServer({ dataDir: dir, env: { SECRET_KEY: invalid }, process: true }), (error: Error) => {
          assert.match(error.message, /exited with [1-9]\d* before listening/, error.message);
          assert.ok(!error.message.includes(invalid), 'the message repeats the secret value');
          return true;
        });
        // The same start, run to its end, so that all of stderr is read (the harness may see
        // the exit before the last output).
        const run = runToExit(dir, { SECRET_KEY: invalid });
        assert.notEqual(run.status, 0, `exit status ${run.status}`);
        assert.match(run.stderr, /SECRET_KEY/, run.stderr);
        assert.ok(!run.stderr.includes(invalid) && !run.stdout.includes(invalid), 'the message repeats the secret value');
        assert.ok(!/Server listening/.test(run.stdout), 'the server listened');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  test('an unreadable key file (not a key) stops the process with a clear message', async () => {
    const dir = freshDataDir();
    try {
      writeFileSync(join(dir, 'secret.key'), 'not a key\n', { mode: 0o600 });
      await assert.rejects(startServer({ dataDir: dir, process: true }), (error: Error) => {
        assert.match(error.message, /exited with [1-9]\d* before listening/, error.message);
        return true;
      });
      const run = runToExit(dir, {});
      assert.notEqual(run.status, 0, `exit status ${run.status}`);
      assert.match(run.stderr, /key file/, run.stderr);
      assert.equal(readFileSync(join(dir, 'secret.key'), 'utf8'), 'not a key\n', 'the key file was overwritten');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
