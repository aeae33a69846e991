// Several instances on one database, as the backend tests start them: a throw-away data
// folder for each, and stopping them all with their database and folders.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestServer } from './server.js';
import type { TestDatabase } from './test-database.js';

export function scratchDir(): string {
  return mkdtempSync(join(tmpdir(), 'config-api-backend-'));
}

export async function stopAll(servers: TestServer[], database: TestDatabase, dirs: string[]): Promise<void> {
  await Promise.all(servers.map((server) => server.stop()));
  await database.drop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}
