// Contract section 13, the change feed (GET /{lang}/api/changes/stream, Server-Sent Events):
// the format (a comment first, then `id:`/`event: change`/`data:` per record, the same
// records as the list), keep-alive comments every CHANGES_KEEPALIVE_MS, resuming by
// Last-Event-ID or ?since= (the header wins), the list's filters, delivery latency on one
// instance, 200 clients at once each receiving every write, and streams taking at most half of
// MAX_CONNECTIONS. SIGTERM with streams open: test/process/change-feed-sigterm.test.ts.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { performance } from 'node:perf_hooks';
import { describe, test } from 'node:test';
import { STREAM, changesAfter, created, lastChangeId, openStream, percentile, unique, withStreams, type ChangeRecord, type ChangeStream } from './support/change-stream.js';
import { serverPerSuite, startServer, type TestServer } from './support/server.js';
import { BACKEND } from './support/test-database.js';

const API = '/en/api/config';
const EVENT = /^id: (\d+)\nevent: change\ndata: (\{[^\n]*\})\n\n$/;

const requestId = (label: string) => `feed-${label}-${randomBytes(4).toString('hex')}`;
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
const ids = (records: readonly ChangeRecord[]) => records.map((record) => record.id);

function headersOf(incoming: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return headers;
}

async function changed(server: TestServer, method: string, path: string, body?: unknown): Promise<void> {
  const reply = await server.request(method, path, body === undefined ? {} : { body });
  assert.equal(reply.status, 200, `${method} ${path}: ${reply.text}`);
}

/** The change events of a stream with the time each arrived. */
function arrivals(stream: ChangeStream): { record: ChangeRecord; receivedAt: number }[] {
  return stream.events.filter((event) => event.event === 'change').map((event, index) => ({ record: stream.changes[index]!, receivedAt: event.receivedAt }));
}

