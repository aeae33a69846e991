// `npm test`'s first step: the type check (src/, test/ and scripts/, then the console's code)
// and the build of dist/ side by side rather than one after the other, each compiler on a core
// of its own. The build only emits (its types are those the check reads) and only when the
// sources changed since the last one; the checks keep their build-info files in dist/ so that
// a run after a small change checks little. Any failure fails `npm test` before a test runs,
// and a build the check refused loses its stamp (the next start builds, and fails, again).
import { buildIsCurrent, removeBuildStamp } from './support/build-stamp.js';
import { buildDist, tsc } from './build.js';

const built = !buildIsCurrent();
const [checked, consoleChecked, build] = await Promise.all([
  tsc(['-p', 'tsconfig.json', '--incremental', '--tsBuildInfoFile', 'dist/.typecheck.tsbuildinfo']),
  tsc(['-p', 'console/tsconfig.json', '--incremental', '--tsBuildInfoFile', 'dist/.typecheck-console.tsbuildinfo']),
  buildDist({ ifStale: true, check: false }),
]);
if (built && (checked !== 0 || consoleChecked !== 0)) removeBuildStamp();
process.exitCode = [checked, consoleChecked, build].find((code) => code !== 0) ?? 0;
