// The log destination (src/logging/turn-batched-stdout.ts), in a process of its own whose
// stdout is a pipe, as under a log shipper: the lines of each event-loop turn are handed over
// as one Buffer, so what must hold is that every line arrives whole, in order and as UTF-8,
// also when one turn writes more than the pipe holds (partial writes), and that the lines of
// the last turn are written when the process exits.
// @backend-independent (runs once, not once per backend): no service and no database, only the
// log destination in a process of its own.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

const DESTINATION = pathToFileURL(resolve(import.meta.dirname, '../src/logging/turn-batched-stdout.ts')).href;

/** Runs `body` (ES module code with `out`, the destination) and returns its stdout's lines. */
function linesWritten(body: string): unknown[] {
  const script = `import { turnBatchedStdout } from ${JSON.stringify(DESTINATION)};\nconst out = turnBatchedStdout(process.stdout, 64 * 1024 * 1024);\n${body}`;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 30_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  assert.equal(run.status, 0, run.stderr);
  assert.ok(run.stdout.endsWith('\n'), 'the last line is whole');
  return run.stdout.slice(0, -1).split('\n').map((line) => JSON.parse(line));
}

test('lines of several turns arrive whole and in order, non-ASCII included, the last turn at exit', () => {
  const lines = linesWritten(`
    out.write(JSON.stringify({ n: 1, actor: 'déploiement' }) + '\\n');
    out.write(JSON.stringify({ n: 2, note: 'sat 🛰 ok' }) + '\\n');
    setImmediate(() => {
      out.write(JSON.stringify({ n: 3 }) + '\\n');
      setTimeout(() => {
        out.write(JSON.stringify({ n: 4, note: 'last turn: ü' }) + '\\n');
        process.exit(0);
      }, 5);
    });
  `);
  assert.deepEqual(lines, [
    { n: 1, actor: 'déploiement' },
    { n: 2, note: 'sat 🛰 ok' },
    { n: 3 },
    { n: 4, note: 'last turn: ü' },
  ]);
});

test('a turn that writes far more than a pipe holds (5 MB) arrives whole, byte for byte', () => {
  const count = 8000;
  const lines = linesWritten(`
    for (let n = 0; n < ${count}; n++) out.write(JSON.stringify({ n, text: 'é🛰'.repeat(100) + 'x'.repeat(n % 97) }) + '\\n');
  `);
  assert.equal(lines.length, count);
  lines.forEach((line, n) => assert.deepEqual(line, { n, text: 'é🛰'.repeat(100) + 'x'.repeat(n % 97) }));
});