describe('the change feed', { timeout: 300_000 }, () => {
  // Every client of these tests comes from 127.0.0.1: 200 streams from one address are allowed.
  const server = serverPerSuite({ env: { CHANGE_STREAMS_PER_ADDRESS: '0' } });

  test('text/event-stream; a comment line first, at once; then each change as id/event/data, the records of the list', async () => {
    const since = await lastChangeId(server);
    const path = `${STREAM}?since=${since}`;
    const stream = await openStream(server.url, path);
    await withStreams([stream], async () => {
      assert.equal(stream.status, 200);
      assert.match(String(stream.headers['content-type']), /^text\/event-stream\b/);
      server.checkResponse('GET', path, { status: stream.status, headers: headersOf(stream.headers), text: '' });
      await stream.waitFor('a first comment line', () => stream.comments.length > 0, 3000);
      assert.match(stream.text, /^:[^\n]*\n/, 'the body starts with a comment line');
      assert.ok(stream.comments[0]!.receivedAt - stream.openedAt < 1000, 'the first comment comes right after the headers');

      const id = await created(server, 'tags', { name: unique('feed') }, { 'x-request-id': requestId('format') });
      await changed(server, 'PATCH', `${API}/tags/${id}`, { color: '#123456' });
      await changed(server, 'DELETE', `${API}/tags/${id}`);
      await stream.waitForChanges(3);
      const listed = await changesAfter(server, since);
      assert.equal(listed.length, 3);
      assert.deepEqual(stream.changes, listed, 'the stream carries the records of the list');

      const events = stream.events;
      assert.equal(events.length, 3, 'nothing but the changes');
      for (const [index, event] of events.entries()) {
        const match = EVENT.exec(event.raw);
        assert.ok(match, `event ${index} is "id: N\\nevent: change\\ndata: {json}\\n\\n": ${JSON.stringify(event.raw)}`);
        assert.equal(Number(match[1]), listed[index]!.id, 'id: is the record id');
      }
      for (const line of stream.text.split('\n')) {
        assert.ok(line === '' || line.startsWith(':') || /^(id|event|data): /.test(line), `an unexpected line: ${JSON.stringify(line)}`);
      }
      assert.deepEqual(ids(stream.changes), ids(listed));
      assert.equal(stream.isEnded, false, 'the stream stays open');
      server.checkResponse('GET', path, { status: stream.status, headers: headersOf(stream.headers), text: stream.text });
    });
  });

  test('keep-alive: one comment every CHANGES_KEEPALIVE_MS; by default far fewer', { timeout: 60_000 }, async () => {
    const quick = await startServer({ env: { CHANGES_KEEPALIVE_MS: '200' } });
    try {
      const [fast, slow] = [await openStream(quick.url, `${STREAM}?since=0`), await openStream(server.url, `${STREAM}?since=0`)];
      await withStreams([fast, slow], async () => {
        assert.equal(fast.status, 200);
        await sleep(2100);
        const seen = fast.comments.map((comment) => comment.receivedAt);
        const gaps = seen.slice(1).map((at, index) => at - seen[index]!);
        assert.ok(seen.length >= 6 && seen.length <= 14, `${seen.length} comments in 2.1 s at 200 ms`);
        assert.ok(Math.max(...gaps) < 800, `the longest silence is ${Math.round(Math.max(...gaps))} ms`);
        assert.equal(fast.events.length, 0, 'a keep-alive is a comment, not an event');
        // One timer ticks for every stream, so a tick of the default 15 s may fall in the window.
        assert.ok(slow.comments.length <= 2, `${slow.comments.length} comments in 2.1 s: the default interval (15 s) is not short`);
      });
    } finally {
      await quick.stop();
      await quick.cleanup();
    }
  });

  test('resume: Last-Event-ID, or ?since=, gives exactly the later changes; the header wins over ?since=', async () => {
    const since = await lastChangeId(server);
    for (let n = 0; n < 5; n++) await created(server, 'tags', { name: unique('resume') });
    const listed = ids(await changesAfter(server, since));
    assert.equal(listed.length, 5);
    const byHeader = await openStream(server.url, STREAM, { headers: { 'last-event-id': String(listed[1]) } });
    const bySince = await openStream(server.url, `${STREAM}?since=${listed[2]}`);
    const both = await openStream(server.url, `${STREAM}?since=${listed[0]}`, { headers: { 'last-event-id': String(listed[3]) } });
    const french = await openStream(server.url, `/fr/api/changes/stream?since=${listed[3]}`);
    await withStreams([byHeader, bySince, both, french], async () => {
      for (const stream of [byHeader, bySince, both, french]) assert.equal(stream.status, 200);
      const marker = await created(server, 'clients', { libelle: unique('marker') });
      const markerRecord = (await changesAfter(server, listed[4]!)).find((record) => record.entry_id === marker && record.resource === 'clients')!;
      const expected: [ChangeStream, number[]][] = [
        [byHeader, [...listed.slice(2), markerRecord.id]],
        [bySince, [...listed.slice(3), markerRecord.id]],
        [both, [...listed.slice(4), markerRecord.id]],
        [french, [...listed.slice(4), markerRecord.id]],
      ];
      for (const [stream, wanted] of expected) {
        await stream.waitFor(`record ${markerRecord.id}`, () => stream.changes.some((record) => record.id === markerRecord.id));
        assert.deepEqual(ids(stream.changes), wanted);
      }
    });
  });

  test('filters: resource, entry_id, actor and action, as the list has them; invalid ones are 400', async () => {
    const since = await lastChangeId(server);
    const filters = ['resource=clients', 'action=delete', 'actor=anonymous&action=create', 'actor=nobody'];
    const streams = await Promise.all(filters.map((filter) => openStream(server.url, `${STREAM}?since=${since}&${filter}`)));
    await withStreams(streams, async () => {
      const tag = await created(server, 'tags', { name: unique('filter') });
      const client = await created(server, 'clients', { libelle: unique('filter') });
      await changed(server, 'PATCH', `${API}/tags/${tag}`, { color: '#654321' });
      const entry = await created(server, 'servers', { ip: '10.150.0.1', id_client: client });
      await changed(server, 'DELETE', `${API}/servers/${entry}`);
      await changed(server, 'PATCH', `${API}/clients/${client}`, { logo: 'logo.png' });
      await changed(server, 'DELETE', `${API}/tags/${tag}`);
      const entryStream = await openStream(server.url, `${STREAM}?since=${since}&resource=tags&entry_id=${tag}`);
      streams.push(entryStream);
      filters.push(`resource=tags&entry_id=${tag}`);
      for (const [index, stream] of streams.entries()) {
        assert.equal(stream.status, 200);
        const wanted = await changesAfter(server, since, filters[index]!);
        if (wanted.length > 0) await stream.waitFor(`${filters[index]}: record ${wanted.at(-1)!.id}`, () => stream.changes.some((record) => record.id === wanted.at(-1)!.id));
        else await sleep(500);
        assert.deepEqual(stream.changes, wanted, filters[index]);
      }
      assert.deepEqual(streams.map((stream) => stream.changes.length), [2, 2, 3, 0, 3]);
    });
    for (const query of ['resource=nope', 'since=abc', 'since=-1', 'action=nope', 'entry_id=x', 'since=1&since=2', 'limit=5', 'foo=1']) {
      const stream = await openStream(server.url, `${STREAM}?${query}`);
      const end = await Promise.race([stream.ended, sleep(5000).then(() => 'open')]);
      stream.close();
      assert.equal(stream.status, 400, query);
      assert.match(String(stream.headers['content-type']), /^application\/problem\+json/);
      assert.equal(JSON.parse(stream.text).code, 'BAD_QUERY');
      assert.equal(end, 'end', `${query}: the refusal is a whole response`);
    }
  });

  test(`delivery latency on one ${BACKEND} instance: 50 writes, each on the stream well within 1 s`, async (t) => {
    const since = await lastChangeId(server);
    const stream = await openStream(server.url, `${STREAM}?since=${since}`);
    await withStreams([stream], async () => {
      await stream.waitFor('the first comment', () => stream.comments.length > 0);
      const acknowledged = new Map<string, { sent: number; acked: number }>();
      for (let n = 0; n < 50; n++) {
        const rid = requestId(`latency-${n}`);
        const sent = performance.now();
        await created(server, 'tags', { name: unique('latency') }, { 'x-request-id': rid });
        acknowledged.set(rid, { sent, acked: performance.now() });
        await sleep(10);
      }
      await stream.waitForChanges(50);
      const fromAck: number[] = [];
      const fromSend: number[] = [];
      for (const { record, receivedAt } of arrivals(stream)) {
        const write = acknowledged.get(record.request_id);
        assert.ok(write, `record ${record.id} is of one of the writes`);
        fromAck.push(Math.max(0, receivedAt - write.acked));
        fromSend.push(receivedAt - write.sent);
      }
      assert.equal(fromAck.length, 50);
      const report = (values: number[]) => `p50 ${percentile(values, 50).toFixed(1)} ms, p99 ${percentile(values, 99).toFixed(1)} ms, max ${Math.max(...values).toFixed(1)} ms`;
      t.diagnostic(`after the answer: ${report(fromAck)}; after sending: ${report(fromSend)}`);
      assert.ok(percentile(fromAck, 99) < 1000, `p99 delivery after the write's answer: ${report(fromAck)}`);
    });
  });

  test('200 stream clients at once: each receives every write, in order', { timeout: 90_000 }, async () => {
    const since = await lastChangeId(server);
    const streams: ChangeStream[] = [];
    await withStreams(streams, async () => {
      for (let batch = 0; batch < 4; batch++) {
        streams.push(...(await Promise.all(Array.from({ length: 50 }, () => openStream(server.url, `${STREAM}?since=${since}`, { timeoutMs: 20_000 })))));
      }
      for (const stream of streams) assert.equal(stream.status, 200);
      await Promise.all(streams.map((stream) => stream.waitFor('the first comment', () => stream.comments.length > 0, 20_000)));
      const writers = Array.from({ length: 4 }, async (_, w) => {
        for (let n = 0; n < 5; n++) await created(server, 'tags', { name: unique(`crowd-${w}`) });
      });
      await Promise.all(writers);
      const expected = ids(await changesAfter(server, since));
      assert.equal(expected.length, 20);
      await Promise.all(streams.map((stream) => stream.waitForChanges(20, 30_000)));
      for (const [index, stream] of streams.entries()) assert.deepEqual(ids(stream.changes), expected, `client ${index}`);
      assert.ok(streams.every((stream) => !stream.isEnded));
    });
  });
});

