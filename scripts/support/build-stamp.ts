// Whether dist/ was compiled from the sources as they are now: a digest of every input of the
// build (src/, the console's console/, the TypeScript settings, the package manifest and lock), written beside the
// output by `npm run build`. A digest rather than file times: a checkout, a stash or a copy
// moves times both ways, and reading the sources takes a few milliseconds.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const STAMP = join(ROOT, 'dist', '.build-stamp');
const SETTINGS = ['tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json', 'scripts/support/console-build.ts', 'scripts/support/console-registry.ts'];

function filesUnder(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

/** The digest of the build's inputs as they are now. */
export function sourceDigest(): string {
  const hash = createHash('sha256');
  const inputs = [...filesUnder(join(ROOT, 'src')).sort(), ...filesUnder(join(ROOT, 'console')).sort(), ...SETTINGS.map((name) => join(ROOT, name)).filter(existsSync)];
  for (const file of inputs) hash.update(relative(ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex');
}

/** True when dist/ was built from the sources as they are now. */
export function buildIsCurrent(): boolean {
  return existsSync(STAMP) && readFileSync(STAMP, 'utf8').trim() === sourceDigest();
}

export function writeBuildStamp(digest: string): void {
  writeFileSync(STAMP, `${digest}\n`);
}

/** For a build whose type check failed after it emitted: the next start builds (and fails) again. */
export function removeBuildStamp(): void {
  rmSync(STAMP, { force: true });
}

/** For the test harness and the bench: running old code by mistake is worse than stopping. */
export function assertBuildIsCurrent(): void {
  if (!buildIsCurrent()) throw new Error('dist/ was not built from the current src/: run `npm run build` (npm test and npm start build by themselves)');
}
