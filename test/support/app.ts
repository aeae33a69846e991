// The app built in this process (fastify/demo's `build(t)`), for tests that need no separate
// process: no port, no child, a fresh database on the backend TEST_DATABASE names, closed and
// dropped when the test ends. Requests go through Fastify's inject.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOptions } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';

export interface BuiltApp {
  readonly app: FastifyInstance;
  readonly database: TestDatabase;
}

export async function build(t: TestContext, options: AppOptions & { env?: Record<string, string> } = {}): Promise<BuiltApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'config-api-app-'));
  const database = await createTestDatabase(dataDir);
  const { env, ...appOptions } = options;
  const config = loadConfig({
    DATABASE_URL: database.url,
    SECRET_KEY_FILE: join(dataDir, 'secret.key'),
    TOKEN_KEY_FILE: join(dataDir, 'token.key'),
    LOG_LEVEL: 'silent',
    ...env,
  });
  let app: FastifyInstance;
  try {
    app = await buildApp(config, appOptions);
  } catch (error) {
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  t.after(async () => {
    await app.close();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return { app, database };
}
