// A node:test reporter that writes, at the end of a run, the time each test file's top-level
// tests took, slowest first: with files run side by side, the run's own total no longer says
// which files make it long. Used by scripts/test-all-backends.ts beside the spec reporter.
// Plain JavaScript: node loads a reporter before `--import tsx` can compile TypeScript for it.
import { relative } from 'node:path';

/** @param {AsyncIterable<{ type: string, data: { file?: string, nesting?: number, details?: { duration_ms?: number } } }>} source */
export default async function* fileTimes(source) {
  const byFile = new Map();
  for await (const event of source) {
    if ((event.type !== 'test:pass' && event.type !== 'test:fail') || event.data.nesting !== 0) continue;
    const file = event.data.file === undefined ? '(unknown)' : relative(process.cwd(), event.data.file);
    byFile.set(file, (byFile.get(file) ?? 0) + (event.data.details?.duration_ms ?? 0));
  }
  for (const [file, ms] of [...byFile].sort((a, b) => b[1] - a[1])) yield `${(ms / 1000).toFixed(1).padStart(7)} s  ${file}\n`;
}
