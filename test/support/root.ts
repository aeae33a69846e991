// Some faults can only be made for real by root: a full disk is a small tmpfs of its own,
// and a database file that belongs to another user needs the service to run as that user.
// CI runs as root (.ci/run), so there these tests always run, and fail if they cannot do
// what they need. Elsewhere, without root, they are skipped with the reason given.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunAs } from './server.js';

/** The unprivileged user of Debian and most Linux systems. */
export const NOBODY: RunAs = { uid: 65534, gid: 65534 };

/** For `test(…, { skip })`: false where the test can run (as root, or in CI, where it must). */
export const NEEDS_ROOT: false | string =
  process.getuid?.() === 0 || process.env.CI === 'true' ? false : 'needs root (a tmpfs mount, another user); CI runs it as root';

export interface Tmpfs {
  readonly path: string;
  /** Unmounts it (lazily if a process still holds a file there) and removes the mount point. */
  remove(): void;
}

/** A tmpfs of `bytes`, private to the test: its own full disk, on loopback of nothing else. */
export function mountTmpfs(bytes: number): Tmpfs {
  const path = mkdtempSync(join(tmpdir(), 'config-api-tmpfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes},mode=0700`, 'tmpfs', path], { stdio: 'pipe' });
  } catch (error) {
    rmSync(path, { recursive: true, force: true });
    throw error;
  }
  return {
    path,
    remove() {
      try {
        execFileSync('umount', [path], { stdio: 'pipe' });
      } catch {
        execFileSync('umount', ['-l', path], { stdio: 'pipe' });
      }
      rmSync(path, { recursive: true, force: true });
    },
  };
}
