// The change log is written in the transaction of the change: writers create, update and
// soft-delete servers concurrently, the service is killed with SIGKILL in the middle, and
// after a restart on the same data every acknowledged write has its record (one, with its
// request id), no record exists that no write sent, and every entry is exactly what its last
// record's `after` says (no record without its entry state, no entry state without its record).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { changesAfter, type ChangeRecord } from '../support/change-stream.js';
import { allEntries } from '../support/entries.js';
import { killUnderWriters } from '../support/kill-under-writers.js';
import { startServer, type TestServer } from '../support/server.js';
import { BACKEND } from '../support/test-database.js';

const KILL_PLAN = { writers: 12, killAfterAcknowledged: 150, killAfterMs: 4000 };
const API = '/en/api/config';

interface Write {
  action: ChangeRecord['action'];
  /** The entry, once known (a create's id comes with its answer). */
  entryId?: number;
  body?: Record<string, unknown>;
}

test(`SIGKILL during concurrent writes on ${BACKEND}: every acknowledged write has its record, no record without its entry state`, { timeout: 180_000 }, async (t) => {
  // SIGKILL needs a process of its own; the restart that reads what it left need not.
  const first = await startServer({ process: true });
  let second: TestServer | undefined;
  try {
    const sent = new Map<string, Write>();
    const acknowledged = new Map<string, Write>();
    const live = new Map<number, number[]>();
    const { failedInFlight } = await killUnderWriters(first, KILL_PLAN, async (w, n) => {
      const own = live.get(w) ?? [];
      live.set(w, own);
      const rid = `crash-${w}-${n}`;
      const headers = { 'x-request-id': rid };
      const step = own.length === 0 ? 0 : n % 3;
      const write: Write =
        step === 0
          ? { action: 'create', body: { ip: `10.${170 + (w % 50)}.${n >> 8}.${n & 255}`, port: 3306 + w, hostname: `change-crash-${w}-${n}`.padEnd(150, 'x') } }
          : step === 1
            ? { action: 'update', entryId: own.at(-1)!, body: { hostname: `patched-${w}-${n}`.padEnd(150, 'y'), is_monitored: n % 2 === 0 } }
            : { action: 'delete', entryId: own.shift()! };
      sent.set(rid, write);
      const reply =
        write.action === 'create'
          ? await first.request('POST', `${API}/servers`, { body: write.body, headers })
          : write.action === 'update'
            ? await first.request('PATCH', `${API}/servers/${write.entryId}`, { body: write.body, headers })
            : await first.request('DELETE', `${API}/servers/${write.entryId}`, { headers });
      if (reply.status < 200 || reply.status >= 300) assert.fail(`${rid} answered ${reply.status} before the kill: ${reply.text}`);
      if (write.action === 'create') {
        write.entryId = reply.body.id;
        own.push(reply.body.id);
      }
      acknowledged.set(rid, write);
    });

    second = await startServer({ dataDir: first.dataDir, database: first.database });
    const records = await changesAfter(second, 0);
    const byRequest = new Map<string, ChangeRecord[]>();
    for (const record of records) byRequest.set(record.request_id, [...(byRequest.get(record.request_id) ?? []), record]);

    // Every acknowledged write has exactly its record.
    for (const [rid, write] of acknowledged) {
      const own = byRequest.get(rid) ?? [];
      assert.equal(own.length, 1, `acknowledged ${rid} (${write.action} ${write.entryId}) has ${own.length} records`);
      const record = own[0]!;
      assert.deepEqual([record.action, record.resource, record.entry_id], [write.action, 'servers', write.entryId], rid);
      for (const [field, value] of Object.entries(write.body ?? {})) assert.deepEqual(record.after?.[field], value, `${rid}: after.${field}`);
      if (write.action === 'delete') assert.equal(record.after?.is_deleted, 1);
    }
    // Nothing else was recorded but writes that were sent (cut in flight at most), one record each.
    let unanswered = 0;
    for (const [rid, own] of byRequest) {
      const write = sent.get(rid);
      assert.ok(write, `records of ${rid}, which no writer sent`);
      assert.equal(own.length, 1, `${rid}: one record`);
      assert.equal(own[0]!.action, write.action, rid);
      if (!acknowledged.has(rid)) unanswered++;
    }
    assert.ok(unanswered <= failedInFlight, `${unanswered} records of unanswered writes, ${failedInFlight} cut in flight`);

    // Every entry is its last record's after; every entry has a create record; each entry's
    // records chain (one's after is the next one's before).
    const chains = new Map<number, ChangeRecord[]>();
    for (const record of records) chains.set(record.entry_id, [...(chains.get(record.entry_id) ?? []), record]);
    const stored = (await allEntries(second, 'servers')).filter((item) => String(item.hostname).startsWith('change-crash-') || String(item.hostname).startsWith('patched-'));
    for (const item of stored) {
      const chain = chains.get(item.id as number);
      assert.ok(chain, `server ${String(item.id)} is stored without any record`);
      assert.equal(chain[0]!.action, 'create', `server ${String(item.id)}: its first record is its create`);
      assert.equal(chain[0]!.before, null);
      for (let i = 1; i < chain.length; i++) assert.deepEqual(chain[i]!.before, chain[i - 1]!.after, `server ${String(item.id)}: records ${chain[i - 1]!.id} and ${chain[i]!.id} chain`);
      assert.deepEqual(chain.at(-1)!.after, item, `server ${String(item.id)} is what its last record says`);
    }
    assert.equal(chains.size, stored.length, 'no record of an entry that is not stored');
    for (const [id, chain] of chains) {
      const item: unknown = (await second.request('GET', `${API}/servers/${id}`)).body.item;
      assert.deepEqual(chain.at(-1)!.after, item, `server ${id}`);
    }
    t.diagnostic(`acknowledged ${acknowledged.size}, cut in flight ${failedInFlight}, records ${records.length} (${unanswered} of unanswered writes)`);
  } finally {
    await second?.stop();
    await first.cleanup();
  }
});
