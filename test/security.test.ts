// Access control (contract section 9) and hostile input: tokens, scopes, public paths, rate
// limits, slow clients, and bodies built to break a parser. Every refusal is a clear 4xx and
// changes nothing. The settings refused at start (bad tokens, exposed without tokens) are in
// test/process/refused-settings.test.ts: each runs the service to its exit.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { OWN_CONNECTION, serverPerSuite, startServer } from './support/server.js';
import { makeKeyPair } from './support/ssh-keys.js';

const WRITE = `w-${randomBytes(16).toString('hex')}`;
const READ = `r-${randomBytes(16).toString('hex')}`;
const TAGS = '/en/api/config/tags';
const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

describe('with tokens configured', () => {
  const server = serverPerSuite({ env: { API_TOKENS: `write:${WRITE},read:${READ}` } });

  test('no token: 401 UNAUTHORIZED with WWW-Authenticate, on every method and on unknown paths', async () => {
    for (const [method, path] of [['GET', TAGS], ['POST', TAGS], ['DELETE', `${TAGS}/1`], ['GET', '/en/api/config/nosuch'], ['GET', '/nowhere']]) {
      const reply = await server.request(method!, path!, method === 'POST' ? { body: { name: 'x' } } : {});
      assert.equal(reply.status, 401, `${method} ${path}`);
      assert.equal(reply.body.code, 'UNAUTHORIZED');
      assert.equal(reply.headers.get('www-authenticate'), 'Bearer realm="config-api"');
    }
  });

  test('a wrong or malformed credential: 401 with error="invalid_token"', async () => {
    for (const authorization of [`Bearer ${WRITE}x`, `Bearer ${WRITE.slice(0, -1)}`, 'Bearer ', `Basic ${Buffer.from(`a:${WRITE}`).toString('base64')}`, WRITE]) {
      const reply = await server.request('GET', TAGS, { headers: { authorization } });
      assert.equal(reply.status, 401, authorization.slice(0, 12));
      assert.match(reply.headers.get('www-authenticate') ?? '', /^Bearer realm="config-api"/);
    }
  });

  test('a read token reads; its writes are 403 FORBIDDEN and change nothing', async () => {
    const created = await server.request('POST', TAGS, { body: { name: 'guarded' }, headers: bearer(WRITE) });
    assert.equal(created.status, 201);
    const path = `${TAGS}/${created.body.id}`;
    assert.equal((await server.request('GET', TAGS, { headers: bearer(READ) })).status, 200);
    assert.equal((await server.request('GET', path, { headers: bearer(READ) })).status, 200);
    for (const [method, body] of [['POST', { name: 'nope' }], ['PUT', { name: 'nope' }], ['PATCH', { color: '#000000' }], ['DELETE', undefined]] as const) {
      const reply = await server.request(method, method === 'POST' ? TAGS : path, { headers: bearer(READ), ...(body === undefined ? {} : { body }) });
      assert.equal(reply.status, 403, method);
      assert.equal(reply.body.code, 'FORBIDDEN');
    }
    const list = await server.request('GET', TAGS, { headers: bearer(WRITE) });
    assert.deepEqual(list.body.items.map((t: { name: string }) => t.name), ['guarded']);
    assert.equal(list.body.items[0].color, created.body.item.color);
  });

  test('a write token does everything; the scheme is case-insensitive', async () => {
    const created = await server.request('POST', TAGS, { body: { name: 'writer' }, headers: { authorization: `bearer ${WRITE}` } });
    assert.equal(created.status, 201);
    assert.equal((await server.request('DELETE', `${TAGS}/${created.body.id}`, { headers: bearer(WRITE) })).status, 200);
  });

  test('the OpenAPI document, the docs page and the health endpoints stay public', async () => {
    for (const path of ['/en/api/openApi', '/fr/api/openApi', '/en/api/openApi.yaml', '/en/api/docs', '/healthz', '/readyz']) {
      const reply = await server.request('GET', path);
      assert.equal(reply.status, 200, path);
    }
  });

  test('logs never show a token or an Authorization header', async () => {
    await server.request('GET', `${TAGS}?token=${READ}`, { headers: bearer(READ) });
    await server.request('GET', TAGS, { headers: bearer(`${WRITE}-wrong`) });
    const logs = server.logs();
    assert.ok(!logs.includes(WRITE) && !logs.includes(READ), 'a token is in the logs');
    assert.doesNotMatch(logs, /authorization/i);
  });
});

