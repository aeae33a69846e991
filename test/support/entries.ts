// Reading back everything a test wrote, page by page, and checking that what was
// acknowledged is there.
import assert from 'node:assert/strict';
import type { TestServer } from './server.js';

/** Every entry of `resource` (soft-deleted ones too where it has them), checking that the
 * list's total agrees with the rows. */
export async function allEntries(server: TestServer, resource: string): Promise<Record<string, unknown>[]> {
  const deleted = resource === 'servers' ? '&include_deleted=true' : '';
  const items: Record<string, unknown>[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await server.request('GET', `/en/api/config/${resource}?limit=1000&offset=${offset}${deleted}`);
    assert.equal(page.status, 200, page.text);
    items.push(...page.body.items);
    if (offset + 1000 >= page.body.total) {
      assert.equal(items.length, page.body.total, 'the total agrees with the rows');
      return items;
    }
  }
}

/** Fails unless every acknowledged entry (id → the body that created it) is stored with
 * that id and every field it was sent. */
export async function assertAllStored(server: TestServer, resource: string, acknowledged: ReadonlyMap<number, Record<string, unknown>>): Promise<void> {
  const stored = new Map((await allEntries(server, resource)).map((item) => [item.id as number, item]));
  for (const [id, body] of acknowledged) {
    const item = stored.get(id);
    assert.ok(item, `acknowledged ${resource} ${id} is lost`);
    for (const [field, value] of Object.entries(body)) assert.deepEqual(item[field], value, `${resource} ${id}: ${field}`);
  }
}
