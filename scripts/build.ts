// `npm run build`: compiles src/ to dist/, builds the operator console (console/) into
// dist/console/, and stamps the result with the digest of its inputs (support/build-stamp.ts).
// With --if-stale (npm start, migrate, token:create) it builds only when the sources changed
// since the last build: a start then takes a second, not twenty. Nothing is built at start-up
// by the service itself.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { buildIsCurrent, sourceDigest, writeBuildStamp } from './support/build-stamp.js';
import { buildConsole } from './support/console-build.js';

const onlyIfStale = process.argv.includes('--if-stale');
if (!(onlyIfStale && buildIsCurrent())) {
  // The digest of the sources the compiler reads, taken before it runs: a file saved while
  // it compiles leaves the stamp stale, so the next start compiles again.
  const digest = sourceDigest();
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const run = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  if (run.status !== 0) process.exit(run.status ?? 1);
  await buildConsole();
  writeBuildStamp(digest);
}