describe('token configuration', () => {
  test('API_TOKENS_FILE: one scope:token a line, blank lines and # comments allowed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'config-api-tokens-'));
    const file = join(dir, 'tokens');
    writeFileSync(file, `# operators\nwrite:${WRITE}\n\nread:${READ}\n`, { mode: 0o600 });
    const server = await startServer({ env: { API_TOKENS_FILE: file } });
    try {
      assert.equal((await server.request('GET', TAGS, { headers: bearer(READ) })).status, 200);
      assert.equal((await server.request('POST', TAGS, { body: { name: 'f' }, headers: bearer(READ) })).status, 403);
      assert.equal((await server.request('POST', TAGS, { body: { name: 'f' }, headers: bearer(WRITE) })).status, 201);
      assert.equal((await server.request('GET', TAGS)).status, 401);
    } finally {
      await server.stop();
      await server.cleanup();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('no tokens on a loopback HOST serves anonymously; tokens on 0.0.0.0 start', async () => {
    const anonymous = await startServer({ env: { HOST: '127.0.0.1' } });
    assert.equal((await anonymous.request('GET', TAGS)).status, 200);
    await anonymous.stop();
    await anonymous.cleanup();
    const exposed = await startServer({ env: { HOST: '0.0.0.0', API_TOKENS: `read:${READ}` } });
    assert.equal((await exposed.request('GET', TAGS, { headers: bearer(READ) })).status, 200);
    await exposed.stop();
    await exposed.cleanup();
  });
});

describe('rate limit', () => {
  test('past RATE_LIMIT_PER_MINUTE a caller gets 429 RATE_LIMITED with Retry-After; others and health checks do not', async () => {
    const server = await startServer({ env: { API_TOKENS: `write:${WRITE},read:${READ}`, RATE_LIMIT_PER_MINUTE: '5' } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) statuses.push((await server.request('GET', TAGS, { headers: bearer(READ) })).status);
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429, 429]);
      const limited = await server.request('GET', TAGS, { headers: bearer(READ) });
      assert.equal(limited.body.code, 'RATE_LIMITED');
      assert.match(limited.headers.get('retry-after') ?? '', /^\d+$/);
      assert.ok(Number(limited.headers.get('retry-after')) >= 1);
      assert.equal((await server.request('GET', TAGS, { headers: bearer(WRITE) })).status, 200, 'another token has its own budget');
      assert.equal((await server.request('GET', '/healthz')).status, 200, 'health checks are not counted');
    } finally {
      await server.stop();
      await server.cleanup();
    }
  });
});

