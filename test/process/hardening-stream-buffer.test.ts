// Hardening: change streams that never read cannot make the service hold every change for
// them. What all streams hold unsent together is bounded (CHANGE_STREAM_BUFFER_BYTES); past
// it, the streams furthest behind are cut (their clients resume from the log), while a stream
// that reads keeps receiving every change. Before, each stream could hold 8 MiB, and a hundred
// streams that never read took hundreds of megabytes.
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { describe, test } from 'node:test';
import { changesAfter, lastChangeId, openStream } from '../support/change-stream.js';
import { startServer } from '../support/server.js';
import { until } from '../support/until.js';

const STREAM = '/en/api/changes/stream';
const BOUND = 1024 * 1024;
// Writes about 8 MB of change records (about 700 bytes each). The kernel takes a few MB of
// it for a socket that does not read (its send and receive buffers, at most 4 MB and a few
// hundred KB here); the rest stays in the service. That rest is several times the bound, but
// less than the 8 MiB one stream may hold by itself, so that only the bound over all streams
// can cut them. Each write is small enough that all streams together can take one without
// passing the bound.
const REQUESTS = 112;
const PER_REQUEST = 100;

interface SilentStream {
  socket: Socket;
  /** Bytes taken in before the socket stopped reading. */
  received: () => number;
  /** Resolves once the server's end (or a reset) reaches the socket. */
  ended: Promise<'end' | 'reset'>;
}

/** A stream request on a raw socket that then reads nothing more (a paused socket lets the
 * kernel's receive buffer fill, and then the server's queue grows). */
function silentStream(url: string, since: number): Promise<SilentStream> {
  const { hostname, port } = new URL(url);
  return new Promise((resolveOpen, failOpen) => {
    const socket = connect(Number(port), hostname);
    let bytes = 0;
    let settle: (how: 'end' | 'reset') => void = () => undefined;
    const ended = new Promise<'end' | 'reset'>((done) => (settle = done));
    socket.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    socket.on('end', () => settle('end'));
    socket.on('close', () => settle('end'));
    socket.on('error', () => settle('reset'));
    socket.once('connect', () => {
      socket.write(`GET ${STREAM}?since=${since} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAccept: text/event-stream\r\n\r\n`);
      // Stops reading once the headers came.
      socket.once('data', () => {
        socket.pause();
        resolveOpen({ socket, received: () => bytes, ended });
      });
    });
    socket.once('error', failOpen);
  });
}

describe('the bytes all change streams hold unsent are bounded', { timeout: 120_000 }, () => {
  test('non-reading streams are cut past CHANGE_STREAM_BUFFER_BYTES; a reading stream receives every change', async (t) => {
    // A process of its own: the silent sockets of this test must not share the service's event
    // loop and memory, or what the service holds unsent is not what is measured.
    const server = await startServer({ env: { CHANGE_STREAM_BUFFER_BYTES: String(BOUND) }, process: true });
    const silent: SilentStream[] = [];
    try {
      const since = await lastChangeId(server);
      const reader = await openStream(server.url, `${STREAM}?since=${since}`);
      assert.equal(reader.status, 200);
      for (let i = 0; i < 3; i++) silent.push(await silentStream(server.url, since));

      const started = Date.now();
      let written = 0;
      for (let request = 0; request < REQUESTS; request++) {
        const body = Array.from({ length: PER_REQUEST }, (_, index) => ({
          libelle: `buffer-${process.pid}-${request}-${index}-`.padEnd(100, 'x'),
          logo: 'l'.repeat(250),
        }));
        const reply = await server.request('POST', '/en/api/config/clients', { body });
        assert.equal(reply.status, 201, reply.text.slice(0, 500));
        written += PER_REQUEST;
      }
      const records = await changesAfter(server, since);
      assert.equal(records.length, written);
      await reader.waitForChanges(written, 30_000);
      assert.deepEqual(
        reader.changes.map((record) => record.id),
        records.map((record) => record.id),
        'the reading stream received every change, in order',
      );
      assert.equal(reader.isEnded, false, 'the reading stream stays open');
      t.diagnostic(`${written} changes (${Math.round(reader.text.length / 1024)} KiB of events) written and read in ${Date.now() - started} ms`);

      // The silent streams were cut: reading again, each sees its end (after what the kernel
      // still held), well before it could have received every change.
      const endings = await Promise.all(
        silent.map(async (stream) => {
          stream.socket.resume();
          let timer: NodeJS.Timeout | undefined;
          const how = await Promise.race([stream.ended, new Promise<'open'>((done) => (timer = setTimeout(() => done('open'), 10_000)))]);
          clearTimeout(timer);
          return { how, kib: Math.round(stream.received() / 1024) };
        }),
      );
      t.diagnostic(`silent streams: ${endings.map((ending) => `${ending.how} after ${ending.kib} KiB`).join(', ')}`);
      for (const ending of endings) {
        assert.notEqual(ending.how, 'open', 'a stream that never read was not cut');
        assert.ok(ending.kib * 1024 < reader.text.length, 'a stream that never read was cut before it had every change');
      }
      // The process writes its log lines through a buffer (LOG_BUFFER_BYTES): the line may
      // reach the pipe a moment after the cut.
      await until('the warning "change streams cut" in the log', () => /change streams cut/.test(server.logs()), 10_000);
    } finally {
      for (const stream of silent) stream.socket.destroy();
      await server.stop();
      await server.cleanup();
    }
  });
});
