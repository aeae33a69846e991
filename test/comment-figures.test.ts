// Comments in src/ say why, not by how much: a measured cost quoted in a comment goes stale as
// Node, the machine and the code around it change, and nobody measures it again. Figures
// live in docs/performance.md ("Figures behind the code"); a comment points there. This
// catches the usual forms of a quoted measurement (a duration per operation, a share of CPU
// or time, a speed-up), not every way of writing one.
// @backend-independent (runs once, not once per backend): reads src/ only.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { test } from 'node:test';

const SRC = resolve(import.meta.dirname, '../src');

const MEASUREMENTS: readonly RegExp[] = [
  // 1.3 µs, 400 ns, 56 us: what one operation took.
  /\b\d[\d.,]*\s?(µs|us|ns)\b/,
  // 24 % of the main thread's time, 6 % of a cached GET, a tenth of the CPU.
  /(\b\d[\d.,]*\s?%|\b(half|a third|a quarter|a tenth))\s+of\s+(the\s+|a\s+)?(cached\s+)?(CPU|time|main thread|GET|PATCH|POST|PUT|DELETE|request)/i,
  // 1.30x requests a second, 2x faster.
  /\b\d[\d.]*\s?x\s+(faster|slower|requests|throughput|the\s+(cost|CPU|time))/i,
  // twice as much as, half the cost of, a quarter of createHash's cost.
  /\b(twice|half|a third|a quarter|a tenth)\s+(as\s+much|the\s+cost|of\s+\S+\s+cost)/i,
];

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The comment lines of a TypeScript file (line comments, and the lines of block comments). */
function commentLines(text: string): { line: number; text: string }[] {
  const found: { line: number; text: string }[] = [];
  let inBlock = false;
  text.split('\n').forEach((line, index) => {
    const trimmed = line.trim();
    if (inBlock || trimmed.startsWith('/*')) {
      found.push({ line: index + 1, text: trimmed });
      inBlock = !trimmed.includes('*/');
      return;
    }
    const at = line.indexOf('// ');
    if (at !== -1 && !line.slice(0, at).includes("'") && !line.slice(0, at).includes('`')) found.push({ line: index + 1, text: line.slice(at) });
  });
  return found;
}

test('comments in src/ quote no measured cost', () => {
  const quoted: string[] = [];
  for (const file of sourceFiles(SRC)) {
    for (const { line, text } of commentLines(readFileSync(file, 'utf8'))) {
      if (MEASUREMENTS.some((pattern) => pattern.test(text))) quoted.push(`${relative(SRC, file)}:${line}: ${text}`);
    }
  }
  assert.deepEqual(quoted, [], 'move the figures to docs/performance.md, "Figures behind the code"');
});

test('the check finds the forms it is meant to find', () => {
  const found = (comment: string) => MEASUREMENTS.some((pattern) => pattern.test(comment));
  for (const comment of [
    '// crypto.hash makes no hash object: a quarter of createHash\'s cost, per request.',
    '// perf found 24 % of the main thread\'s time in such checkpoints.',
    '// no thread pool hand-over, which cost about 6 % of a cached GET',
    '// a native digest costs about 1.3 µs',
    '// building the string cost twice as much as the lookup itself.',
    '// PATCH at 1M: 1.30x requests a second',
  ]) assert.ok(found(comment), comment);
  for (const comment of ['// Node checks the time-outs on this beat (30 s by default)', '// after 10% of a table changed', '// at most half of MAX_CONNECTIONS']) {
    assert.ok(!found(comment), comment);
  }
});
