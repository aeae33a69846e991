// Managed API tokens through the API (contract section 14): creation shows the secret once,
// reads never do, names are unique, scopes read/write/admin hold, a revoked token is refused
// at once, an expired one with a 401 that says so, one used from outside its allowed_ips
// with a 403; environment tokens have names; the database and the logs hold no token.
import assert from 'node:assert/strict';
import { Agent, request as httpRequest } from 'node:http';
import { describe, test } from 'node:test';
import { logLines } from './support/log-lines.js';
import { serverPerSuite } from './support/server.js';
import { TAGS, TOKENS, TOKEN_SHAPE, assertHoldsNone, bearer, createToken, secret } from './support/tokens.js';

const ADMIN = secret('adm');
const WRITE = secret('wrt');
const READ = secret('rd');

describe('managed tokens', () => {
  const server = serverPerSuite({ env: { API_TOKENS: `root=admin:${ADMIN},ci=write:${WRITE},read:${READ}` } });
  const issued: string[] = [];
  const create = async (body: Record<string, unknown>) => {
    const created = await createToken(server, ADMIN, body);
    issued.push(created.token);
    return created;
  };

  test('POST answers the token once (prefix, 256 bits), with Location and no-store; reads never show it', async () => {
    const reply = await server.request('POST', TOKENS, {
      body: { name: 'collector-paris', scope: 'read', expires_at: '2031-06-01T12:00:00+02:00', allowed_ips: ['10.20.0.0/16', '2001:DB8:20::/48', '10.20.0.0/16'] },
      headers: bearer(ADMIN),
    });
    assert.equal(reply.status, 201, reply.text);
    issued.push(reply.body.token);
    assert.match(reply.body.token, TOKEN_SHAPE);
    assert.equal(reply.headers.get('location'), `/en/api/tokens/${reply.body.id}`);
    assert.equal(reply.headers.get('cache-control'), 'no-store');
    assert.deepEqual(
      { ...reply.body.item, created_at: undefined, updated_at: undefined },
      {
        id: reply.body.id,
        name: 'collector-paris',
        scope: 'read',
        expires_at: '2031-06-01T10:00:00.000Z',
        allowed_ips: ['10.20.0.0/16', '2001:db8:20::/48'],
        last_used_at: null,
        created_at: undefined,
        updated_at: undefined,
      },
    );
    const one = await server.request('GET', `${TOKENS}/${reply.body.id}`, { headers: bearer(ADMIN) });
    assert.deepEqual(one.body.item, reply.body.item);
    const list = await server.request('GET', `${TOKENS}?name=collector-paris`, { headers: bearer(ADMIN) });
    assert.deepEqual(list.body.items, [reply.body.item]);
    for (const text of [one.text, list.text]) assert.ok(!text.includes(reply.body.token) && !text.includes('digest'));
    const other = await create({ name: 'second', scope: 'write' });
    assert.notEqual(other.token, reply.body.token);
  });

  test('refusals: 422 for a faulty body, 409 for a name taken by a managed or an environment token', async () => {
    const refused = async (body: unknown, status: number, field: string) => {
      const reply = await server.request('POST', TOKENS, { body, headers: bearer(ADMIN) });
      assert.equal(reply.status, status, `${JSON.stringify(body)}: ${reply.text}`);
      assert.ok(reply.body.errors.some((e: { field: string }) => e.field === field), reply.text);
    };
    await refused({ scope: 'read' }, 422, 'name');
    await refused({ name: 'has space', scope: 'read' }, 422, 'name');
    await refused({ name: 'x', scope: 'owner' }, 422, 'scope');
    await refused({ name: 'x', scope: 'read', expires_at: '2020-01-01T00:00:00Z' }, 422, 'expires_at');
    await refused({ name: 'x', scope: 'read', expires_at: 'tomorrow' }, 422, 'expires_at');
    // A leap second is RFC 3339, but no instant JavaScript can hold (it answered 500).
    await refused({ name: 'x', scope: 'read', expires_at: '2030-12-31T23:59:60Z' }, 422, 'expires_at');
    for (const ranges of [[], ['10.0.0.1/8'], ['10.1'], ['2001:db8::/129'], ['fe80::1%eth0'], '10.0.0.0/8'] as unknown[]) {
      await refused({ name: 'x', scope: 'read', allowed_ips: ranges }, 422, 'allowed_ips');
    }
    await refused({ name: 'x', scope: 'read', token: 'pmcapi_mine' }, 422, 'token');
    await create({ name: 'taken', scope: 'read' });
    for (const name of ['taken', 'root', 'api-tokens-3', 'anonymous']) await refused({ name, scope: 'read' }, 409, 'name');
  });

  test('scopes: read reads, write writes the configuration, only admin manages tokens', async () => {
    const reader = await create({ name: 'reader', scope: 'read' });
    const writer = await create({ name: 'writer', scope: 'write' });
    const admin = await create({ name: 'admin2', scope: 'admin' });
    assert.equal((await server.request('GET', TAGS, { headers: bearer(reader.token) })).status, 200);
    const readOnly = await server.request('POST', TAGS, { body: { name: 'r' }, headers: bearer(reader.token) });
    assert.equal(readOnly.status, 403);
    assert.match(readOnly.body.detail, /only read/);
    assert.equal((await server.request('POST', TAGS, { body: { name: 'w' }, headers: bearer(writer.token) })).status, 201);
    for (const token of [reader.token, writer.token, WRITE, READ]) {
      for (const [method, path] of [['GET', TOKENS], ['POST', TOKENS], ['GET', `${TOKENS}/${reader.id}`], ['DELETE', `${TOKENS}/${reader.id}`]] as const) {
        const reply = await server.request(method, path, { headers: bearer(token), ...(method === 'POST' ? { body: { name: 'nope', scope: 'admin' } } : {}) });
        assert.equal(reply.status, 403, `${method} ${path}`);
        assert.match(reply.body.detail, /admin/);
      }
    }
    const made = await createToken(server, admin.token, { name: 'made-by-admin2', scope: 'read' });
    issued.push(made.token);
    assert.equal((await server.request('POST', TAGS, { body: { name: 'a' }, headers: bearer(admin.token) })).status, 201);
    assert.equal((await server.request('GET', `${TOKENS}/${reader.id}`, { headers: bearer(admin.token) })).status, 200);
  });

  test('DELETE revokes at once; the revoked token is 401, and is gone', async () => {
    const doomed = await create({ name: 'doomed', scope: 'write' });
    assert.equal((await server.request('GET', TAGS, { headers: bearer(doomed.token) })).status, 200);
    const revoked = await server.request('DELETE', `${TOKENS}/${doomed.id}`, { headers: bearer(ADMIN) });
    assert.deepEqual([revoked.status, revoked.body], [200, { id: doomed.id, deleted: true, mode: 'hard' }]);
    const refused = await server.request('GET', TAGS, { headers: bearer(doomed.token) });
    assert.equal(refused.status, 401);
    assert.equal(refused.headers.get('www-authenticate'), 'Bearer realm="config-api", error="invalid_token"');
    assert.equal((await server.request('DELETE', `${TOKENS}/${doomed.id}`, { headers: bearer(ADMIN) })).status, 404);
    assert.equal((await server.request('GET', `${TOKENS}/${doomed.id}`, { headers: bearer(ADMIN) })).status, 404);
    assert.equal((await server.request('GET', `${TOKENS}/abc`, { headers: bearer(ADMIN) })).status, 404);
    assert.equal((await server.request('PATCH', `${TOKENS}/1`, { headers: bearer(ADMIN), body: {} })).status, 405);
  });

  test('a revoked token is refused at once on a keep-alive connection that used it before (the connection memo)', async () => {
    const doomed = await create({ name: 'doomed-keep-alive', scope: 'read' });
    // One connection for both GETs: the service remembers its header between them.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const sockets = new Set<unknown>();
    const get = () =>
      new Promise<number>((done, fail) => {
        const sent = httpRequest(`${server.url}${TAGS}`, { agent, headers: bearer(doomed.token) }, (response) => {
          sockets.add(response.socket);
          response.resume();
          response.on('end', () => done(response.statusCode ?? 0));
        });
        sent.on('error', fail);
        sent.end();
      });
    try {
      assert.deepEqual([await get(), await get()], [200, 200]);
      assert.equal((await server.request('DELETE', `${TOKENS}/${doomed.id}`, { headers: bearer(ADMIN) })).status, 200);
      assert.equal(await get(), 401);
      assert.equal(sockets.size, 1, 'the three GETs went over one connection');
    } finally {
      agent.destroy();
    }
  });

  test('an expired token is 401 with a detail and a challenge that say it expired', async () => {
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const brief = await create({ name: 'brief', scope: 'read', expires_at: expiresAt });
    assert.equal((await server.request('GET', TAGS, { headers: bearer(brief.token) })).status, 200);
    await new Promise((done) => setTimeout(done, Date.parse(expiresAt) - Date.now() + 50));
    const expired = await server.request('GET', TAGS, { headers: bearer(brief.token) });
    assert.equal(expired.status, 401);
    assert.match(expired.body.detail, /expired/);
    assert.match(expired.headers.get('www-authenticate') ?? '', /error="invalid_token", error_description="The access token expired"/);
    const french = await server.request('GET', '/fr/api/config/tags', { headers: bearer(brief.token) });
    assert.match(french.body.detail, /expiré/);
  });

  test('allowed_ips: a client outside the ranges is 403, inside is served; X-Forwarded-For is ignored without TRUST_PROXY', async () => {
    const remote = await create({ name: 'remote-only', scope: 'read', allowed_ips: ['10.0.0.0/8', '2001:db8::/32'] });
    const local = await create({ name: 'local-only', scope: 'read', allowed_ips: ['192.0.2.0/24', '127.0.0.0/8'] });
    const outside = await server.request('GET', TAGS, { headers: { ...bearer(remote.token), 'x-forwarded-for': '10.1.2.3' } });
    assert.equal(outside.status, 403);
    assert.match(outside.body.detail, /address/);
    assert.equal((await server.request('GET', TAGS, { headers: bearer(local.token) })).status, 200);
  });

  test('last_used_at: null until used, then the time of the last use', async () => {
    const fresh = await create({ name: 'fresh', scope: 'read' });
    const path = `${TOKENS}/${fresh.id}`;
    assert.equal((await server.request('GET', path, { headers: bearer(ADMIN) })).body.item.last_used_at, null);
    const before = Date.now();
    await server.request('GET', TAGS, { headers: bearer(fresh.token) });
    const used = Date.parse((await server.request('GET', path, { headers: bearer(ADMIN) })).body.item.last_used_at);
    assert.ok(used >= before - 5 && used <= Date.now(), `last_used_at ${used}`);
  });

  test('the database and the logs hold no token and no plain SHA-256 of one; log lines name the actor', async () => {
    assert.ok(issued.length >= 10);
    const everything = [...issued, ADMIN, WRITE, READ];
    assertHoldsNone(await server.dump(), everything, 'the database');
    assertHoldsNone(server.logs(), everything, 'the logs');
    const actors = new Set(logLines(server.logs()).map((line) => line.actor));
    for (const actor of ['root', 'ci', 'api-tokens-3', 'reader', 'writer', 'admin2', 'anonymous']) assert.ok(actors.has(actor), actor);
  });
});