describe('the change feed and the process', { timeout: 180_000 }, () => {
  test('streams count against MAX_CONNECTIONS: they may take half of it, and a closed stream frees its place', { timeout: 60_000 }, async (t) => {
    const server = await startServer({ env: { MAX_CONNECTIONS: '4' } });
    try {
      const streams = await Promise.all(Array.from({ length: 2 }, () => openStream(server.url, `${STREAM}?since=0`)));
      await withStreams(streams, async () => {
        for (const stream of streams) assert.equal(stream.status, 200);
        await Promise.all(streams.map((stream) => stream.waitFor('the first comment', () => stream.comments.length > 0)));
        const third = await openStream(server.url, `${STREAM}?since=0`);
        streams.push(third);
        assert.equal(third.status, 503, 'a third stream with MAX_CONNECTIONS=4');
        assert.equal((await server.request('GET', `${API}/tags`)).status, 200, 'plain requests are still served');
        streams[0]!.close();
        const closed = performance.now();
        const deadline = Date.now() + 10_000;
        for (;;) {
          const again = await openStream(server.url, `${STREAM}?since=0`);
          streams.push(again);
          if (again.status === 200) break;
          assert.ok(Date.now() < deadline, `still ${again.status} after a stream closed`);
          await sleep(100);
        }
        t.diagnostic(`a stream opened again ${Math.round(performance.now() - closed)} ms after one closed`);
      });
    } finally {
      await server.stop();
      await server.cleanup();
    }
  });
});
