// Every open connection of an HTTP server and whether it is idle: no request in progress,
// either never used yet or waiting between keep-alive requests. Idle connections are kept
// in the order they became idle, so the one idle for longest is found at once (for the
// connection limit), and every connection accepted is counted (for the orderly stop).
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

interface State {
  readonly socket: Socket;
  /** Requests received and not yet answered (more than one when the client pipelines). */
  busy: number;
}

/** A response's connection state, kept on the response for the one listener all responses share. */
const STATE = Symbol('open-connections state');
type TrackedResponse = ServerResponse & { [STATE]?: State };

export class OpenConnections {
  private readonly states = new Map<Socket, State>();
  /** The idle ones, the longest idle first (a Set iterates in insertion order). */
  private readonly idle = new Set<Socket>();
  private acceptedCount = 0;

  constructor(server: Server) {
    server.on('connection', (socket: Socket) => {
      this.acceptedCount++;
      this.states.set(socket, { socket, busy: 0 });
      this.idle.add(socket);
      socket.once('close', () => {
        this.states.delete(socket);
        this.idle.delete(socket);
      });
    });
    // One listener for every response, not a new closure (and `once` wrapper) per request:
    // this runs on every request. The state is taken off at the first close, as `once` would.
    const closed = (response: TrackedResponse): void => {
      const state = response[STATE];
      if (state === undefined) return;
      response[STATE] = undefined;
      state.busy--;
      if (state.busy === 0 && this.states.has(state.socket)) this.idle.add(state.socket);
    };
    function onClose(this: TrackedResponse): void {
      closed(this);
    }
    server.on('request', (request: IncomingMessage, response: TrackedResponse) => {
      const socket = request.socket;
      const state = this.states.get(socket);
      if (state === undefined) return;
      state.busy++;
      this.idle.delete(socket);
      response[STATE] = state;
      response.on('close', onClose);
    });
  }

  /** Connections open now. */
  get size(): number {
    return this.states.size;
  }

  /** Connections accepted since the start. */
  get accepted(): number {
    return this.acceptedCount;
  }

  /** The connection idle for longest, other than `except`; undefined if none is idle. */
  longestIdle(except: Socket): Socket | undefined {
    for (const socket of this.idle) if (socket !== except) return socket;
    return undefined;
  }
}
