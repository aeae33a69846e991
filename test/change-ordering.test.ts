// Contract section 13's ordering guarantee, with two instances on one PostgreSQL or MariaDB
// database: writers on both (4, then 8 per instance) (several connections each, single writes and bulk ones, whose
// long transactions take ids early and commit late), a reader on instance A that drops its
// connection every few events and resumes by Last-Event-ID, and a steady reader on B. Each
// must receive every committed change exactly once, in strictly increasing id order, the same
// records as the list on either instance, one per acknowledged write (entry), none of anything
// else, and the entries' state must be the last record's `after`. A change made through B
// reaches a stream on A within 1 s.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { describe, test } from 'node:test';
import { changesAfter, lastChangeId, openStream, percentile, type ChangeRecord, type ChangeStream } from './support/change-stream.js';
import { allEntries } from './support/entries.js';
import { startServer, type TestServer } from './support/server.js';
import { BACKEND, createTestDatabase } from './support/test-database.js';

const STREAM = '/en/api/changes/stream';
const API = '/en/api/config';
/** The section 13 test (4 writers per instance), and issue #38's (8 per instance): with change
 * ids given after the commit, writers no longer queue, and more of them overlap. */
const CASES = [
  { writers: 4, operations: 36 },
  { writers: 8, operations: 24 },
] as const;
const BULK_EVERY = 12;
const BULK_SIZE = 25;
/** How long after the writers finish the readers may take to catch up. */
const CATCH_UP_MS = 60_000;

const skip = BACKEND === 'sqlite' ? 'several instances on one database server: PostgreSQL and MariaDB (SQLite is one file on one machine)' : false;
const ids = (records: readonly ChangeRecord[]) => records.map((record) => record.id);
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** What one acknowledged request must have left in the log: one record per entry it wrote. */
interface Acknowledged {
  action: ChangeRecord['action'];
  resource: string;
  entryIds: number[];
}

interface Reader {
  delivered: ChangeRecord[];
  connections: number;
  /** Ids that came after a larger or equal one. */
  outOfOrder: string[];
  done: Promise<void>;
}

/** Reads the feed of `server` from `since`, dropping the connection after 1 to 6 events (or a
 * quiet second) and resuming with Last-Event-ID, until it has seen `target()`. */
function restlessReader(server: TestServer, since: number, target: () => number | undefined, deadline: () => number): Reader {
  const reader: Reader = { delivered: [], connections: 0, outOfOrder: [], done: Promise.resolve() };
  let last = since;
  reader.done = (async () => {
    for (;;) {
      const goal = target();
      if (goal !== undefined && last >= goal) return;
      assert.ok(Date.now() < deadline(), `the reader reached ${last}, not ${goal}, in time`);
      const stream: ChangeStream = await openStream(server.url, STREAM, { headers: { 'last-event-id': String(last) } });
      reader.connections++;
      const want = 1 + Math.floor(Math.random() * 6);
      try {
        assert.equal(stream.status, 200, stream.text);
        await stream.waitFor('a few events', () => stream.changes.length >= want, 1000).catch(() => undefined);
      } finally {
        stream.close();
      }
      // Gone after `want` events: what came in the same chunk is lost to it, as to a client
      // whose connection dropped there.
      for (const record of stream.changes.slice(0, want)) {
        if (record.id <= last) reader.outOfOrder.push(`${record.id} after ${last}`);
        reader.delivered.push(record);
        last = Math.max(last, record.id);
      }
    }
  })();
  // Awaited later; a failure meanwhile must not be an unhandled rejection.
  reader.done.catch(() => undefined);
  return reader;
}

