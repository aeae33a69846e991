// What the read-only database tests share: the keys given as variables, a scratch folder,
// tags written first, and the two outcomes asserted (refused start; reads served, writes
// refused with READ_ONLY=true).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertAllStored } from './entries.js';
import { assertCausesLogged } from './log-lines.js';
import { runToExit, type RunAs, type TestServer } from './server.js';

export const SECRET_KEY = randomBytes(32).toString('hex');
// Given as variables, like SECRET_KEY: the key files the first start makes are root's.
export const TOKEN_KEY = randomBytes(32).toString('hex');

export function scratchDir(): string {
  return mkdtempSync(join(tmpdir(), 'config-api-readonly-'));
}

/** Some tags, written while the database still accepts writes. */
export async function seed(server: TestServer): Promise<Map<number, Record<string, unknown>>> {
  const acknowledged = new Map<number, Record<string, unknown>>();
  for (const name of ['before-1', 'before-2', 'before-3']) {
    const body = { name, color: '#102030' };
    const reply = await server.request('POST', '/en/api/config/tags', { body });
    assert.equal(reply.status, 201, reply.text);
    acknowledged.set(reply.body.id, body);
  }
  return acknowledged;
}

export function assertRefusedToStart(databaseUrl: string, dataDir: string, user?: RunAs): void {
  const run = runToExit(dataDir, { DATABASE_URL: databaseUrl, SECRET_KEY, TOKEN_KEY }, user);
  assert.equal(run.status, 1, `${run.stdout}\n${run.stderr}`);
  const lines = run.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line: ${run.stderr}`);
  assert.match(lines[0]!, /^config-api: cannot start: .* refuses writes .*set READ_ONLY=true to serve reads only$/);
}

/** READ_ONLY=true: every read is served, every write is 503 READ_ONLY, and it is ready. */
export async function assertServesReadsOnly(server: TestServer, acknowledged: ReadonlyMap<number, Record<string, unknown>>): Promise<void> {
  await assertAllStored(server, 'tags', acknowledged);
  const [id] = acknowledged.keys();
  for (const [method, path, body] of [
    ['POST', '/fr/api/config/tags', { name: 'refused' }],
    ['PATCH', `/en/api/config/tags/${id}`, { color: '#000000' }],
    ['DELETE', `/en/api/config/tags/${id}`, undefined],
  ] as const) {
    const reply = await server.request(method, path, body === undefined ? {} : { body });
    assert.equal(reply.status, 503, `${method}: ${reply.text}`);
    assert.equal(reply.body.code, 'READ_ONLY');
    assert.match(reply.body.detail, /READ_ONLY=true/);
  }
  await assertCausesLogged(server.logs, [SECRET_KEY, TOKEN_KEY], 3);
  const ready = await server.request('GET', '/readyz');
  assert.equal(ready.status, 200, ready.text);
  assert.deepEqual(ready.body, { status: 'ready', readOnly: true });
  await assertAllStored(server, 'tags', acknowledged);
}
