// The entry cache keeps each table's entries apart (its keys are numbers made of the table
// and the id: two tables' entries of one id must never meet), keeps no entry read while a
// write began or ended, and forgets everything when another connection commits.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EntryCache } from '../src/pipeline/entry-cache.js';
import type { ReadAnswer } from '../src/pipeline/shown-entry.js';

const TABLES = ['tags', 'servers', 'clients'];

function answer(text: string): ReadAnswer {
  return { body: Buffer.from(text), etag: `"${text}"` };
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
    for (const table of TABLES) cache.fill(table, id, answer(`${table} ${id}`), cache.ticket());
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

test('a read that a write overlapped is not kept; the oldest entries go first', () => {
  const cache = cacheOf(10, () => 0);
  const ticket = cache.ticket();
  cache.invalidate('tags', 7);
  cache.fill('tags', 1, answer('stale'), ticket);
  assert.equal(cache.get('tags', 1), undefined);
  for (let id = 1; id <= 10; id++) cache.fill('tags', id, answer(String(id)), cache.ticket());
  cache.fill('tags', 11, answer('11'), cache.ticket());
  assert.equal(cache.get('tags', 1), undefined);
  assert.equal(cache.get('tags', 11)?.etag, '"11"');
});

test('a commit of another connection drops every entry at the next turn', async () => {
  let marker = 0;
  const cache = cacheOf(10, () => marker);
  cache.fill('servers', 1, answer('one'), cache.ticket());
  assert.equal(cache.get('servers', 1)?.etag, '"one"');
  marker = 1;
  await new Promise((done) => setImmediate(done));
  assert.equal(cache.get('servers', 1), undefined);
});
