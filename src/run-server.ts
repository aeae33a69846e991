// One serving process — the only one, or a cluster worker — and its orderly stop: on
// SIGTERM or SIGINT it stops accepting connections, lets the requests in flight finish,
// closes the database and exits 0; if that takes longer than SHUTDOWN_GRACE_MS it exits 1.
import cluster from 'node:cluster';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { Config } from './config/config.js';

/**
 * The orderly stop, without the exit: resolves to the exit code it calls for, 0 once the app
 * has closed, 1 if SHUTDOWN_GRACE_MS ran out first (the close then goes on). Apart from the
 * process so that the tests, which run the app in their own process, stop it the same way.
 */
export function stopGracefully(app: FastifyInstance, config: Config, reason: string): Promise<number> {
  app.log.info({ reason, graceMs: config.shutdownGraceMs }, 'stopping: finishing in-flight requests');
  return new Promise((done) => {
    const deadline = setTimeout(() => {
      app.log.error({ graceMs: config.shutdownGraceMs }, 'stopping: grace period over with requests still in flight; exiting');
      done(1);
    }, config.shutdownGraceMs);
    app.close().then(
      () => {
        clearTimeout(deadline);
        app.log.info('stopped');
        done(0);
      },
      (error: unknown) => {
        clearTimeout(deadline);
        app.log.error({ err: error }, 'error while stopping');
        done(1);
      },
    );
  });
}

export async function runServer(config: Config): Promise<void> {
  const app = await buildApp(config);

  let stopping = false;
  const stop = (reason: string): void => {
    if (stopping) return;
    stopping = true;
    void stopGracefully(app, config, reason).then((code) => process.exit(code));
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // A worker whose primary is gone can no longer be given connections nor be restarted.
  if (cluster.isWorker) process.on('disconnect', () => stop('primary gone'));

  await app.listen({ port: config.port, host: config.host });
}
