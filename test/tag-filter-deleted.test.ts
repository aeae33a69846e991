// A tag filter reads server_tags alone to count its matches and to pass deleted servers
// (docs/decisions.md, "A tag filter is driven by its link table"): each link copies its
// server's is_deleted. These tests fail if any write leaves that copy behind: a soft delete
// (single or bulk), a restore, or links written to a live or a deleted server (create, bulk
// create, PATCH add_tags, bulk PATCH, PUT).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { serverPerSuite } from './support/server.js';

// Small, so that a count stopped at its cap is seen too (5 live matches and 2 deleted:
// counted with the deleted ones, the total would be the cap and not exact).
const EXACT_MAX = 5;
const server = serverPerSuite({ env: { LIST_EXACT_TOTAL_MAX: String(EXACT_MAX) } });
const API = '/en/api/config';
let counter = 0;

const newTag = async (): Promise<number> => (await server.request('POST', `${API}/tags`, { body: { name: `tag-live-${process.pid}-${++counter}` } })).body.item.id;
const serverBody = (tags: number[] = []) => ({ ip: `10.40.${(++counter >> 8) & 255}.${counter & 255}`, port: 5000 + counter, tags });
async function newServer(tags: number[] = []): Promise<number> {
  const reply = await server.request('POST', `${API}/servers`, { body: serverBody(tags) });
  assert.equal(reply.status, 201, reply.text);
  return reply.body.item.id;
}
async function send(method: string, path: string, body?: unknown): Promise<void> {
  const reply = await server.request(method, `${API}${path}`, body === undefined ? {} : { body });
  assert.ok(reply.status < 300, `${method} ${path}: ${reply.status} ${reply.text}`);
}

interface Listed {
  /** Every match, newest first, from one page (whose total is then its own length). */
  ids: number[];
  /** The same ids walked one page at a time with cursors: each of those pages counts. */
  walked: number[];
  /** The total of a first page of one entry: counted whenever more than one matches. */
  total: number;
  exact: boolean;
}

async function listed(tag: number, extra = ''): Promise<Listed> {
  const path = `${API}/servers?tag=${tag}${extra}`;
  const ids = (await server.request('GET', `${path}&limit=1000`)).body.items.map((item: { id: number }) => item.id);
  const first = await server.request('GET', `${path}&limit=1`);
  assert.equal(first.status, 200, first.text);
  const walked: number[] = first.body.items.map((item: { id: number }) => item.id);
  for (let next = first.body.next; next !== null; ) {
    const page = await server.request('GET', `${path}&limit=1&after=${next}`);
    walked.push(...page.body.items.map((item: { id: number }) => item.id));
    next = page.body.next;
  }
  return { ids, walked, total: first.body.total, exact: first.body.total_exact };
}

/** The list of `tag` holds exactly `ids` (newest first), in every way it is read. */
async function assertListed(tag: number, ids: number[], extra = ''): Promise<void> {
  const seen = await listed(tag, extra);
  assert.deepEqual(seen.ids, ids, `tag ${tag}${extra}: the page`);
  assert.deepEqual(seen.walked, ids, `tag ${tag}${extra}: the walk with cursors`);
  assert.deepEqual([seen.total, seen.exact], [Math.min(ids.length, EXACT_MAX), ids.length <= EXACT_MAX], `tag ${tag}${extra}: the counted total`);
}

const newestFirst = (ids: number[]) => [...ids].sort((a, b) => b - a);

describe('a tag filter and deleted servers', () => {
  test('soft-deleting tagged servers (single and bulk) drops them from ?tag= pages and totals; restoring brings them back', async () => {
    const [tag, other] = [await newTag(), await newTag()];
    const ids = [await newServer([tag]), await newServer([tag, other]), await newServer([tag]), await newServer([tag, other])];
    await assertListed(tag, newestFirst(ids));
    await send('DELETE', `/servers/${ids[1]}`);
    await send('DELETE', `/servers?id=${ids[2]},${ids[3]}`);
    await assertListed(tag, [ids[0]!]);
    await assertListed(other, []);
    // include_deleted=true lists and counts them still.
    await assertListed(tag, newestFirst(ids), '&include_deleted=true');
    await assertListed(other, [ids[3]!, ids[1]!], '&include_deleted=true');
    await send('POST', `/servers/${ids[1]}/restore`);
    await assertListed(tag, [ids[1]!, ids[0]!]);
    await assertListed(other, [ids[1]!]);
  });

  test('links written to live servers count at once; links written to a deleted server count once it is restored', async () => {
    const tag = await newTag();
    const bulk = await server.request('POST', `${API}/servers`, { body: [serverBody([tag]), serverBody([tag])] });
    assert.equal(bulk.status, 201, bulk.text);
    const live = bulk.body.items.map((item: { id: number }) => item.id) as number[];
    const [patched, bulkPatched, deletedPatched, deletedBulkPatched, deletedPut] = [await newServer(), await newServer(), await newServer(), await newServer(), await newServer()];
    for (const id of [deletedPatched, deletedBulkPatched, deletedPut]) await send('DELETE', `/servers/${id}`);
    await send('PATCH', `/servers/${patched}`, { add_tags: [tag] });
    await send('PATCH', `/servers/${deletedPatched}`, { add_tags: [tag] });
    await send('PATCH', '/servers', [
      { id: bulkPatched, add_tags: [tag] },
      { id: deletedBulkPatched, add_tags: [tag] },
    ]);
    await send('PUT', `/servers/${deletedPut}`, { ...serverBody([tag]) });
    const liveOnes = newestFirst([...live, patched, bulkPatched]);
    await assertListed(tag, liveOnes);
    // Five live, three deleted: counted with the deleted ones, the total would stop at the cap.
    await send('POST', `/servers`, serverBody([tag]));
    const counted = await listed(tag);
    assert.deepEqual([counted.total, counted.exact], [EXACT_MAX, true]);
    const all = await listed(tag, '&include_deleted=true');
    assert.deepEqual([all.ids.length, all.total, all.exact], [8, EXACT_MAX, false]);
    for (const id of [deletedPatched, deletedBulkPatched, deletedPut]) await send('POST', `/servers/${id}/restore`);
    assert.deepEqual((await listed(tag)).ids, all.ids);
  });

  test('a dry run of a delete leaves the tag list as it was', async () => {
    const tag = await newTag();
    const ids = [await newServer([tag]), await newServer([tag])];
    await send('DELETE', `/servers/${ids[0]}?dry_run=true`);
    await assertListed(tag, newestFirst(ids));
  });
});