describe('slow and greedy clients', () => {
  const server = serverPerSuite({ env: { HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '2000', MAX_CONNECTIONS: '20' } });

  function open(): Promise<Socket> {
    const { hostname, port } = new URL(server.url);
    return new Promise((done, fail) => {
      const socket = connect(Number(port), hostname, () => done(socket));
      socket.on('error', fail);
      // Read whatever comes (a 408): a socket nobody reads never sees the server's close.
      socket.resume();
    });
  }

  function closedWithin(socket: Socket, ms: number): Promise<boolean> {
    return new Promise((done) => {
      if (socket.destroyed) return done(true);
      const timer = setTimeout(() => done(false), ms);
      socket.on('close', () => {
        clearTimeout(timer);
        done(true);
      });
    });
  }

  test('a client that never finishes its headers is cut off', async () => {
    const socket = await open();
    socket.on('error', () => undefined);
    socket.write('GET /en/api/config/tags HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const drip = setInterval(() => socket.writable && socket.write('X-Slow: 1\r\n'), 200);
    try {
      assert.ok(await closedWithin(socket, 6000), 'the connection stayed open');
    } finally {
      clearInterval(drip);
      socket.destroy();
    }
  });

  test('a client that never finishes its body is cut off', async () => {
    const socket = await open();
    socket.on('error', () => undefined);
    socket.write('POST /en/api/config/tags HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na');
    try {
      assert.ok(await closedWithin(socket, 8000), 'the connection stayed open');
    } finally {
      socket.destroy();
    }
    assert.equal((await server.request('GET', TAGS)).body.total, 0, 'nothing was created');
  });

  // test/connection-faults.test.ts looks at this in detail; here, with the time-outs above.
  test('past MAX_CONNECTIONS the connections idle for longest make room, and a new client is served', async () => {
    const sockets: Socket[] = [];
    try {
      // Two past the limit: the suite's own idle keep-alive connection, if there is one, may go first.
      for (let i = 0; i < 22; i++) sockets.push(await open());
      for (const socket of sockets) socket.on('error', () => undefined);
      // Well before the header time-out (1 s) would close it anyway.
      assert.ok(await closedWithin(sockets[0]!, 500), 'the oldest idle connection was closed to make room');
      assert.equal(sockets.at(-1)!.destroyed, false, 'the newest was kept');
      assert.equal((await server.request('GET', TAGS)).status, 200);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  });
});

describe('hostile input', () => {
  const server = serverPerSuite();

  async function snapshot(): Promise<unknown> {
    const lists = await Promise.all(
      ['tags', 'clients', 'environments', 'servers'].map((r) => server.request('GET', `/en/api/config/${r}?limit=1000&${r === 'servers' ? 'include_deleted=true' : ''}`)),
    );
    return lists.map((list) => list.body);
  }

  async function refusedWithoutChange(send: () => Promise<{ status: number; body: any }>, status: number, code?: string): Promise<void> {
    const before = await snapshot();
    const reply = await send();
    assert.equal(reply.status, status, JSON.stringify(reply.body));
    if (code !== undefined) assert.equal(reply.body.code, code);
    assert.deepEqual(await snapshot(), before, 'a refused request changed the data');
  }

  test('deeply nested JSON', async () => {
    await refusedWithoutChange(() => server.request('POST', TAGS, { raw: `${'['.repeat(200_000)}${']'.repeat(200_000)}`, headers: { 'content-type': 'application/json' } }), 400, 'MALFORMED_JSON');
    await refusedWithoutChange(() => server.request('POST', TAGS, { raw: `{"name":${'{"a":'.repeat(100)}1${'}'.repeat(100)}}`, headers: { 'content-type': 'application/json' } }), 400, 'MALFORMED_JSON');
  });

  test('huge JSON within the limit: a long string and a long array', async () => {
    await refusedWithoutChange(() => server.request('POST', TAGS, { body: { name: 'x'.repeat(1_000_000) } }), 422, 'VALIDATION_FAILED');
    await refusedWithoutChange(() => server.request('POST', TAGS, { body: { name: Array.from({ length: 100_000 }, () => 1) } }), 422, 'VALIDATION_FAILED');
  });

  test('duplicate keys are refused, whatever the spelling of the key', async () => {
    await refusedWithoutChange(() => server.request('POST', TAGS, { raw: '{"name":"a","name":"b"}', headers: { 'content-type': 'application/json' } }), 400, 'MALFORMED_JSON');
    await refusedWithoutChange(() => server.request('POST', TAGS, { raw: '{"name":"a","n\\u0061me":"b"}', headers: { 'content-type': 'application/json' } }), 400, 'MALFORMED_JSON');
    const ok = await server.request('POST', TAGS, { raw: '{"name":"dup-ok","color":"#ffffff","x":{"name":1}}', headers: { 'content-type': 'application/json' } });
    assert.equal(ok.status, 422, 'the same key in another object is not a duplicate');
  });

  test('__proto__ and constructor keys', async () => {
    for (const raw of ['{"__proto__":{"admin":true},"name":"p"}', '{"name":"p","constructor":{"prototype":{"x":1}}}', '[{"__proto__":1}]']) {
      await refusedWithoutChange(() => server.request('POST', TAGS, { raw, headers: { 'content-type': 'application/json' } }), 400, 'MALFORMED_JSON');
    }
    await refusedWithoutChange(() => server.request('POST', TAGS, { body: { name: 'p', constructor: 1 } }), 422, 'VALIDATION_FAILED');
  });

  test('invalid UTF-8', async () => {
    for (const bytes of [Buffer.from([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]), Buffer.from('{"name":"\xc3"}', 'latin1')]) {
      const before = await snapshot();
      const response = await fetch(`${server.url}${TAGS}`, { method: 'POST', headers: { 'content-type': 'application/json', ...OWN_CONNECTION }, body: bytes });
      assert.equal(response.status, 400);
      assert.equal(((await response.json()) as { code: string }).code, 'MALFORMED_JSON');
      assert.deepEqual(await snapshot(), before);
    }
  });

  test('NUL and control characters in every kind of string field', async () => {
    for (const bad of ['a\u0000b', 'a\u0007', '\u001b[31mred', 'a\u0085b', 'x\u007f']) {
      await refusedWithoutChange(() => server.request('POST', TAGS, { body: { name: bad } }), 422);
      await refusedWithoutChange(() => server.request('POST', '/en/api/config/servers', { body: { ip: '10.0.0.1', hostname: bad } }), 422);
      await refusedWithoutChange(() => server.request('POST', '/en/api/config/clients', { body: { libelle: 'c', logo: bad } }), 422);
    }
  });

  test('numbers out of range and of the wrong kind', async () => {
    for (const port of [0, -1, 65536, 1e400, 3306.5, 2 ** 53, '3306', null, true, [3306], { n: 1 }]) {
      await refusedWithoutChange(() => server.request('POST', '/en/api/config/servers', { raw: `{"ip":"10.0.0.9","port":${JSON.stringify(port) ?? '1e400'}}`, headers: { 'content-type': 'application/json' } }), 422);
    }
    await refusedWithoutChange(() => server.request('POST', '/en/api/config/servers', { raw: '{"ip":"10.0.0.9","port":1e400}', headers: { 'content-type': 'application/json' } }), 422);
  });

  test('arrays and scalars where an object belongs', async () => {
    // An array of objects is a bulk create (section 12); these are not.
    for (const raw of ['[]', '[1]', '[["name"]]', '"name"', '42', 'true', 'null']) {
      await refusedWithoutChange(() => server.request('POST', TAGS, { raw, headers: { 'content-type': 'application/json' } }), 422, 'VALIDATION_FAILED');
    }
  });

  test('SQL fragments in every string, filter and sort parameter are plain data', async () => {
    const fragments = ["'; DROP TABLE tags; --", '" OR 1=1 --', "x') UNION SELECT * FROM ssh_keys --", '%', '_', '\\'];
    for (const fragment of fragments) {
      const created = await server.request('POST', TAGS, { body: { name: fragment } });
      assert.equal(created.status, 201, fragment);
      assert.equal(created.body.item.name, fragment);
      const found = await server.request('GET', `${TAGS}?name=${encodeURIComponent(fragment)}`);
      assert.deepEqual(found.body.items.map((t: { id: number }) => t.id), [created.body.id]);
      const searched = await server.request('GET', `${TAGS}?q=${encodeURIComponent(fragment)}`);
      assert.ok(searched.body.items.some((t: { id: number }) => t.id === created.body.id));
      await refusedWithoutChange(() => server.request('GET', `${TAGS}?sort=${encodeURIComponent(fragment)}`), 400, 'BAD_QUERY');
      await refusedWithoutChange(() => server.request('GET', `${TAGS}?${encodeURIComponent(fragment)}=1`), 400, 'BAD_QUERY');
    }
    assert.equal((await server.request('GET', TAGS)).status, 200, 'the table is still there');
  });

  test('very long URLs and query strings', async () => {
    const long = await server.request('GET', `${TAGS}/${'9'.repeat(5000)}`);
    assert.equal(long.status, 404);
    const query = await server.request('GET', `${TAGS}?q=${'a'.repeat(8000)}`);
    assert.equal(query.status, 400);
    const many = await server.request('GET', `${TAGS}?${Array.from({ length: 500 }, (_, i) => `f${i}=1`).join('&')}`);
    assert.equal(many.status, 400);
    const huge = await fetch(`${server.url}${TAGS}?q=${'a'.repeat(100_000)}`).catch(() => undefined);
    if (huge !== undefined) assert.ok(huge.status >= 400 && huge.status < 500, `status ${huge.status}`);
    assert.equal((await server.request('GET', '/healthz')).status, 200, 'still serving');
  });
});

describe('encryption key rotation', () => {
  function rotate(databaseUrl: string, current: string, next: string): { status: number | null; stdout: string; stderr: string } {
    const run = spawnSync(process.execPath, [resolve(import.meta.dirname, '../dist/rotate-secret-key-cli.js')], {
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl, SECRET_KEY: current, NEW_SECRET_KEY: next },
      encoding: 'utf8',
      timeout: 20_000,
    });
    return { status: run.status, stdout: run.stdout, stderr: run.stderr };
  }

  test('npm run rotate-secret-key re-seals the stored private keys; only the new key opens them afterwards', async () => {
    const oldKey = randomBytes(32).toString('hex');
    const newKey = randomBytes(32).toString('base64');
    const pair = makeKeyPair('ED25519', 'rotate@example');
    const first = await startServer({ env: { SECRET_KEY: oldKey } });
    const created = await first.request('POST', '/en/api/config/ssh-keys', { body: { type: pair.type, pub: pair.pub, 'privée': pair.openssh } });
    assert.equal(created.status, 201);
    assert.equal(await first.stop(), 0);
    const { database, dataDir } = first;
    try {
      const wrong = rotate(database.url, randomBytes(32).toString('hex'), newKey);
      assert.notEqual(wrong.status, 0, 'a wrong current key must not rotate anything');
      assert.match(wrong.stderr, /nothing was changed/);

      const done = rotate(database.url, oldKey, newKey);
      assert.equal(done.status, 0, done.stderr);
      assert.match(done.stdout, /1 secret\(s\) re-sealed/);
      assert.ok(!done.stdout.includes(oldKey) && !done.stdout.includes(newKey) && !done.stderr.includes(newKey));

      await assert.rejects(startServer({ database, dataDir, env: { SECRET_KEY: oldKey } }), /not the one that sealed/);
      const second = await startServer({ database, dataDir, env: { SECRET_KEY: newKey } });
      try {
        const renamed = pair.pub.replace('rotate@example', 'rotated@example');
        const put = await second.request('PUT', `/en/api/config/ssh-keys/${created.body.id}`, { body: { type: pair.type, pub: renamed } });
        assert.equal(put.status, 200, put.text);
      } finally {
        await second.stop();
      }
    } finally {
      await first.cleanup();
    }
  });
});
