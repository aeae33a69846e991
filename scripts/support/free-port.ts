// A loopback port nobody listens on now, for the measuring scripts' own servers.
import { createServer } from 'node:http';

export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', () => done()));
  const address = probe.address();
  await new Promise<void>((done) => probe.close(() => done()));
  return typeof address === 'object' && address !== null ? address.port : 0;
}
