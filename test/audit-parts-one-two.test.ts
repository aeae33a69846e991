// Findings of the black-box audit of contract parts one and two (sections 2-15) that the other
// suites did not hold: each test is one request the contract answers and the service did not.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { serverPerSuite } from './support/server.js';
import { bearer, createToken } from './support/tokens.js';

const server = serverPerSuite();

describe('audit of parts one and two', () => {
  // Section 11: tags is "at most 100"; add_tags grew the set past it without a word.
  test('add_tags cannot grow a server past 100 tags; nothing stored, nothing recorded', async () => {
    const names = Array.from({ length: 102 }, (_, index) => ({ name: `audit-many-${index}` }));
    const tags = await server.request('POST', '/en/api/config/tags', { body: names });
    assert.equal(tags.status, 201, tags.text);
    const ids: number[] = tags.body.items.map((item: { id: number }) => item.id);
    const created = await server.request('POST', '/en/api/config/servers', { body: { ip: '10.9.9.9', tags: ids.slice(0, 100) } });
    assert.equal(created.status, 201, created.text);
    const path = `/en/api/config/servers/${created.body.id}`;
    const history = async () => (await server.request('GET', `${path}/history`)).body.total as number;
    const recorded = await history();
    const over = await server.request('PATCH', path, { body: { add_tags: ids.slice(100) } });
    assert.equal(over.status, 422, over.text);
    assert.equal(over.body.code, 'VALIDATION_FAILED');
    assert.equal(over.body.errors[0].field, 'tags');
    const stored = await server.request('GET', path);
    assert.equal(stored.body.item.tags.length, 100, 'the set stays at 100');
    assert.equal(await history(), recorded, 'no change recorded');
    // Swapping within the limit is fine.
    const swap = await server.request('PATCH', path, { body: { add_tags: ids.slice(100), remove_tags: ids.slice(0, 2) } });
    assert.equal(swap.status, 200, swap.text);
    assert.equal(swap.body.item.tags.length, 100);
  });
});

describe('audit of parts one and two: text', () => {
  // Section 2's answers show the entry as stored, and section 12's no-op rule needs the value
  // sent to be the value stored: a lone surrogate escape was accepted, answered as sent and
  // stored as U+FFFD, so sending it again was a change every time.
  test('a string with a lone surrogate escape is refused as malformed; nothing stored', async () => {
    for (const raw of ['{"name":"surrogate-lone-\\ud800"}', '[{"name":"surrogate-ok"},{"name":"surrogate-\\udc00-low"}]', '{"name":"surrogate-k","\\ud83d":1}']) {
      const reply = await server.request('POST', '/en/api/config/tags', { raw, headers: { 'content-type': 'application/json' } });
      assert.equal(reply.status, 400, reply.text);
      assert.equal(reply.body.code, 'MALFORMED_JSON');
    }
    const stored = await server.request('GET', '/en/api/config/tags?q=surrogate-');
    assert.equal(stored.body.total, 0, 'nothing stored');
    // An escaped pair is one character, stored and answered as it was sent.
    const pair = await server.request('POST', '/en/api/config/tags', { raw: '{"name":"surrogate-pair-\\ud83c\\udf89"}', headers: { 'content-type': 'application/json' } });
    assert.equal(pair.status, 201, pair.text);
    assert.equal(pair.body.item.name, 'surrogate-pair-🎉');
    const read = await server.request('GET', `/en/api/config/tags/${pair.body.id}`);
    assert.equal(read.body.item.name, 'surrogate-pair-🎉');
  });
});

describe('audit of parts one and two: refusals that say what is wrong', () => {
  // A ninth sort key was refused as if the list were not one of distinct fields.
  test('a sort of more keys than allowed says how many are', async () => {
    const keys = ['hostname', 'ip', 'port', 'id_client', 'id_environment', 'created_at', 'updated_at', 'is_monitored', 'ssl'];
    const nine = await server.request('GET', `/en/api/config/servers?sort=${keys.join(',')}`);
    assert.equal(nine.status, 400, nine.text);
    assert.equal(nine.body.code, 'BAD_QUERY');
    assert.match(nine.body.detail, /at most 8 distinct fields/);
    const eight = await server.request('GET', `/en/api/config/servers?sort=${keys.slice(0, 8).join(',')}`);
    assert.equal(eight.status, 200, eight.text);
  });

  // Section 4: a 409 names the referencing entries; it named the first 20 as if they were all.
  test('a 409 REFERENCED says when more entries use it than it names', async () => {
    const client = async (libelle: string, servers: number) => {
      const created = await server.request('POST', '/en/api/config/clients', { body: { libelle } });
      assert.equal(created.status, 201, created.text);
      const body = Array.from({ length: servers }, (_, index) => ({ ip: `10.77.${servers}.${index + 1}`, id_client: created.body.id }));
      assert.equal((await server.request('POST', '/en/api/config/servers', { body })).status, 201);
      return server.request('DELETE', `/en/api/config/clients/${created.body.id}`);
    };
    const twenty = await client('audit-used-by-20', 20);
    assert.equal(twenty.status, 409, twenty.text);
    assert.equal(twenty.body.code, 'REFERENCED');
    assert.equal(twenty.body.referenced_by[0].ids.length, 20);
    assert.doesNotMatch(twenty.body.detail, /others/);
    const more = await client('audit-used-by-21', 21);
    assert.equal(more.status, 409, more.text);
    assert.equal(more.body.referenced_by[0].ids.length, 20, 'the first 20 are named');
    assert.match(more.body.detail, /and others \(the first 20 of each are named\)/);
  });
});

