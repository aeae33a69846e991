// The real monitoring tools the integration tests run (Prometheus, ansible-inventory): found
// on PATH or not. In CI (CI=true) a missing tool fails its test rather than skipping it, as
// Chromium does for the docs page (.ci/run installs them).
import { spawnSync } from 'node:child_process';

export interface ToolCheck {
  /** False, or why the test is skipped. */
  readonly skip: string | false;
  readonly available: boolean;
}

export function tool(command: string, install: string): ToolCheck {
  const found = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
  const available = found.status === 0 && found.stdout.trim() !== '';
  return { available, skip: available || process.env.CI === 'true' ? false : `${command} not found (apt-get install -y --no-install-recommends ${install})` };
}
