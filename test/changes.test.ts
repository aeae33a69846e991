// Contract section 13, the change log: one record per committed create, update, delete and
// restore (each entry of a bulk write too, each server a tag delete unlinks), with exact
// before/after snapshots, actor and request id; nothing for a dry run, a refusal or a write
// that changes nothing; the list with its filters, paging and 400s; an entry's history (also
// after a hard delete); key material nowhere (responses, stream, logs, the database's bytes);
// and retention (CHANGELOG_RETENTION_DAYS, at start-up and every CHANGELOG_PRUNE_INTERVAL_MS).
import assert from 'node:assert/strict';
import { createPrivateKey, randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { runStatement as sql } from './support/database-statement.js';
import { changesAfter, lastChangeId, openStream, type ChangeRecord } from './support/change-stream.js';
import { serverPerSuite, startServer, type Reply, type TestServer } from './support/server.js';
import { makeKeyPair, type TestKeyPair } from './support/ssh-keys.js';
import type { TestDatabase } from './support/test-database.js';
import { bearer, secret } from './support/tokens.js';

const API = '/en/api/config';
const CHANGES = '/en/api/changes';
const RECORD_KEYS = ['action', 'actor', 'after', 'at', 'before', 'entry_id', 'id', 'request_id', 'resource', 'secrets_changed'];
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;
const DAY_MS = 86_400_000;

let counter = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${++counter}`;
/** A request id of the safe form the service keeps. */
const requestId = (label: string) => `chg-${label}-${randomBytes(4).toString('hex')}`;

/** Everything the database holds (file bytes for SQLite), and the change table's rows as text. */
async function databaseText(server: TestServer): Promise<string> {
  const rows = await sql(server.database, 'SELECT * FROM change_log');
  const text = JSON.stringify(rows, (_key, value) => (typeof value === 'bigint' ? String(value) : value));
  const buffers = rows.flatMap((row) => Object.values(row).filter((value): value is Buffer => Buffer.isBuffer(value)).map((value) => value.toString('latin1')));
  return [await server.dump(), text, ...buffers].join('\n');
}

/** Every form a private key could leak in: its text (as is and JSON-escaped), each base64
 * line of it that is not public (in `pub`), and its secret numbers (base64url, base64, hex and
 * raw bytes, for the SQLite file). */
function keyMaterial(pair: TestKeyPair): string[] {
  const forms: string[] = [];
  for (const text of [pair.openssh, pair.pem]) {
    forms.push(text.trim(), JSON.stringify(text.trim()).slice(1, -1));
    for (const line of text.split('\n')) {
      if (line.length >= 40 && !line.startsWith('-----') && !pair.pub.includes(line)) forms.push(line);
    }
  }
  const jwk = createPrivateKey(pair.pem).export({ format: 'jwk' });
  for (const part of [jwk.d, jwk.p, jwk.q]) {
    if (typeof part !== 'string') continue;
    const bytes = Buffer.from(part, 'base64url');
    forms.push(part, bytes.toString('base64'), bytes.toString('hex'), bytes.toString('latin1'));
  }
  return forms;
}

function assertNoKeyMaterial(text: string, pairs: readonly TestKeyPair[], where: string): void {
  for (const pair of pairs) {
    for (const form of keyMaterial(pair)) assert.ok(!text.includes(form), `${where} holds private key material`);
  }
}

interface Expected {
  action: ChangeRecord['action'];
  resource: string;
  entry_id: number;
  request_id: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  actor?: string;
  secrets_changed?: string[];
}

/** A record is exactly what is expected: its keys, id, time, and every field. */
function assertRecord(record: ChangeRecord | undefined, expected: Expected, window?: { from: number; to: number }): void {
  assert.ok(record, `no record for ${expected.action} ${expected.resource} ${expected.entry_id}`);
  assert.deepEqual(Object.keys(record).sort(), RECORD_KEYS);
  assert.ok(Number.isSafeInteger(record.id) && record.id > 0, `id ${record.id}`);
  assert.match(record.at, ISO_UTC);
  if (window !== undefined) {
    const at = Date.parse(record.at);
    assert.ok(at >= window.from - 1000 && at <= window.to + 1000, `at ${record.at} is the time of the change`);
  }
  const { id: _id, at: _at, ...rest } = record;
  assert.deepEqual(rest, { actor: 'anonymous', secrets_changed: [], ...expected });
}

const ids = (records: readonly ChangeRecord[]) => records.map((record) => record.id);
const requestIds = (records: readonly ChangeRecord[]) => records.map((record) => record.request_id);

function assertAscending(records: readonly ChangeRecord[]): void {
  for (let i = 1; i < records.length; i++) assert.ok(records[i]!.id > records[i - 1]!.id, `ids ascend: ${records[i - 1]!.id} then ${records[i]!.id}`);
}

describe('the change log (anonymous access)', { timeout: 300_000 }, () => {
  const server = serverPerSuite();
  /** The last record id seen: each test reads what it made after it. */
  let mark = 0;
  const newRecords = async (): Promise<ChangeRecord[]> => {
    const records = await changesAfter(server, mark);
    assertAscending(records);
    mark = records.at(-1)?.id ?? mark;
    return records;
  };

  const send = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> =>
    server.request(method, path, { ...(body === undefined ? {} : { body }), headers });
  const write = async (status: number, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> => {
    const reply = await send(method, path, body, headers);
    assert.equal(reply.status, status, `${method} ${path}: ${reply.text}`);
    return reply;
  };
  const read = async (resource: string, id: number): Promise<Record<string, any>> => (await write(200, 'GET', `${API}/${resource}/${id}`)).body.item;

  test('create, PATCH, PUT and hard delete: one record each, before/after exactly as GET shows the entry', async () => {
    await newRecords();
    const from = Date.now();
    const rids = [requestId('create'), requestId('patch'), requestId('put'), requestId('delete')];
    const created = await write(201, 'POST', `${API}/tags`, { name: unique('tag'), color: '#010203' }, { 'x-request-id': rids[0]! });
    assert.equal(created.headers.get('x-request-id'), rids[0], 'a safe X-Request-Id is kept');
    const id = created.body.id as number;
    const v1 = await read('tags', id);
    await write(200, 'PATCH', `${API}/tags/${id}`, { color: '#101010' }, { 'x-request-id': rids[1]! });
    const v2 = await read('tags', id);
    await write(200, 'PUT', `${API}/tags/${id}`, { name: unique('tag'), background: '#202020' }, { 'x-request-id': rids[2]! });
    const v3 = await read('tags', id);
    assert.equal(v3.color, '#ffffff', 'PUT is a full replacement');
    await write(200, 'DELETE', `${API}/tags/${id}`, undefined, { 'x-request-id': rids[3]! });
    const window = { from, to: Date.now() };

    const records = await newRecords();
    assert.equal(records.length, 4, JSON.stringify(records));
    const base = { resource: 'tags', entry_id: id };
    assertRecord(records[0], { ...base, action: 'create', request_id: rids[0]!, before: null, after: v1 }, window);
    assertRecord(records[1], { ...base, action: 'update', request_id: rids[1]!, before: v1, after: v2 }, window);
    assertRecord(records[2], { ...base, action: 'update', request_id: rids[2]!, before: v2, after: v3 }, window);
    assertRecord(records[3], { ...base, action: 'delete', request_id: rids[3]!, before: v3, after: null }, window);
    for (let i = 1; i < records.length; i++) assert.ok(records[i]!.at >= records[i - 1]!.at, 'times do not go back');
  });

  test('request_id: a generated one, or one that replaces an unsafe X-Request-Id, is the x-request-id answered', async () => {
    await newRecords();
    const replies = [
      await write(201, 'POST', `${API}/clients`, { libelle: unique('client') }),
      await write(201, 'POST', `${API}/clients`, { libelle: unique('client') }, { 'x-request-id': 'has spaces and "quotes"' }),
      await write(201, 'POST', `${API}/clients`, { libelle: unique('client') }, { 'x-request-id': 'x'.repeat(129) }),
    ];
    const records = await newRecords();
    assert.equal(records.length, 3);
    for (const [index, reply] of replies.entries()) {
      const header = reply.headers.get('x-request-id');
      assert.ok(header !== null && header !== '', 'every answer carries x-request-id');
      assert.equal(records[index]!.request_id, header);
      assert.equal(records[index]!.entry_id, reply.body.id);
    }
    assert.notEqual(records[1]!.request_id, 'has spaces and "quotes"');
    assert.notEqual(records[2]!.request_id, 'x'.repeat(129));
  });

  test('servers: a soft delete is a delete whose after has is_deleted 1; restore is recorded; repeats record nothing', async () => {
    await newRecords();
    const rids = [requestId('s-create'), requestId('s-delete'), requestId('s-restore')];
    const id = (await write(201, 'POST', `${API}/servers`, { ip: '10.140.0.1', hostname: 'soft' }, { 'x-request-id': rids[0]! })).body.id as number;
    const live = await read('servers', id);
    await write(200, 'DELETE', `${API}/servers/${id}`, undefined, { 'x-request-id': rids[1]! });
    const deleted = await read('servers', id);
    assert.equal(deleted.is_deleted, 1);
    await write(200, 'DELETE', `${API}/servers/${id}`, undefined, { 'x-request-id': requestId('again') });
    await write(200, 'POST', `${API}/servers/${id}/restore`, undefined, { 'x-request-id': rids[2]! });
    const restored = await read('servers', id);
    await write(200, 'POST', `${API}/servers/${id}/restore`, undefined, { 'x-request-id': requestId('live') });

    const records = await newRecords();
    assert.equal(records.length, 3, `deleting a deleted server and restoring a live one record nothing: ${JSON.stringify(records)}`);
    const base = { resource: 'servers', entry_id: id };
    assertRecord(records[0], { ...base, action: 'create', request_id: rids[0]!, before: null, after: live });
    assertRecord(records[1], { ...base, action: 'delete', request_id: rids[1]!, before: live, after: deleted });
    assertRecord(records[2], { ...base, action: 'restore', request_id: rids[2]!, before: deleted, after: restored });
    assert.equal(records[1]!.after!.is_deleted, 1);
    assert.equal(records[2]!.after!.is_deleted, 0);
  });

  test('bulk POST, PATCH and DELETE: one record per entry, each with the request id', async () => {
    await newRecords();
    const rids = [requestId('b-post'), requestId('b-patch'), requestId('b-delete'), requestId('b-soft')];
    const created = (await write(201, 'POST', `${API}/tags`, [{ name: unique('bulk') }, { name: unique('bulk') }, { name: unique('bulk') }], { 'x-request-id': rids[0]! })).body.items as Record<string, any>[];
    const tagIds = created.map((item) => item.id as number);
    const v1 = await Promise.all(tagIds.map((id) => read('tags', id)));
    await write(200, 'PATCH', `${API}/tags`, tagIds.map((id, index) => ({ id, color: `#00000${index}` })), { 'x-request-id': rids[1]! });
    const v2 = await Promise.all(tagIds.map((id) => read('tags', id)));
    await write(200, 'DELETE', `${API}/tags?id=${tagIds.join(',')}`, undefined, { 'x-request-id': rids[2]! });
    const servers = (await write(201, 'POST', `${API}/servers`, [{ ip: '10.141.0.1' }, { ip: '10.141.0.2' }])).body.items as Record<string, any>[];
    const serverIds = servers.map((item) => item.id as number);
    const live = await Promise.all(serverIds.map((id) => read('servers', id)));
    await write(200, 'DELETE', `${API}/servers?id=${serverIds.join(',')}`, undefined, { 'x-request-id': rids[3]! });
    const soft = await Promise.all(serverIds.map((id) => read('servers', id)));

    const records = await newRecords();
    const byRequest = (rid: string) => records.filter((record) => record.request_id === rid).sort((a, b) => a.entry_id - b.entry_id);
    assert.equal(records.length, 3 + 3 + 3 + 2 + 2);
    const posted = byRequest(rids[0]!);
    const patched = byRequest(rids[1]!);
    const removed = byRequest(rids[2]!);
    const softened = byRequest(rids[3]!);
    assert.equal(posted.length, 3);
    assert.equal(patched.length, 3);
    assert.equal(removed.length, 3);
    assert.equal(softened.length, 2);
    tagIds.forEach((id, index) => {
      assertRecord(posted[index], { action: 'create', resource: 'tags', entry_id: id, request_id: rids[0]!, before: null, after: v1[index]! });
      assertRecord(patched[index], { action: 'update', resource: 'tags', entry_id: id, request_id: rids[1]!, before: v1[index]!, after: v2[index]! });
      assertRecord(removed[index], { action: 'delete', resource: 'tags', entry_id: id, request_id: rids[2]!, before: v2[index]!, after: null });
    });
    serverIds.forEach((id, index) => {
      assertRecord(softened[index], { action: 'delete', resource: 'servers', entry_id: id, request_id: rids[3]!, before: live[index]!, after: soft[index]! });
    });
  });

  test('dry runs, refusals (404, 409, 412, 422) and writes that change nothing record nothing', async () => {
    const tag = (await write(201, 'POST', `${API}/tags`, { name: unique('quiet') })).body.item as Record<string, any>;
    const other = (await write(201, 'POST', `${API}/tags`, { name: unique('quiet') })).body.item as Record<string, any>;
    const entry = (await write(201, 'POST', `${API}/servers`, { ip: '10.142.0.1', hostname: 'quiet', tags: [tag.id] })).body.item as Record<string, any>;
    const gone = (await write(201, 'POST', `${API}/servers`, { ip: '10.142.0.2' })).body.item as Record<string, any>;
    await write(200, 'DELETE', `${API}/servers/${gone.id}`);
    const pair = makeKeyPair('ED25519');
    const key = (await write(201, 'POST', `${API}/ssh-keys`, { type: pair.type, pub: pair.pub, 'privée': pair.openssh })).body.item as Record<string, any>;
    await write(201, 'POST', `${API}/storage-areas`, { ip: '192.0.2.10', path: '/backup', libelle: unique('area'), ssh_key: key.id });
    const stale = { 'if-match': '"not-the-current-etag"' };
    await newRecords();

    // Dry runs.
    await write(201, 'POST', `${API}/tags?dry_run=true`, { name: unique('dry') });
    await write(201, 'POST', `${API}/tags?dry_run=true`, [{ name: unique('dry') }, { name: unique('dry') }]);
    await write(200, 'PATCH', `${API}/tags/${tag.id}?dry_run=true`, { color: '#abcdef' });
    await write(200, 'PUT', `${API}/tags/${tag.id}?dry_run=true`, { name: unique('dry') });
    await write(200, 'PATCH', `${API}/tags?dry_run=true`, [{ id: tag.id, color: '#abcdef' }]);
    await write(200, 'DELETE', `${API}/tags/${other.id}?dry_run=true`);
    await write(200, 'DELETE', `${API}/tags?id=${other.id}&dry_run=true`);
    await write(200, 'DELETE', `${API}/servers/${entry.id}?dry_run=true`);
    await write(200, 'POST', `${API}/servers/${gone.id}/restore?dry_run=true`);
    // Refusals.
    await write(422, 'POST', `${API}/tags`, { name: unique('bad'), color: 'red' });
    await write(422, 'POST', `${API}/tags`, [{ name: unique('bad') }, { name: '' }]);
    await write(422, 'PATCH', `${API}/tags/${tag.id}`, { colour: '#000000' });
    await write(422, 'PUT', `${API}/tags/${tag.id}`, { id: tag.id + 1, name: unique('bad') });
    await write(404, 'PATCH', `${API}/tags/2000000`, { color: '#000000' });
    await write(404, 'DELETE', `${API}/tags/2000000`);
    await write(409, 'POST', `${API}/tags`, { name: tag.name });
    await write(409, 'PATCH', `${API}/tags/${other.id}`, { name: tag.name });
    await write(409, 'DELETE', `${API}/clients/99`);
    await write(409, 'DELETE', `${API}/environments/1`);
    await write(409, 'DELETE', `${API}/ssh-keys/${key.id}`);
    await write(409, 'DELETE', `${API}/clients?id=99`);
    await write(412, 'PATCH', `${API}/tags/${tag.id}`, { color: '#000001' }, stale);
    await write(412, 'PUT', `${API}/tags/${tag.id}`, { name: unique('late') }, stale);
    await write(412, 'DELETE', `${API}/tags/${other.id}`, undefined, stale);
    await write(412, 'POST', `${API}/servers/${gone.id}/restore`, undefined, stale);
    // Writes that change nothing.
    await write(200, 'PATCH', `${API}/tags/${tag.id}`, { color: tag.color });
    await write(200, 'PATCH', `${API}/tags/${tag.id}`, {});
    await write(200, 'PUT', `${API}/tags/${tag.id}`, { name: tag.name, color: tag.color, background: tag.background });
    await write(200, 'PATCH', `${API}/tags`, [{ id: tag.id, color: tag.color }, { id: other.id, name: other.name }]);
    await write(200, 'PATCH', `${API}/servers/${entry.id}`, { hostname: 'quiet', add_tags: [tag.id] });
    await write(200, 'PUT', `${API}/ssh-keys/${key.id}`, { type: key.type, pub: key.pub });
    await write(200, 'POST', `${API}/servers/${entry.id}/restore`);
    await write(200, 'DELETE', `${API}/servers/${gone.id}`);
    await write(200, 'DELETE', `${API}/servers?id=${gone.id}`);
    assert.deepEqual(await newRecords(), [], 'none of these is recorded');

    // And the log still records what does change.
    const marker = requestId('marker');
    await write(200, 'PATCH', `${API}/tags/${tag.id}`, { color: '#0f0f0f' }, { 'x-request-id': marker });
    assert.deepEqual(requestIds(await newRecords()), [marker]);
  });

  test('writes sent at once (one commit group on SQLite): records, totals and list versions of exactly those that stood', async () => {
    const taken = (await write(201, 'POST', `${API}/tags`, { name: unique('taken') })).body.item as Record<string, any>;
    const listed = await write(200, 'GET', `${API}/tags?limit=1`);
    const totalBefore = listed.body.total as number;
    await newRecords();
    const accepted = Array.from({ length: 12 }, (_, i) => ({ rid: requestId(`together-${i}`), name: unique('together') }));
    const sent = [
      ...accepted.map(({ rid, name }) => send('POST', `${API}/tags`, { name }, { 'x-request-id': rid })),
      ...Array.from({ length: 4 }, () => send('POST', `${API}/tags?dry_run=true`, { name: unique('dry') })),
      ...Array.from({ length: 4 }, () => send('POST', `${API}/tags`, { name: taken.name })),
      ...Array.from({ length: 4 }, () => send('POST', `${API}/tags`, { name: unique('bad'), color: 'red' })),
      ...Array.from({ length: 4 }, () => send('PATCH', `${API}/tags/2000000`, { color: '#000000' })),
    ];
    const replies = await Promise.all(sent);
    assert.deepEqual(
      replies.map((reply) => reply.status),
      [...accepted.map(() => 201), 201, 201, 201, 201, 409, 409, 409, 409, 422, 422, 422, 422, 404, 404, 404, 404],
    );
    const records = await newRecords();
    assert.deepEqual(requestIds(records).sort(), accepted.map(({ rid }) => rid).sort(), 'one record per write that stood, none for the others');
    for (let i = 1; i < records.length; i++) assert.equal(records[i]!.id, records[i - 1]!.id + 1, 'consecutive ids');
    for (const record of records) {
      const reply = replies[accepted.findIndex(({ rid }) => rid === record.request_id)]!;
      assertRecord(record, { action: 'create', resource: 'tags', entry_id: reply.body.id, request_id: record.request_id, before: null, after: await read('tags', reply.body.id) });
    }
    const after = await write(200, 'GET', `${API}/tags?limit=1`);
    assert.equal(after.body.total, totalBefore + accepted.length, 'the total counts the creates that stood, only');
    assert.notEqual(after.headers.get('etag'), listed.headers.get('etag'), 'the list version moved');
  });

  test('deleting a tag records the delete and, as updates, every server it is removed from', async () => {
    const [doomed, kept] = [(await write(201, 'POST', `${API}/tags`, { name: unique('doomed') })).body.id as number, (await write(201, 'POST', `${API}/tags`, { name: unique('kept') })).body.id as number];
    const both = (await write(201, 'POST', `${API}/servers`, { ip: '10.143.0.1', tags: [doomed, kept] })).body.id as number;
    const only = (await write(201, 'POST', `${API}/servers`, { ip: '10.143.0.2', tags: [doomed] })).body.id as number;
    const deleted = (await write(201, 'POST', `${API}/servers`, { ip: '10.143.0.3', tags: [doomed] })).body.id as number;
    const untouched = (await write(201, 'POST', `${API}/servers`, { ip: '10.143.0.4', tags: [kept] })).body.id as number;
    await write(200, 'DELETE', `${API}/servers/${deleted}`);
    const tagBefore = await read('tags', doomed);
    const before = new Map(await Promise.all([both, only, deleted].map(async (id) => [id, await read('servers', id)] as const)));
    await newRecords();
    const rid = requestId('tag-delete');
    await write(200, 'DELETE', `${API}/tags/${doomed}`, undefined, { 'x-request-id': rid });
    const after = new Map(await Promise.all([both, only, deleted].map(async (id) => [id, await read('servers', id)] as const)));

    const records = await newRecords();
    assert.ok(records.every((record) => record.request_id === rid));
    const tagRecords = records.filter((record) => record.resource === 'tags');
    assert.equal(tagRecords.length, 1);
    assertRecord(tagRecords[0], { action: 'delete', resource: 'tags', entry_id: doomed, request_id: rid, before: tagBefore, after: null });
    const serverRecords = records.filter((record) => record.resource === 'servers').sort((a, b) => a.entry_id - b.entry_id);
    assert.deepEqual(serverRecords.map((record) => record.entry_id), [both, only, deleted], `the servers that carried the tag, and not ${untouched}`);
    for (const record of serverRecords) {
      assertRecord(record, { action: 'update', resource: 'servers', entry_id: record.entry_id, request_id: rid, before: before.get(record.entry_id)!, after: after.get(record.entry_id)! });
      assert.ok(record.before!.tags.includes(doomed) && !record.after!.tags.includes(doomed));
      const { tags: _t1, updated_at: _u1, ...restBefore } = record.before!;
      const { tags: _t2, updated_at: _u2, ...restAfter } = record.after!;
      assert.deepEqual(restAfter, restBefore, 'only tags (and updated_at) differ');
    }
    assert.equal(records.length, 4);
  });

  test('a tag deleted while servers are being linked to it: every server is what its last record says', async () => {
    const made: number[] = [];
    const outcomes = new Map<string, number>();
    for (let round = 0; round < 15; round++) {
      const tag = (await write(201, 'POST', `${API}/tags`, { name: unique('race') })).body.id as number;
      const [linked, deleted] = await Promise.all([
        send('POST', `${API}/servers`, { ip: `10.145.${round}.1`, tags: [tag] }),
        send('DELETE', `${API}/tags/${tag}`),
      ]);
      const key = `${linked.status}/${deleted.status}`;
      outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
      // Either may come first; a deadlock victim (503) is refused whole.
      assert.ok([200, 503].includes(deleted.status), deleted.text);
      if (linked.status === 201) made.push(linked.body.id);
      else assert.ok([409, 422, 503].includes(linked.status), linked.text);
    }
    for (const id of made) {
      const item = await read('servers', id);
      const history = (await write(200, 'GET', `${API}/servers/${id}/history`)).body.items as ChangeRecord[];
      assert.deepEqual(history[0]?.after, item, `server ${id} is what its last record says (${JSON.stringify(Object.fromEntries(outcomes))})`);
      assert.equal(history.at(-1)?.action, 'create');
    }
    await newRecords();
  });

  test('history: newest first, with limit and offset, still there after a hard delete; 404s', async () => {
    const id = (await write(201, 'POST', `${API}/tags`, { name: unique('hist') })).body.id as number;
    for (const color of ['#000001', '#000002', '#000003']) await write(200, 'PATCH', `${API}/tags/${id}`, { color });
    await write(200, 'DELETE', `${API}/tags/${id}`);
    const own = (await newRecords()).filter((record) => record.resource === 'tags' && record.entry_id === id);
    assert.equal(own.length, 5);

    const path = `${API}/tags/${id}/history`;
    const all = await write(200, 'GET', path);
    assert.deepEqual(Object.keys(all.body).sort(), ['items', 'limit', 'offset', 'total']);
    assert.equal(all.body.total, 5);
    assert.equal(all.body.limit, 100, 'limit defaults to 100');
    assert.equal(all.body.offset, 0);
    assert.deepEqual(all.body.items, [...own].reverse(), 'the records of the list, newest first');
    assert.deepEqual(all.body.items.map((record: ChangeRecord) => record.action), ['delete', 'update', 'update', 'update', 'create']);
    const page = await write(200, 'GET', `${path}?limit=2&offset=1`);
    assert.deepEqual(page.body, { items: [...own].reverse().slice(1, 3), total: 5, limit: 2, offset: 1 });
    const past = await write(200, 'GET', `${path}?offset=5`);
    assert.deepEqual(past.body, { items: [], total: 5, limit: 100, offset: 5 });
    assert.equal((await write(200, 'GET', `/fr/api/config/tags/${id}/history`)).body.total, 5);

    // An entry that exists without any record (a built-in one) has an empty history.
    assert.deepEqual((await write(200, 'GET', `${API}/environments/1/history`)).body, { items: [], total: 0, limit: 100, offset: 0 });
    for (const missing of [`${API}/tags/2000000/history`, `${API}/nope/1/history`, `${API}/tags/abc/history`, `${API}/tags/0/history`, `/xx/api/config/tags/${id}/history`]) {
      const reply = await send('GET', missing);
      assert.equal(reply.status, 404, `${missing}: ${reply.text}`);
      assert.equal(reply.body.code, 'NOT_FOUND');
    }
    for (const query of ['limit=0', 'limit=1001', 'limit=x', 'offset=-1', 'offset=x', 'limit=1&limit=2', 'foo=1']) {
      const reply = await send('GET', `${path}?${query}`);
      assert.equal(reply.status, 400, `${query}: ${reply.text}`);
      assert.equal(reply.body.code, 'BAD_QUERY');
    }
  });

  test('list: oldest first, filters by resource, entry_id, actor and action, pages by next', async () => {
    await newRecords();
    const since = mark;
    const rid = (label: string) => requestId(`f-${label}`);
    const r = { tagCreate: rid('tc'), tagPatch: rid('tp'), client: rid('cc'), serverCreate: rid('sc'), serverDelete: rid('sd'), tagDelete: rid('td') };
    const tag = (await write(201, 'POST', `${API}/tags`, { name: unique('filter') }, { 'x-request-id': r.tagCreate })).body.id as number;
    await write(200, 'PATCH', `${API}/tags/${tag}`, { color: '#0000aa' }, { 'x-request-id': r.tagPatch });
    const client = (await write(201, 'POST', `${API}/clients`, { libelle: unique('filter') }, { 'x-request-id': r.client })).body.id as number;
    const entry = (await write(201, 'POST', `${API}/servers`, { ip: '10.144.0.1', id_client: client }, { 'x-request-id': r.serverCreate })).body.id as number;
    await write(200, 'DELETE', `${API}/servers/${entry}`, undefined, { 'x-request-id': r.serverDelete });
    await write(200, 'DELETE', `${API}/tags/${tag}`, undefined, { 'x-request-id': r.tagDelete });
    const every = await newRecords();
    assert.deepEqual(requestIds(every), Object.values(r));

    const filtered = async (filters: string) => requestIds(await changesAfter(server, since, filters));
    assert.deepEqual(await filtered('resource=tags'), [r.tagCreate, r.tagPatch, r.tagDelete]);
    assert.deepEqual(await filtered(`resource=tags&entry_id=${tag}`), [r.tagCreate, r.tagPatch, r.tagDelete]);
    assert.deepEqual(await filtered(`resource=servers&entry_id=${entry}`), [r.serverCreate, r.serverDelete]);
    assert.deepEqual(await filtered('resource=clients&action=create'), [r.client]);
    assert.deepEqual(await filtered('action=delete'), [r.serverDelete, r.tagDelete]);
    assert.deepEqual(await filtered('action=update'), [r.tagPatch]);
    assert.deepEqual(await filtered('action=restore'), []);
    assert.deepEqual(await filtered('actor=anonymous'), Object.values(r));
    assert.deepEqual(await filtered('actor=deploy-bot'), []);
    for (const record of await changesAfter(server, 0, `entry_id=${tag}`)) assert.equal(record.entry_id, tag);
    const french = await write(200, 'GET', `/fr/api/changes?since=${since}&resource=clients`);
    assert.deepEqual(requestIds(french.body.items), [r.client]);

    // Paging: pages of two, each next the last id of its page; an empty page's next is its since.
    const pages: number[][] = [];
    for (let cursor = since; ; ) {
      const page = await write(200, 'GET', `${CHANGES}?since=${cursor}&limit=2`);
      assert.deepEqual(Object.keys(page.body).sort(), ['items', 'next']);
      if (page.body.items.length === 0) {
        assert.equal(page.body.next, cursor);
        break;
      }
      assert.equal(page.body.next, page.body.items.at(-1).id);
      pages.push(ids(page.body.items));
      cursor = page.body.next;
    }
    assert.deepEqual(pages, [ids(every.slice(0, 2)), ids(every.slice(2, 4)), ids(every.slice(4, 6))]);
    const filteredPage = await write(200, 'GET', `${CHANGES}?since=${since}&resource=tags&limit=2`);
    assert.deepEqual(requestIds(filteredPage.body.items), [r.tagCreate, r.tagPatch]);
    assert.equal(filteredPage.body.next, filteredPage.body.items[1].id, 'next is the last item of a filtered page too');

    // Defaults: since 0, limit 100, oldest first.
    await write(201, 'POST', `${API}/tags`, Array.from({ length: 100 }, () => ({ name: unique('page') })));
    const first = await write(200, 'GET', CHANGES);
    const everything = await changesAfter(server, 0);
    assert.ok(everything.length > 100, 'more records than a default page');
    assert.deepEqual(first.body.items, everything.slice(0, 100), 'since 0, limit 100, oldest first');
    assert.equal(first.body.next, first.body.items.at(-1).id);
    const beyond = await write(200, 'GET', `${CHANGES}?since=${mark + 1000}`);
    assert.deepEqual(beyond.body, { items: [], next: mark + 1000 });
    const oneOld = await write(200, 'GET', `${CHANGES}?since=${since}&limit=1`);
    assert.deepEqual(ids(oneOld.body.items), [every[0]!.id]);
    assert.equal((await write(200, 'GET', `${CHANGES}?since=${since}&limit=1000`)).body.items.length, every.length + 100, 'the six, then the bulk of 100');
  });

  test('an invalid or unknown parameter is 400 BAD_QUERY', async () => {
    const queries = [
      'since=abc', 'since=1.5', 'since=-1', 'since=', 'since=1e3', 'since=1&since=2',
      'resource=nope', 'resource=tags&resource=clients', 'resource=',
      'entry_id=abc', 'entry_id=1.5',
      'action=nope', 'action=created', 'action=create&action=delete',
      'limit=0', 'limit=1001', 'limit=abc', 'limit=-1', 'limit=1&limit=2',
      'offset=0', 'foo=1',
    ];
    for (const query of queries) {
      const reply = await send('GET', `${CHANGES}?${query}`);
      assert.equal(reply.status, 400, `${query}: ${reply.text}`);
      assert.match(reply.headers.get('content-type') ?? '', /^application\/problem\+json/);
      assert.equal(reply.body.code, 'BAD_QUERY', query);
    }
    for (const query of ['limit=1', 'limit=1000', 'since=0', 'resource=tags&action=create&actor=anonymous&entry_id=1']) {
      assert.equal((await send('GET', `${CHANGES}?${query}`)).status, 200, query);
    }
    assert.equal((await send('GET', '/xx/api/changes')).status, 404, 'an unknown language');
    const post = await send('POST', CHANGES, { x: 1 });
    assert.equal(post.status, 405);
  });

  test('ssh keys: secrets_changed names privée; the private key is in no record, list, history, stream, log line or database byte', async () => {
    await newRecords();
    const since = mark;
    const first = makeKeyPair('ED25519', 'first@changes');
    const second = makeKeyPair('RSA', 'second@changes');
    const rids = [requestId('k-create'), requestId('k-replace'), requestId('k-rename'), requestId('k-patch'), requestId('k-delete')];
    const id = (await write(201, 'POST', `${API}/ssh-keys`, { type: first.type, pub: first.pub, 'privée': first.openssh }, { 'x-request-id': rids[0]! })).body.id as number;
    const v1 = await read('ssh-keys', id);
    await write(200, 'PUT', `${API}/ssh-keys/${id}`, { type: second.type, pub: second.pub, 'privée': second.pem }, { 'x-request-id': rids[1]! });
    const v2 = await read('ssh-keys', id);
    const renamed = second.pub.replace('second@changes', 'renamed@changes');
    await write(200, 'PUT', `${API}/ssh-keys/${id}`, { type: second.type, pub: renamed }, { 'x-request-id': rids[2]! });
    const v3 = await read('ssh-keys', id);
    await write(200, 'PATCH', `${API}/ssh-keys/${id}`, { type: first.type, pub: first.pub, 'privée': first.pem }, { 'x-request-id': rids[3]! });
    const v4 = await read('ssh-keys', id);
    await write(200, 'DELETE', `${API}/ssh-keys/${id}`, undefined, { 'x-request-id': rids[4]! });

    const records = await newRecords();
    assert.equal(records.length, 5);
    const base = { resource: 'ssh-keys', entry_id: id };
    assertRecord(records[0], { ...base, action: 'create', request_id: rids[0]!, before: null, after: v1, secrets_changed: ['privée'] });
    assertRecord(records[1], { ...base, action: 'update', request_id: rids[1]!, before: v1, after: v2, secrets_changed: ['privée'] });
    assertRecord(records[2], { ...base, action: 'update', request_id: rids[2]!, before: v2, after: v3, secrets_changed: [] });
    assertRecord(records[3], { ...base, action: 'update', request_id: rids[3]!, before: v3, after: v4, secrets_changed: ['privée'] });
    assertRecord(records[4], { ...base, action: 'delete', request_id: rids[4]!, before: v4, after: null, secrets_changed: [] });
    for (const record of records) {
      for (const snapshot of [record.before, record.after]) assert.ok(snapshot === null || !('privée' in snapshot), 'no write-only field in a snapshot');
    }
    assert.equal((await write(200, 'GET', `${CHANGES}?since=${since}&resource=ssh-keys`)).body.items.length, 5);

    const stream = await openStream(server.url, `${CHANGES}/stream?since=${since}`);
    try {
      assert.equal(stream.status, 200);
      await stream.waitForChanges(5);
      const texts: [string, string][] = [
        ['the list', (await write(200, 'GET', `${CHANGES}?since=${since}`)).text],
        ['the filtered list', (await write(200, 'GET', `${CHANGES}?since=${since}&resource=ssh-keys&entry_id=${id}`)).text],
        ['the history', (await write(200, 'GET', `${API}/ssh-keys/${id}/history`)).text],
        ['the stream', stream.text],
        ['the logs', server.logs()],
        ['the database', await databaseText(server)],
      ];
      for (const [where, text] of texts) {
        assert.ok(text.includes(first.pub.split(' ')[1]!) || where === 'the logs', `${where} is where the records are`);
        assertNoKeyMaterial(text, [first, second], where);
      }
    } finally {
      stream.close();
    }
  });
});

