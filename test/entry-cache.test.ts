// The entry cache keeps each table's entries apart (its keys are numbers made of the table
// and the id: two tables' entries of one id must never meet), keeps an entry at its second
// read lately, never one read while a write began or ended, and forgets everything when
// another connection commits.
// @backend-independent (runs once, not once per backend): the cache alone, in memory.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EntryCache } from '../src/pipeline/read-through-store.js';
import type { ReadAnswerText } from '../src/store/entity-tag.js';

const TABLES = ['tags', 'servers', 'clients'];

function answer(text: string): ReadAnswerText {
  return { body: text, etag: `"${text}"` };
}

/** Two reads of an entry, as the service fills them: the second keeps it. */
function readTwice(cache: EntryCache, table: string, id: number, text: string): void {
  cache.fill(table, id, answer(text), cache.ticket());
  cache.fill(table, id, answer(text), cache.ticket());
}

/** A cache that has seen its first turn, as in the service, where a read asks before it fills. */
function cacheOf(capacity: number, marker: () => unknown): EntryCache {
  const cache = new EntryCache(capacity, marker, TABLES);
  assert.equal(cache.get('tags', 1), undefined);
  return cache;
}

test('entries of the same id in different tables are kept apart', () => {
  const cache = cacheOf(100, () => 0);
  for (const id of [1, 2, 3, 2 ** 31, Number.MAX_SAFE_INTEGER / TABLES.length - 1]) {
    for (const table of TABLES) readTwice(cache, table, id, `${table} ${id}`);
  }
  for (const id of [1, 2, 3, 2 ** 31, Number.MAX_SAFE_INTEGER / TABLES.length - 1]) {
    for (const table of TABLES) assert.equal(cache.get(table, id)?.etag, `"${table} ${id}"`);
  }
  cache.invalidate('servers', 2);
  assert.equal(cache.get('servers', 2), undefined);
  assert.equal(cache.get('tags', 2)?.etag, '"tags 2"');
  assert.equal(cache.get('clients', 2)?.etag, '"clients 2"');
});

test('a table the cache was not made for is refused, not mixed with another', () => {
  const cache = new EntryCache(100, () => 0, TABLES);
  assert.throws(() => cache.get('environments', 1), /not made for the table environments/);
});

test('an entry is kept at its second read, as bytes; a read of another entry in between makes it a first read again', () => {
  const cache = cacheOf(1, () => 0);
  cache.fill('tags', 1, answer('one'), cache.ticket());
  assert.equal(cache.get('tags', 1), undefined);
  cache.fill('tags', 1, answer('one'), cache.ticket());
  const kept = cache.get('tags', 1);
  assert.ok(Buffer.isBuffer(kept?.body));
  assert.equal(kept.body.toString(), 'one');
  // A first read is remembered in one of a few cells per entry the cache holds: after the
  // first reads of many other entries, a read of tags 1 is a first read again.
  const fresh = cacheOf(1, () => 0);
  fresh.fill('tags', 1, answer('one'), fresh.ticket());
  for (let id = 2; id <= 100; id++) fresh.fill('servers', id, answer(String(id)), fresh.ticket());
  fresh.fill('tags', 1, answer('one'), fresh.ticket());
  assert.equal(fresh.get('tags', 1), undefined);
  fresh.fill('tags', 1, answer('one'), fresh.ticket());
  assert.equal(fresh.get('tags', 1)?.etag, '"one"');
});

test('the first reads of as many consecutive entries as the cache holds are all remembered', () => {
  // Keys of one table are the number of tables apart: with 8 tables, they must not fold onto
  // an eighth of the cells, where each first read would push out another's before its second.
  const capacity = 1_000;
  const cache = new EntryCache(capacity, () => 0, ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'servers']);
  assert.equal(cache.get('servers', 0), undefined);
  for (let id = 1; id <= capacity; id++) cache.fill('servers', id, answer(String(id)), cache.ticket());
  for (let id = 1; id <= capacity; id++) cache.fill('servers', id, answer(String(id)), cache.ticket());
  let kept = 0;
  for (let id = 1; id <= capacity; id++) if (cache.get('servers', id) !== undefined) kept += 1;
  assert.equal(kept, capacity, `${kept} of ${capacity} kept at their second read`);
});

test('a read that a write overlapped is not kept; the oldest entries go first', () => {
  const cache = cacheOf(10, () => 0);
  cache.fill('tags', 1, answer('first read'), cache.ticket());
  const ticket = cache.ticket();
  cache.invalidate('tags', 7);
  cache.fill('tags', 1, answer('stale'), ticket);
  assert.equal(cache.get('tags', 1), undefined);
  for (let id = 1; id <= 10; id++) readTwice(cache, 'tags', id, String(id));
  readTwice(cache, 'tags', 11, '11');
  assert.equal(cache.get('tags', 1), undefined);
  assert.equal(cache.get('tags', 11)?.etag, '"11"');
});

test('a commit of another connection drops every entry at the next turn', async () => {
  let marker = 0;
  const cache = cacheOf(10, () => marker);
  readTwice(cache, 'servers', 1, 'one');
  assert.equal(cache.get('servers', 1)?.etag, '"one"');
  marker = 1;
  await new Promise((done) => setImmediate(done));
  assert.equal(cache.get('servers', 1), undefined);
});
