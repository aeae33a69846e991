// `npm run build`: compiles src/ to dist/, builds the operator console (console/) into
// dist/console/, and stamps the result with the digest of its inputs (support/build-stamp.ts).
// With --if-stale (npm start, migrate, token:create, npm test) it builds only when the sources
// changed since the last build: a start then takes a second, not twenty. Nothing is built at
// start-up by the service itself. The compiler keeps what it learnt in dist/.tsbuildinfo, so a
// build after a small change recompiles little; inside dist/, it goes when dist/ is removed
// (a kept build-info file without its output would make the compiler skip the emit).
// With --no-check it only emits (tsc --noCheck): for `npm test`, whose type check of src/,
// test/ and scripts/ runs beside it (scripts/pretest.ts) and fails the run on a type error.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { buildIsCurrent, sourceDigest, writeBuildStamp } from './support/build-stamp.js';
import { buildConsole } from './support/console-build.js';

export const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/** Runs the compiler; resolves with its exit code. */
export function tsc(args: string[]): Promise<number> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [TSC, ...args], { stdio: 'inherit' });
    child.on('close', (code) => done(code ?? 1));
  });
}

/** Builds dist/ (unless `ifStale` and it is current); resolves with the exit code. */
export async function buildDist(options: { ifStale: boolean; check: boolean }): Promise<number> {
  if (options.ifStale && buildIsCurrent()) return 0;
  // The digest of the sources the compiler reads, taken before it runs: a file saved while
  // it compiles leaves the stamp stale, so the next start compiles again.
  const digest = sourceDigest();
  const code = await tsc(['-p', 'tsconfig.build.json', '--incremental', '--tsBuildInfoFile', 'dist/.tsbuildinfo', ...(options.check ? [] : ['--noCheck'])]);
  if (code !== 0) return code;
  await buildConsole();
  writeBuildStamp(digest);
  return 0;
}

if (import.meta.filename === process.argv[1]) {
  process.exitCode = await buildDist({ ifStale: process.argv.includes('--if-stale'), check: !process.argv.includes('--no-check') });
}
