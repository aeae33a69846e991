// What the fault tests of issue #38 check once the fault is over (test/process/
// change-sequencer-faults.test.ts, database-restart.test.ts): every acknowledged write has
// exactly one change record, no record was made by nobody, no entry exists without its
// record, and the ids follow each other without a gap or a repeat.
import assert from 'node:assert/strict';
import { changesAfter, type ChangeRecord } from './change-stream.js';
import { allEntries } from './entries.js';
import type { TestServer } from './server.js';
import { until } from './until.js';

/** Every record of the log, once it stops growing (B's sweep numbers what A left). */
export async function settledLog(server: TestServer): Promise<ChangeRecord[]> {
  let previous = -1;
  let records: ChangeRecord[] = [];
  await until(
    'the change log settles',
    async () => {
      records = await changesAfter(server, 0);
      const settled = records.length === previous;
      previous = records.length;
      return settled;
    },
    30_000,
    700,
  );
  return records;
}

/** The checks of both faults: `acknowledged` request ids each have one create record, every
 * record was sent (`sent`) and is the only one of its entry, ids increase by one from the
 * first, and every tag has its record (`sent` names created through `name`). Resolves to the
 * whole log. */
export async function assertExact(server: TestServer, sent: ReadonlySet<string>, acknowledged: ReadonlySet<string>): Promise<ChangeRecord[]> {
  const records = await settledLog(server);
  const creates = records.filter((record) => record.resource === 'tags' && record.action === 'create');
  for (let i = 1; i < records.length; i++) assert.equal(records[i]!.id, records[i - 1]!.id + 1, `ids follow each other: ${records[i - 1]!.id} then ${records[i]!.id}`);
  const byRequest = new Map<string, number>();
  for (const record of creates) {
    assert.ok(sent.has(record.request_id), `a record of ${record.request_id}, which nobody sent`);
    byRequest.set(record.request_id, (byRequest.get(record.request_id) ?? 0) + 1);
  }
  for (const [rid, count] of byRequest) assert.equal(count, 1, `${rid}: one record, not ${count}`);
  for (const rid of acknowledged) assert.equal(byRequest.get(rid), 1, `${rid} was acknowledged: it has its record`);
  const tags = await allEntries(server, 'tags');
  const recorded = new Set(creates.map((record) => record.entry_id));
  for (const tag of tags) assert.ok(recorded.has(Number(tag.id)), `tag ${String(tag.id)} exists without its record`);
  assert.equal(tags.length, creates.length, 'one tag per create record');
  return records;
}


/** Writers creating tags on `server` until stopped, each request named by its request id
 * (`<prefix>-<writer>-<n>`): what the fault tests write under their fault. A refusal must be
 * 503 (the database out of reach); it is counted and the writer waits 50 ms. */
export interface TagWriters {
  /** Request ids sent, and those answered 201. */
  readonly sent: Set<string>;
  readonly acknowledged: Set<string>;
  /** Writes answered 503 so far. */
  unavailable(): number;
  /** Stops the writers and waits for their last requests. */
  stop(): Promise<void>;
}

export function startTagWriters(server: TestServer, writers: number, prefix: string): TagWriters {
  const sent = new Set<string>();
  const acknowledged = new Set<string>();
  let stopped = false;
  let unavailable = 0;
  const writer = async (w: number): Promise<void> => {
    for (let n = 0; !stopped; n++) {
      const rid = `${prefix}-${w}-${n}`;
      sent.add(rid);
      const reply = await server.request('POST', '/en/api/config/tags', { body: { name: rid }, headers: { 'x-request-id': rid } });
      if (reply.status === 201) acknowledged.add(rid);
      else {
        assert.equal(reply.status, 503, `${reply.text}\n${server.logs().split('\n').filter((line) => /"level":50/.test(line)).slice(-3).join('\n')}`);
        unavailable++;
        await new Promise((done) => setTimeout(done, 50));
      }
    }
  };
  const running = Array.from({ length: writers }, (_, w) => writer(w));
  return {
    sent,
    acknowledged,
    unavailable: () => unavailable,
    stop: async () => {
      stopped = true;
      await Promise.all(running);
    },
  };
}
