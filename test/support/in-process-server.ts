// The service built and listening in the test's own process: the same app, configuration and
// HTTP server as dist/main.js, on a real socket, without the half second and the memory a
// process of its own costs per start. What only a process has (a crash, SIGKILL, signals,
// WORKERS, another user, its stdout) is for startService (scripts/support/service-process.ts).
import type { AddressInfo } from 'node:net';
import { buildApp, type AppOptions } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { stopGracefully } from '../../src/run-server.js';

export interface RunningService {
  readonly url: string;
  readonly pid: number;
  /** The log lines the app wrote so far (its pino output, as the process writes to stdout). */
  output(): string;
  /** As SIGTERM would: resolves to the exit code the process would have exited with. */
  stop(): Promise<number | null>;
  kill(): Promise<void>;
}

/** The address a client reaches the server on: a wildcard address is reached on loopback. */
function reachableUrl(address: AddressInfo): string {
  const v6 = address.family === 'IPv6' || (address.family as unknown) === 6;
  return v6 ? `http://[::1]:${address.port}` : `http://127.0.0.1:${address.port}`;
}

/** What a test may give the app beyond its environment (AppOptions); the log lines are kept here. */
export type InProcessOptions = Omit<AppOptions, 'logDestination'>;

export async function startInProcess(env: Record<string, string>, options: InProcessOptions = {}): Promise<RunningService> {
  let output = '';
  // The environment the test gives, and nothing of this process's own: as the process gets it.
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env });
  if (config.workers > 1) throw new Error('WORKERS above 1 runs a cluster of processes: start it with { process: true }');
  const app = await buildApp(config, { ...options, logDestination: { write: (line) => void (output += line) } });
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await app.close();
    throw error;
  }
  let stopped: Promise<number | null> | undefined;
  return {
    url: reachableUrl(app.server.address() as AddressInfo),
    pid: process.pid,
    output: () => output,
    stop() {
      stopped ??= stopGracefully(app, config, 'SIGTERM').then((code) => {
        // Past the grace period the process would exit and drop its connections: so do these.
        if (code !== 0) app.server.closeAllConnections();
        return code;
      });
      return stopped;
    },
    kill() {
      return Promise.reject(new Error('kill() needs a process of its own: start the server with { process: true }'));
    },
  };
}
