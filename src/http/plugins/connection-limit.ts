// MAX_CONNECTIONS without locking clients out. Node's own limit closes every connection past
// it on arrival, with the client's request unread (a bare reset), however many of the open
// ones sit idle: whoever holds the idle connections keeps everybody else out. Here a
// newcomer past the limit makes room instead: the connection idle for longest is closed (a
// connection idle that long is the least likely to be sending, and a flood of connections
// that send nothing goes first). Only when every open connection has a request in progress
// is the newcomer turned away, and then with an answer: its request is read and answered 503
// with Retry-After and Connection: close. The probes are answered whatever the count, so
// that an orchestrator never restarts an instance for being busy.
import type { Socket } from 'node:net';
import fp from 'fastify-plugin';
import { ApiError } from '../../errors/api-error.js';
import { message } from '../../messages/messages.js';
import { OpenConnections } from '../open-connections.js';
import { routeFacts } from '../route-label.js';
import { ThrottledReport } from '../../metrics/throttled-report.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Every open connection of the server and whether it is idle. */
    openConnections: OpenConnections;
  }
  interface FastifyRequest {
    /** Told to openConnections as started: its end is told too. A request Fastify answers
     * before any hook (a path it cannot read) is neither. */
    connectionBusy: boolean;
  }
}

/** What a client turned away is told to wait: the time for requests in progress to end. */
const RETRY_AFTER_SECONDS = 1;
/** Connections closed to make room are logged together, at most this often. */
const REPORT_EVERY_MS = 1000;

export default fp<{ maxConnections: number }>(
  async (app, { maxConnections }) => {
    const connections = new OpenConnections(app.server);
    app.decorate('openConnections', connections);
    app.decorateRequest('connectionBusy', false);
    /** Connections that arrived past the limit with no idle one to make room. */
    const overLimit = new WeakSet<Socket>();

    let closedIdle = 0;
    let turnedAway = 0;
    const report = new ThrottledReport(REPORT_EVERY_MS, () => {
      app.log.warn({ maxConnections, closedIdle, turnedAway }, 'over MAX_CONNECTIONS: closed the connections idle for longest, and answered 503 where none was idle');
      closedIdle = 0;
      turnedAway = 0;
    });
    app.addHook('onClose', async () => report.cancel());

    app.server.on('connection', (socket: Socket) => {
      if (connections.size <= maxConnections) return;
      const idle = connections.longestIdle(socket);
      if (idle !== undefined) {
        idle.destroy();
        closedIdle++;
      } else {
        overLimit.add(socket);
        turnedAway++;
      }
      report.later();
    });

    app.addHook('onRequest', (request, reply, done) => {
      const socket = request.raw.socket;
      // In progress from here until its answer is sent, a refusal below included.
      connections.requestStarted(socket);
      request.connectionBusy = true;
      // Room may have been made since it arrived: then it is served like any other.
      if (!overLimit.has(socket) || connections.size <= maxConnections) {
        overLimit.delete(socket);
        done();
      } else if (routeFacts(request).probe) {
        // Answered, but the connection does not stay past the limit.
        reply.header('connection', 'close');
        done();
      } else {
        const seconds = RETRY_AFTER_SECONDS;
        done(new ApiError('UNAVAILABLE', message('connections.full', { seconds }), [], { 'retry-after': String(seconds), connection: 'close' }));
      }
    });
    // A response that never finishes had its connection closed: gone from openConnections then.
    app.addHook('onResponse', (request, _reply, done) => {
      if (request.connectionBusy) connections.requestEnded(request.raw.socket);
      done();
    });
  },
  { name: 'connection-limit', dependencies: ['problem-responses'] },
);