describe('the change log with tokens', { timeout: 120_000 }, () => {
  const WRITE = secret('chg-w');
  const READ = secret('chg-r');
  const server = serverPerSuite({ env: { API_TOKENS: `deployer=write:${WRITE},auditor=read:${READ}` } });

  test('actor is the token name; the actor filter finds it; reading needs a read token', async () => {
    const rid = requestId('token');
    const created = await server.request('POST', `${API}/tags`, { body: { name: unique('tok') }, headers: { ...bearer(WRITE), 'x-request-id': rid } });
    assert.equal(created.status, 201, created.text);
    await server.request('PATCH', `${API}/tags/${created.body.id}`, { body: { color: '#00aa00' }, headers: bearer(WRITE) });

    for (const token of [READ, WRITE]) {
      const records = await changesAfter(server, 0, '', bearer(token));
      assert.deepEqual(records.map((record) => [record.actor, record.action, record.entry_id]), [['deployer', 'create', created.body.id], ['deployer', 'update', created.body.id]]);
      assert.equal(records[0]!.request_id, rid);
    }
    assert.equal((await changesAfter(server, 0, 'actor=deployer', bearer(READ))).length, 2);
    assert.deepEqual(await changesAfter(server, 0, 'actor=auditor', bearer(READ)), []);
    assert.deepEqual(await changesAfter(server, 0, 'actor=anonymous', bearer(READ)), []);
    assert.equal((await server.request('GET', `${API}/tags/${created.body.id}/history`, { headers: bearer(READ) })).body.total, 2);

    for (const path of [CHANGES, `${API}/tags/${created.body.id}/history`]) {
      const refused = await server.request('GET', path);
      assert.equal(refused.status, 401, path);
      assert.equal((await server.request('GET', path, { headers: bearer('wrong-token') })).status, 401, path);
    }
    const anonymousStream = await openStream(server.url, `${CHANGES}/stream?since=0`);
    anonymousStream.close();
    assert.equal(anonymousStream.status, 401);
    const stream = await openStream(server.url, `${CHANGES}/stream?since=0`, { headers: bearer(READ) });
    try {
      assert.equal(stream.status, 200);
      await stream.waitForChanges(2);
      assert.deepEqual(stream.changes.map((record) => record.actor), ['deployer', 'deployer']);
    } finally {
      stream.close();
    }
  });
});