describe('the change feed with two instances on one database', { skip }, () => {
  for (const { writers: WRITERS_PER_INSTANCE, operations: OPERATIONS_PER_WRITER } of CASES)
  test(`${WRITERS_PER_INSTANCE} concurrent writers on each instance, a reader resuming by Last-Event-ID every few events: every change once, in order; B to A within 1 s`, { timeout: 300_000 }, async (t) => {
    const dirs = [mkdtempSync(join(tmpdir(), 'config-api-order-')), mkdtempSync(join(tmpdir(), 'config-api-order-'))];
    const database = await createTestDatabase(dirs[0]!);
    const env = { SECRET_KEY: randomBytes(32).toString('hex'), CHANGES_KEEPALIVE_MS: '500' };
    const running: TestServer[] = [];
    try {
      running.push(await startServer({ database, dataDir: dirs[0]!, env }));
      running.push(await startServer({ database, dataDir: dirs[1]!, env }));
      const [a, b] = running as [TestServer, TestServer];
      // Something in the log first, so that the readers resume from an id above 0.
      const seed = await a.request('POST', `${API}/tags`, { body: { name: 'ordering-seed' } });
      assert.equal(seed.status, 201);
      const since = await lastChangeId(a);

      let finalId: number | undefined;
      let catchUpUntil = Number.POSITIVE_INFINITY;
      const restless = restlessReader(a, since, () => finalId, () => catchUpUntil);
      const steady = await openStream(b.url, `${STREAM}?since=${since}`);
      assert.equal(steady.status, 200);

      const acknowledged = new Map<string, Acknowledged>();
      const refused: string[] = [];
      /** Writes answered 503 (a deadlock victim on MariaDB, see the report) and sent again, as a
       * client does: each must have left no record (checked below with every other record). */
      const retried: string[] = [];
      const writer = async (instance: number, w: number): Promise<void> => {
        const server = running[instance]!;
        const live: number[] = [];
        for (let n = 0; n < OPERATIONS_PER_WRITER; n++) {
          const kind = n % BULK_EVERY === BULK_EVERY - 1 ? 'bulk' : live.length === 0 ? 'create' : (['create', 'update', 'server', 'delete'] as const)[n % 4]!;
          for (let attempt = 0; ; attempt++) {
            const rid = `ord-${instance}-${w}-${n}${attempt === 0 ? '' : `-again-${attempt}`}`;
            const headers = { 'x-request-id': rid };
            let reply;
            if (kind === 'bulk') {
              const bodies = Array.from({ length: BULK_SIZE }, (_, index) => ({ name: `ord-bulk-${instance}-${w}-${n}-${index}` }));
              reply = await server.request('POST', `${API}/tags`, { body: bodies, headers });
              if (reply.status === 201) acknowledged.set(rid, { action: 'create', resource: 'tags', entryIds: reply.body.items.map((item: { id: number }) => item.id) });
            } else if (kind === 'create') {
              reply = await server.request('POST', `${API}/tags`, { body: { name: `ord-${instance}-${w}-${n}` }, headers });
              if (reply.status === 201) {
                live.push(reply.body.id);
                acknowledged.set(rid, { action: 'create', resource: 'tags', entryIds: [reply.body.id] });
              }
            } else if (kind === 'update') {
              const id = live.at(-1)!;
              reply = await server.request('PATCH', `${API}/tags/${id}`, { body: { color: `#${(n * 4099 + w * 31 + instance).toString(16).padStart(6, '0').slice(-6)}` }, headers });
              if (reply.status === 200) acknowledged.set(rid, { action: 'update', resource: 'tags', entryIds: [id] });
            } else if (kind === 'server') {
              reply = await server.request('POST', `${API}/servers`, { body: { ip: `10.${160 + instance}.${w}.${n}`, tags: [live.at(-1)!] }, headers });
              if (reply.status === 201) acknowledged.set(rid, { action: 'create', resource: 'servers', entryIds: [reply.body.id] });
            } else {
              // Deleting a tag also records the update of the server that carries it: the same request id.
              const id = live[0]!;
              reply = await server.request('DELETE', `${API}/tags/${id}`, { headers });
              if (reply.status === 200) {
                live.shift();
                acknowledged.set(rid, { action: 'delete', resource: 'tags', entryIds: [id] });
              }
            }
            if (reply.status === 503 && attempt < 5) {
              retried.push(`${rid} ${kind}: ${reply.text.slice(0, 120)}`);
              continue;
            }
            if (reply.status >= 300) refused.push(`${rid} ${kind}: ${reply.status} ${reply.text.slice(0, 200)}`);
            break;
          }
        }
      };
      const started = performance.now();
      await Promise.all([0, 1].flatMap((instance) => Array.from({ length: WRITERS_PER_INSTANCE }, (_, w) => writer(instance, w))));
      const writing = performance.now() - started;

      const listed = await changesAfter(a, since);
      finalId = listed.at(-1)?.id ?? since;
      catchUpUntil = Date.now() + CATCH_UP_MS;
      await restless.done;
      await steady.waitFor(`the steady reader reaches ${finalId}`, () => (steady.changes.at(-1)?.id ?? since) >= finalId!, CATCH_UP_MS);
      steady.close();
      t.diagnostic(
        `${acknowledged.size} writes acknowledged (${refused.length} refused, ${retried.length} answered 503 and sent again) in ${Math.round(writing)} ms, ${listed.length} records; ` +
          `the restless reader connected ${restless.connections} times`,
      );

      // The list: the same on both instances, ascending.
      assert.deepEqual(await changesAfter(b, since), listed, 'both instances list the same records');
      for (let i = 1; i < listed.length; i++) assert.ok(listed[i]!.id > listed[i - 1]!.id);

      // Exactly once, in order, nothing missing: both readers got the list, record for record.
      assert.deepEqual(restless.outOfOrder, [], 'no id came after a larger one, no id twice');
      assert.deepEqual(ids(restless.delivered), ids(listed), 'the restless reader got every record once, in order');
      assert.deepEqual(restless.delivered, listed);
      assert.deepEqual(ids(steady.changes), ids(listed), 'the steady reader got every record once, in order');

      // One record per entry of each acknowledged write, with its request id; nothing else.
      const byRequest = new Map<string, ChangeRecord[]>();
      for (const record of listed) byRequest.set(record.request_id, [...(byRequest.get(record.request_id) ?? []), record]);
      for (const [rid, write] of acknowledged) {
        const records = (byRequest.get(rid) ?? []).filter((record) => record.resource === write.resource && record.action === write.action);
        assert.deepEqual(records.map((record) => record.entry_id).sort((x, y) => x - y), [...write.entryIds].sort((x, y) => x - y), `${rid}: one ${write.action} record per entry`);
      }
      for (const [rid, records] of byRequest) {
        const write = acknowledged.get(rid);
        assert.ok(write, `records of ${rid}, which no acknowledged write sent`);
        const extra = records.filter((record) => !(record.resource === write.resource && record.action === write.action));
        // A tag delete also updates the servers that carried the tag; nothing else is extra.
        assert.ok(extra.every((record) => write.action === 'delete' && record.resource === 'servers' && record.action === 'update'), `${rid}: unexpected records`);
      }

      // The entries are what their last records say.
      const last = new Map<string, ChangeRecord>();
      for (const record of listed) last.set(`${record.resource}/${record.entry_id}`, record);
      for (const resource of ['tags', 'servers']) {
        const entries = new Map((await allEntries(b, resource)).map((item) => [`${resource}/${String(item.id)}`, item]));
        for (const [key, record] of last) {
          if (!key.startsWith(`${resource}/`)) continue;
          if (record.after === null) assert.equal(entries.get(key), undefined, `${key} is deleted`);
          else assert.deepEqual(entries.get(key), record.after, `${key} is its last record's after`);
        }
        for (const key of entries.keys()) {
          if (key !== `tags/${seed.body.id}`) assert.ok(last.has(key), `${key} exists without a record`);
        }
      }

      // B to A: a change made through B reaches a stream on A within 1 s.
      const from = await lastChangeId(a, finalId);
      const watcher = await openStream(a.url, `${STREAM}?since=${from}`);
      try {
        await watcher.waitFor('the first comment', () => watcher.comments.length > 0);
        const answered = new Map<string, number>();
        for (let n = 0; n < 50; n++) {
          const rid = `b-to-a-${n}`;
          const reply = await b.request('POST', `${API}/clients`, { body: { libelle: `b-to-a-${n}` }, headers: { 'x-request-id': rid } });
          assert.equal(reply.status, 201);
          answered.set(rid, performance.now());
          await sleep(20 + Math.floor(Math.random() * 60));
        }
        await watcher.waitForChanges(50, 15_000);
        const latencies = watcher.events
          .filter((event) => event.event === 'change')
          .map((event, index) => Math.max(0, event.receivedAt - answered.get(watcher.changes[index]!.request_id)!));
        assert.deepEqual(watcher.changes.map((record) => record.request_id), [...answered.keys()]);
        const report = `p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms`;
        t.diagnostic(`B to A on ${BACKEND}, after the write's answer: ${report}`);
        assert.ok(percentile(latencies, 99) < 1000, `B to A: ${report}`);
      } finally {
        watcher.close();
      }

      for (const line of retried) t.diagnostic(`answered 503, sent again: ${line}`);
      assert.deepEqual(refused, [], 'every concurrent write was acknowledged (after at most 5 tries on a 503)');
    } finally {
      await Promise.all(running.map((server) => server.stop()));
      await database.drop();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    }
  });
});
