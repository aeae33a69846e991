// Every open connection of an HTTP server and whether it is idle: no request in progress,
// either never used yet or waiting between keep-alive requests. Idle connections are kept
// in the order they became idle, so the one idle for longest is found at once (for the
// connection limit), and every connection accepted is counted (for the orderly stop).
// The connections are followed on the server's events; their requests are told by the
// connection limit's hooks (requestStarted, requestEnded), which run for every request
// anyway: a listener of the server's and one of each response would cost every request an
// event more to dispatch and a listener to add.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

interface State {
  /** Requests received and not yet answered (more than one when the client pipelines). */
  busy: number;
}

export class OpenConnections {
  private readonly states = new Map<Socket, State>();
  /** The idle ones, the longest idle first (a Set iterates in insertion order). */
  private readonly idle = new Set<Socket>();
  private acceptedCount = 0;

  constructor(server: Server) {
    server.on('connection', (socket: Socket) => {
      this.acceptedCount++;
      this.states.set(socket, { busy: 0 });
      this.idle.add(socket);
      socket.once('close', () => {
        this.states.delete(socket);
        this.idle.delete(socket);
      });
    });
  }

  /** A request of `socket` was received. */
  requestStarted(socket: Socket): void {
    const state = this.states.get(socket);
    if (state === undefined) return;
    state.busy++;
    this.idle.delete(socket);
  }

  /** A request of `socket` that requestStarted was told of has its answer sent. A connection
   * closed first is gone from here already (its 'close'). */
  requestEnded(socket: Socket): void {
    const state = this.states.get(socket);
    if (state === undefined) return;
    state.busy--;
    if (state.busy === 0) this.idle.add(socket);
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
