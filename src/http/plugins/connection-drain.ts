// The orderly stop, as clients see it. Closing the listening socket at once would reset every
// connection still in the kernel's accept queue, though their clients have connected and
// sent their request; and a connection accepted but not yet read counts as idle, so the
// closing of idle connections would reset it too. So, on close:
// 1. the server keeps accepting until the accept queue is empty: an event-loop turn whose
//    poll phase accepted nothing. Node (libuv 1.46) accepts one connection per turn, and a
//    turn that serves a write waits for its commit, so this takes as many turns as there
//    were connections queued; it is bounded by half the grace period, should clients keep
//    coming;
// 2. one more turn reads the requests of the connections accepted last, so they are in
//    progress, not idle;
// 3. then Fastify closes the listening socket and the idle connections (they get a clean
//    close), and every request in progress is answered with Connection: close. A keep-alive
//    connection left idle by such an answer is closed at once, rather than held open until
//    its client or keepAliveTimeout ends it, which would hold the stop until the grace
//    period runs out.
import fp from 'fastify-plugin';
import type { OpenConnections } from '../open-connections.js';

function nextTurn(): Promise<void> {
  return new Promise((done) => setImmediate(done));
}

/** Resolves once an event-loop turn accepted no connection (or after `maxMs`), then once more. */
async function acceptQueueDrained(connections: OpenConnections, maxMs: number): Promise<void> {
  const deadline = Date.now() + maxMs;
  let before = connections.accepted;
  // Called from any phase: the first immediate may run in this very turn, before its poll.
  await nextTurn();
  for (;;) {
    // Called from an immediate, this one runs in the next turn, after its poll phase.
    await nextTurn();
    const now = connections.accepted;
    if (now === before || Date.now() >= deadline) break;
    before = now;
  }
  await nextTurn();
}

export default fp<{ acceptDrainMs: number }>(
  async (app, { acceptDrainMs }) => {
    let draining = false;
    let acceptDrained = false;
    app.addHook('preClose', async () => {
      draining = true;
      await acceptQueueDrained(app.openConnections, acceptDrainMs);
      acceptDrained = true;
    });
    app.addHook('onSend', (_request, reply, payload, done) => {
      if (draining) reply.header('connection', 'close');
      done(null, payload);
    });
    app.addHook('onResponse', (_request, _reply, done) => {
      // Not before the queue is drained: a connection just accepted, its request still
      // unread, is idle too, and closing it would reset it.
      if (acceptDrained) app.server.closeIdleConnections();
      done();
    });
  },
  { name: 'connection-drain', dependencies: ['connection-limit'] },
);
