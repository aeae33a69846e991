// Hardening: a change stream lasts no longer than its token (contract sections 13 and 14).
// A stream opened with a managed token ends within the revocation bound (5 s) once the token
// is revoked on the same instance, or on another instance sharing the database (learnt by
// token sync), and once the token expires. Before, such streams kept receiving changes.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { after, before, describe, test } from 'node:test';
import { lastChangeId, openStream, type ChangeStream } from './support/change-stream.js';
import { startServer, type TestServer } from './support/server.js';
import { bearer, createToken, secret, TAGS, TOKENS } from './support/tokens.js';

const STREAM = '/en/api/changes/stream';
/** Contract section 14: a revocation holds within 5 s on every instance. */
const REVOCATION_BOUND_MS = 5000;
const ADMIN = secret('adm');
const ENV = { API_TOKENS: `root=admin:${ADMIN}` };

const name = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

/** Resolves to the milliseconds the stream took to end, or fails if it is still open after `ms`. */
async function endsWithin(stream: ChangeStream, ms: number, what: string): Promise<number> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'open'>((done) => (timer = setTimeout(() => done('open'), ms)));
  const how = await Promise.race([stream.ended, late]);
  clearTimeout(timer);
  assert.notEqual(how, 'open', `${what}: the stream is still open ${ms} ms later`);
  return performance.now() - started;
}

async function writeTag(server: TestServer): Promise<number> {
  const reply = await server.request('POST', TAGS, { body: { name: name('tag') }, headers: bearer(ADMIN) });
  assert.equal(reply.status, 201, reply.text);
  return reply.body.id as number;
}

/** A stream with `token` that receives a first change, to show it is live. */
async function liveStream(server: TestServer, token: string): Promise<ChangeStream> {
  const since = await lastChangeId(server, 0, bearer(ADMIN));
  const stream = await openStream(server.url, `${STREAM}?since=${since}`, { headers: bearer(token) });
  assert.equal(stream.status, 200);
  await writeTag(server);
  await stream.waitForChanges(1);
  return stream;
}

describe('a change stream ends with its token', { timeout: 120_000 }, () => {
  let first: TestServer;
  let second: TestServer | undefined;
  const streams: ChangeStream[] = [];
  before(async () => {
    first = await startServer({ env: ENV });
  });
  after(async () => {
    for (const stream of streams) stream.close();
    await second?.stop();
    await first.stop();
    await first.cleanup();
  });

  test('revoked on the same instance: the stream ends within the bound, and nothing later reaches it', async (t) => {
    const { id, token } = await createToken(first, ADMIN, { name: name('reader'), scope: 'read' });
    const stream = await liveStream(first, token);
    streams.push(stream);
    const revoked = await first.request('DELETE', `${TOKENS}/${id}`, { headers: bearer(ADMIN) });
    assert.equal(revoked.status, 200);
    const tookMs = await endsWithin(stream, REVOCATION_BOUND_MS, 'revoked here');
    t.diagnostic(`ended ${Math.round(tookMs)} ms after the revocation answered`);
    const seen = stream.changes.length;
    await writeTag(first);
    await new Promise((done) => setTimeout(done, 300));
    assert.equal(stream.changes.length, seen, 'no change after the revocation');
    // And the token itself no longer opens one.
    const again = await first.request('GET', `${STREAM}?since=0`, { headers: bearer(token) });
    assert.equal(again.status, 401);
  });

  test('revoked through another instance sharing the database: ended within the bound', async (t) => {
    second = await startServer({ dataDir: first.dataDir, database: first.database, env: ENV });
    const { id, token } = await createToken(first, ADMIN, { name: name('remote'), scope: 'read' });
    const stream = await liveStream(first, token);
    streams.push(stream);
    const revoked = await second.request('DELETE', `${TOKENS}/${id}`, { headers: bearer(ADMIN) });
    assert.equal(revoked.status, 200);
    const tookMs = await endsWithin(stream, REVOCATION_BOUND_MS, 'revoked on the other instance');
    t.diagnostic(`ended ${Math.round(tookMs)} ms after the other instance revoked it`);
  });

  test('expired: the stream ends within the bound of its expiry', async (t) => {
    const expiresAt = Date.now() + 3000;
    const { token } = await createToken(first, ADMIN, { name: name('brief'), scope: 'read', expires_at: new Date(expiresAt).toISOString() });
    const stream = await liveStream(first, token);
    streams.push(stream);
    assert.ok(Date.now() < expiresAt, 'the stream was live before its token expired');
    await endsWithin(stream, expiresAt - Date.now() + REVOCATION_BOUND_MS, 'expired');
    const lateMs = Date.now() - expiresAt;
    t.diagnostic(`ended ${lateMs} ms after the token expired`);
    assert.ok(lateMs >= -50, `ended ${-lateMs} ms before the token expired`);
  });

  test('a stream of an environment token, and of another managed token, stays open meanwhile', async () => {
    const { token } = await createToken(first, ADMIN, { name: name('kept'), scope: 'read' });
    const kept = await liveStream(first, token);
    const admin = await liveStream(first, ADMIN);
    streams.push(kept, admin);
    const { id } = await createToken(first, ADMIN, { name: name('other'), scope: 'read' });
    assert.equal((await first.request('DELETE', `${TOKENS}/${id}`, { headers: bearer(ADMIN) })).status, 200);
    await new Promise((done) => setTimeout(done, 1500));
    assert.equal(kept.isEnded, false);
    assert.equal(admin.isEnded, false);
    const count = kept.changes.length;
    await writeTag(first);
    await kept.waitForChanges(count + 1);
  });
});
