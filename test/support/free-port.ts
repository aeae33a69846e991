// A loopback port that nothing listens on right now: for a process the test starts on a port of
// its own choosing (Prism), or for a database URL that must find no server.
import { createServer } from 'node:net';

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}
