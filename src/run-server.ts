// One serving process — the only one, or a cluster worker — and its orderly stop: on
// SIGTERM or SIGINT it stops accepting connections, lets the requests in flight finish,
// closes the database and exits 0; if that takes longer than SHUTDOWN_GRACE_MS it exits 1.
import cluster from 'node:cluster';
import { buildApp } from './app.js';
import type { Config } from './config/config.js';

export async function runServer(config: Config): Promise<void> {
  const app = await buildApp(config);

  let stopping = false;
  const stop = (reason: string): void => {
    if (stopping) return;
    stopping = true;
    app.log.info({ reason, graceMs: config.shutdownGraceMs }, 'stopping: finishing in-flight requests');
    const deadline = setTimeout(() => {
      app.log.error({ graceMs: config.shutdownGraceMs }, 'stopping: grace period over with requests still in flight; exiting');
      process.exit(1);
    }, config.shutdownGraceMs);
    app.close().then(
      () => {
        clearTimeout(deadline);
        app.log.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        app.log.error({ err: error }, 'error while stopping');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // A worker whose primary is gone can no longer be given connections nor be restarted.
  if (cluster.isWorker) process.on('disconnect', () => stop('primary gone'));

  await app.listen({ port: config.port, host: config.host });
}