describe('retention', () => {
  const ago = (days: number) => new Date(Date.now() - days * DAY_MS).toISOString();
  const recordsOf = async (server: TestServer, id: number) => ids(await changesAfter(server, 0, `resource=tags&entry_id=${id}`));
  const newTagWithUpdates = async (server: TestServer, updates: number): Promise<{ id: number; records: number[] }> => {
    const created = await server.request('POST', `${API}/tags`, { body: { name: unique('old') } });
    assert.equal(created.status, 201, created.text);
    for (let n = 0; n < updates; n++) assert.equal((await server.request('PATCH', `${API}/tags/${created.body.id}`, { body: { color: `#00000${n}` } })).status, 200);
    return { id: created.body.id, records: await recordsOf(server, created.body.id) };
  };
  const backDate = (database: TestDatabase, days: number, from: number, to: number) => sql(database, 'UPDATE change_log SET at = ? WHERE id >= ? AND id <= ?', [ago(days), from, to]);
  const waitUntil = async (what: string, holds: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    while (!(await holds())) {
      if (Date.now() > deadline) assert.fail(`${what} within ${timeoutMs} ms`);
      await new Promise((done) => setTimeout(done, 100));
    }
  };

  test('records older than CHANGELOG_RETENTION_DAYS (default 90) go at start-up and then every interval; 0 keeps them all; writes go on meanwhile', { timeout: 180_000 }, async () => {
    const first = await startServer();
    const running: TestServer[] = [first];
    const restart = async (env: Record<string, string> = {}) => {
      await running.at(-1)!.stop();
      const next = await startServer({ dataDir: first.dataDir, database: first.database, env });
      running.push(next);
      return next;
    };
    try {
      const { id, records } = await newTagWithUpdates(first, 5);
      assert.equal(records.length, 6);
      await first.stop();
      await backDate(first.database, 100, records[0]!, records[2]!);
      await backDate(first.database, 89, records[3]!, records[3]!);

      // Default retention, 90 days: the three records of 100 days go at start-up, 89 days stays.
      let server = await restart();
      await waitUntil('the records older than 90 days are pruned', async () => (await recordsOf(server, id)).length === 3);
      assert.deepEqual(await recordsOf(server, id), records.slice(3));
      assert.equal((await server.request('GET', `${API}/tags/${id}/history`)).body.total, 3);

      // 0 keeps every record, however old.
      await server.stop();
      await backDate(first.database, 1000, records[3]!, records[5]!);
      server = await restart({ CHANGELOG_RETENTION_DAYS: '0', CHANGELOG_PRUNE_INTERVAL_MS: '100' });
      await new Promise((done) => setTimeout(done, 1500));
      assert.deepEqual(await recordsOf(server, id), records.slice(3), 'CHANGELOG_RETENTION_DAYS=0 prunes nothing');

      // 30 days, every 200 ms: what is older goes at start-up, and what ages while it runs goes too.
      server = await restart({ CHANGELOG_RETENTION_DAYS: '30', CHANGELOG_PRUNE_INTERVAL_MS: '200' });
      await waitUntil('the records of 1000 days are pruned at start-up', async () => (await recordsOf(server, id)).length === 0);
      const recent = await newTagWithUpdates(server, 2);
      await backDate(first.database, 40, recent.records[0]!, recent.records[1]!);
      await waitUntil('the records that aged while running are pruned', async () => (await recordsOf(server, recent.id)).length === 1);
      assert.deepEqual(await recordsOf(server, recent.id), recent.records.slice(2));

      // Thousands of old records go in batches while writes are answered.
      const base = await lastChangeId(server);
      for (let batch = 0; batch < 3; batch++) {
        const reply = await server.request('POST', `${API}/tags`, { body: Array.from({ length: 1000 }, () => ({ name: unique('bulk-old') })) });
        assert.equal(reply.status, 201);
      }
      const top = await lastChangeId(server, base);
      assert.equal(top - base, 3000);
      // Ids grow with time: the old records are the first ones.
      await backDate(first.database, 40, 1, top);
      const slowest: number[] = [];
      for (let n = 0; n < 20; n++) {
        const started = Date.now();
        const reply = await server.request('POST', `${API}/tags`, { body: { name: unique('during-prune') } });
        assert.equal(reply.status, 201, reply.text);
        slowest.push(Date.now() - started);
      }
      await waitUntil('3000 old records are pruned', async () => (await server.request('GET', `${CHANGES}?since=0&limit=1`)).body.items[0]?.id > top, 30_000);
      assert.equal((await changesAfter(server, base)).length, 20, 'the writes made meanwhile are all recorded');
      assert.ok(Math.max(...slowest) < 3000, `writes while pruning took at most ${Math.max(...slowest)} ms`);
    } finally {
      for (const server of running) await server.stop();
      await first.cleanup();
    }
  });
});