// Last: its first token turns access on for the rest of the suite.
describe('audit of parts one and two: tokens', () => {
  let adminToken = '';
  before(async () => {
    adminToken = (await createToken(server, undefined, { name: 'audit-admin', scope: 'admin' })).token;
  });

  // Section 8 ("single-entry responses carry an ETag") and 15 ("list responses carry an
  // ETag") hold in part two unless it says otherwise; the token endpoints answered without one.
  test('token creations, reads and lists carry an ETag, and If-None-Match answers 304 while nothing changed', async () => {
    const admin = bearer(adminToken);
    const issued = await server.request('POST', '/en/api/tokens', { body: { name: 'audit-reader', scope: 'read' }, headers: admin });
    assert.equal(issued.status, 201, issued.text);
    const other = issued.body as { id: number; token: string };
    // The admin's own entry changes with every request it makes (last_used_at): read another.
    for (const path of [`/en/api/tokens/${other.id}`, '/en/api/tokens?name=audit-reader']) {
      const first = await server.request('GET', path, { headers: admin });
      assert.equal(first.status, 200, first.text);
      const etag = first.headers.get('etag');
      assert.match(etag ?? '', /^"[^"]+"$/, `${path} carries an ETag`);
      const again = await server.request('GET', path, { headers: { ...admin, 'if-none-match': etag! } });
      assert.equal(again.status, 304, `${path}: ${again.text}`);
      assert.equal(again.headers.get('etag'), etag);
    }
    // The creation's answer carried the entry's tag already (nothing used the token since).
    assert.equal(issued.headers.get('etag'), (await server.request('GET', `/en/api/tokens/${other.id}`, { headers: admin })).headers.get('etag'));
    // The reader's use changes its last_used_at, so its entry and the list change too.
    const earlier = await server.request('GET', `/en/api/tokens/${other.id}`, { headers: admin });
    await server.request('GET', '/en/api/config/tags', { headers: bearer(other.token) });
    const after = await server.request('GET', `/en/api/tokens/${other.id}`, { headers: { ...admin, 'if-none-match': earlier.headers.get('etag')! } });
    assert.equal(after.status, 200, after.text);
    assert.notEqual(after.body.item.last_used_at, earlier.body.item.last_used_at);
  });

  // Section 11: older clients read `item` on a 404 of an entry; a token's 404 left it out.
  test('a 404 of a token carries "item": null, as any entry’s does', async () => {
    for (const method of ['GET', 'DELETE'] as const) {
      const reply = await server.request(method, '/en/api/tokens/999999', { headers: bearer(adminToken) });
      assert.equal(reply.status, 404, reply.text);
      assert.equal(reply.body.code, 'NOT_FOUND');
      assert.ok('item' in reply.body && reply.body.item === null, `${method}: ${reply.text}`);
    }
  });

  // Section 8: If-Match on DELETE gives 412 when the entry changed since; a token's revocation
  // ignored it and revoked whatever the token had become.
  test('a revocation with a stale If-Match is 412 and the token keeps working; the current tag revokes it', async () => {
    const admin = bearer(adminToken);
    const reader = await createToken(server, adminToken, { name: 'audit-revoked', scope: 'read' });
    const path = `/en/api/tokens/${reader.id}`;
    const seen = (await server.request('GET', path, { headers: admin })).headers.get('etag')!;
    // Its use moves last_used_at: the tag seen before no longer names the token.
    assert.equal((await server.request('GET', '/en/api/config/tags', { headers: bearer(reader.token) })).status, 200);
    const stale = await server.request('DELETE', path, { headers: { ...admin, 'if-match': seen } });
    assert.equal(stale.status, 412, stale.text);
    assert.equal(stale.body.code, 'PRECONDITION_FAILED');
    assert.equal((await server.request('GET', '/en/api/config/tags', { headers: bearer(reader.token) })).status, 200, 'still valid');
    const current = (await server.request('GET', path, { headers: admin })).headers.get('etag')!;
    const revoked = await server.request('DELETE', path, { headers: { ...admin, 'if-match': current } });
    assert.equal(revoked.status, 200, revoked.text);
    assert.equal((await server.request('GET', '/en/api/config/tags', { headers: bearer(reader.token) })).status, 401);
  });
});
