// Runs test files with node:test's run() rather than `node --test`: the command line sorts the
// files by name, and scripts/test-all-backends.ts starts them in an order of its own (slowest
// first). Output as `node --test` gives it: the spec reporter on stdout, the file times
// (file-times-reporter.mjs) into the file named by the first argument; exit code 1 on any
// failure. Started with `--import tsx`, which the files' own processes inherit.
// Usage: node --import tsx run-test-files.ts <times-file> <concurrency> <file>...
import { createWriteStream } from 'node:fs';
import { resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import fileTimes from './file-times-reporter.mjs';

const [timesFile, concurrency, ...files] = process.argv.slice(2);
if (timesFile === undefined || concurrency === undefined) throw new Error('usage: run-test-files.ts <times-file> <concurrency> <file>...');

const events = run({ files: files.map((file) => resolve(file)), concurrency: Number(concurrency) });
const toSpec = new PassThrough({ objectMode: true });
const toTimes = new PassThrough({ objectMode: true });
const watch = new PassThrough({ objectMode: true });
events.pipe(toSpec);
events.pipe(toTimes);
events.pipe(watch);
watch.on('data', (event: { type: string }) => {
  if (event.type === 'test:fail') process.exitCode = 1;
});
await Promise.all([
  pipeline(toSpec, new spec(), process.stdout, { end: false }),
  pipeline(toTimes, fileTimes, createWriteStream(timesFile)),
]);
