// A loopback TCP proxy in front of a database server: closing it makes the database
// vanish for the service (refused connections, dropped sessions), reopening it on the
// same port brings it back, without touching the real server other tests use.
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  readonly port: number;
  /** Refuse new connections and cut the open ones. */
  down(): Promise<void>;
  /** Accept connections again on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;

  const listen = (): Promise<void> =>
    new Promise((done, fail) => {
      const next = createServer((client) => {
        const upstream = connect(targetPort, targetHost);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
          socket.on('error', () => {
            client.destroy();
            upstream.destroy();
          });
        }
        client.pipe(upstream).pipe(client);
      });
      next.once('error', fail);
      next.listen(port, '127.0.0.1', () => {
        const address = next.address();
        if (address !== null && typeof address === 'object') port = address.port;
        server = next;
        done();
      });
    });

  const down = async (): Promise<void> => {
    const closing = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    if (closing !== undefined) await new Promise<void>((done) => closing.close(() => done()));
  };

  await listen();
  return {
    get port() {
      return port;
    },
    down,
    up: listen,
    close: down,
  };
}
