// A port already taken is found before anything else starts: the database is not opened nor
// migrated for nothing, and the operator reads one line naming the port, not a stack trace
// once every plugin has loaded.
import { createServer } from 'node:net';
import { ConfigError } from '../errors/config-error.js';

export async function assertPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  try {
    await new Promise<void>((listening, failed) => {
      probe.once('error', failed);
      probe.listen({ port, host, exclusive: true }, listening);
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new ConfigError(`port ${port} on ${host} is already in use; stop what listens there or choose another with PORT`);
    if (code === 'EACCES') throw new ConfigError(`port ${port} on ${host} may not be opened by this user; choose a port above 1023 with PORT`);
    if (code === 'EADDRNOTAVAIL') throw new ConfigError(`HOST=${host} is not an address of this machine; choose one of its addresses with HOST`);
    throw error;
  } finally {
    await new Promise<void>((closed) => probe.close(() => closed()));
  }
}
