// Hardening: one token, or one address, cannot take every connection with change streams.
// Each may hold CHANGE_STREAMS_PER_TOKEN / CHANGE_STREAMS_PER_ADDRESS streams; the next is
// 429 TOO_MANY_STREAMS with Retry-After (as the OpenAPI document says). Streams together use at
// most half of MAX_CONNECTIONS, so plain requests are still served while they are at their cap.
// Before, 100 streams of one read token with MAX_CONNECTIONS=100 turned every other client away.
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { describe, test } from 'node:test';
import { openStream, type ChangeStream } from './support/change-stream.js';
import { startServer, type TestServer } from './support/server.js';
import { bearer, createToken, secret, TAGS } from './support/tokens.js';

const STREAM = '/en/api/changes/stream';
const ADMIN = secret('adm');
const READ = secret('rd');

function headersOf(incoming: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [key, value] of Object.entries(incoming)) if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
  return headers;
}

interface Attempt {
  status: number;
  stream: ChangeStream;
  /** The problem body of a refusal. */
  body: any;
  headers: IncomingHttpHeaders;
}

/** Opens a stream; a refusal's body is read to its end and checked against the OpenAPI document. */
async function attempt(server: TestServer, headers: Record<string, string>): Promise<Attempt> {
  const path = `${STREAM}?since=0`;
  const stream = await openStream(server.url, path, { headers });
  if (stream.status === 200) {
    await stream.waitFor('the first comment', () => stream.comments.length > 0, 5000);
    server.checkResponse('GET', path, { status: 200, headers: headersOf(stream.headers), text: '' });
    return { status: 200, stream, body: undefined, headers: stream.headers };
  }
  await stream.ended;
  server.checkResponse('GET', path, { status: stream.status, headers: headersOf(stream.headers), text: stream.text });
  return { status: stream.status, stream, body: JSON.parse(stream.text), headers: stream.headers };
}

async function withServer(env: Record<string, string>, work: (server: TestServer, opened: ChangeStream[]) => Promise<void>): Promise<void> {
  const server = await startServer({ env: { API_TOKENS: `root=admin:${ADMIN},reader=read:${READ}`, ...env } });
  const opened: ChangeStream[] = [];
  try {
    await work(server, opened);
  } finally {
    for (const stream of opened) stream.close();
    await server.stop();
    await server.cleanup();
  }
}

function assertRefused(refused: Attempt, code: string, status: number): void {
  assert.equal(refused.status, status, JSON.stringify(refused.body));
  assert.equal(refused.body.code, code);
  assert.match(String(refused.headers['content-type']), /^application\/problem\+json/);
  assert.match(String(refused.headers['retry-after']), /^[1-9]\d*$/, 'Retry-After in seconds');
}

describe('change stream limits', { timeout: 120_000 }, () => {
  test('a token holds at most CHANGE_STREAMS_PER_TOKEN streams: the next is 429 TOO_MANY_STREAMS with Retry-After', async () => {
    await withServer({ CHANGE_STREAMS_PER_TOKEN: '3', CHANGE_STREAMS_PER_ADDRESS: '0' }, async (server, opened) => {
      for (let i = 0; i < 3; i++) {
        const ok = await attempt(server, bearer(READ));
        opened.push(ok.stream);
        assert.equal(ok.status, 200);
      }
      const refused = await attempt(server, bearer(READ));
      opened.push(refused.stream);
      assertRefused(refused, 'TOO_MANY_STREAMS', 429);
      // The same holds for a managed token, counted apart from the environment one.
      const { token } = await createToken(server, ADMIN, { name: 'collector', scope: 'read' });
      for (let i = 0; i < 3; i++) {
        const ok = await attempt(server, bearer(token));
        opened.push(ok.stream);
        assert.equal(ok.status, 200);
      }
      const managed = await attempt(server, bearer(token));
      opened.push(managed.stream);
      assertRefused(managed, 'TOO_MANY_STREAMS', 429);
      // Another token may still open one, and a closed stream gives its place back.
      const other = await attempt(server, bearer(ADMIN));
      opened.push(other.stream);
      assert.equal(other.status, 200);
      opened[0]!.close();
      let again: Attempt | undefined;
      for (let tries = 0; tries < 50; tries++) {
        again = await attempt(server, bearer(READ));
        opened.push(again.stream);
        if (again.status === 200) break;
        await new Promise((done) => setTimeout(done, 100));
      }
      assert.equal(again?.status, 200, 'a closed stream gives its place back');
    });
  });

  test('an address holds at most CHANGE_STREAMS_PER_ADDRESS streams, whatever the tokens', async () => {
    await withServer({ CHANGE_STREAMS_PER_TOKEN: '0', CHANGE_STREAMS_PER_ADDRESS: '4' }, async (server, opened) => {
      for (const token of [READ, READ, ADMIN, ADMIN]) {
        const ok = await attempt(server, bearer(token));
        opened.push(ok.stream);
        assert.equal(ok.status, 200);
      }
      const { token } = await createToken(server, ADMIN, { name: 'fresh', scope: 'read' });
      const refused = await attempt(server, bearer(token));
      opened.push(refused.stream);
      assertRefused(refused, 'TOO_MANY_STREAMS', 429);
      // Not a stream: served as always.
      assert.equal((await server.request('GET', TAGS, { headers: bearer(token) })).status, 200);
    });
  });

  test('streams use at most half of MAX_CONNECTIONS: plain requests are still served while they are at their cap', async (t) => {
    const maxConnections = 8;
    await withServer({ MAX_CONNECTIONS: String(maxConnections), CHANGE_STREAMS_PER_TOKEN: '0', CHANGE_STREAMS_PER_ADDRESS: '0' }, async (server, opened) => {
      // One token tries to take every connection with streams.
      const attempts: Attempt[] = [];
      for (let i = 0; i < maxConnections; i++) {
        const tried = await attempt(server, bearer(READ));
        attempts.push(tried);
        if (tried.status === 200) opened.push(tried.stream);
      }
      const statuses = attempts.map((tried) => tried.status);
      t.diagnostic(`stream attempts: ${statuses.join(' ')}`);
      assert.equal(statuses.filter((status) => status === 200).length, maxConnections / 2, 'half the connections for streams');
      for (const refused of attempts.filter((tried) => tried.status !== 200)) assertRefused(refused, 'UNAVAILABLE', 503);
      // Plain requests, several at once, are served; no stream was cut to make room.
      const replies = await Promise.all(Array.from({ length: 3 }, () => server.request('GET', TAGS, { headers: bearer(READ), unchecked: false })));
      assert.deepEqual(
        replies.map((reply) => reply.status),
        [200, 200, 200],
      );
      assert.equal(opened.filter((stream) => stream.isEnded).length, 0, 'the streams stay open');
    });
  });
});
