// The change log's running parts (contract section 13): the feed that every open change
// stream shares (src/store/change-feed.ts), woken by this process's commits, and the pruning
// of records older than CHANGELOG_RETENTION_DAYS.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../../config/config.js';
import { ChangeFeed } from '../../store/change-feed.js';
import type { ChangeLog } from '../../store/change-log.js';

declare module 'fastify' {
  interface FastifyInstance {
    changeFeed: ChangeFeed;
  }
}

// Records deleted per statement: each delete is a short transaction of its own, and the
// next waits for the next event-loop turn, so that writes never queue behind a long purge.
const PRUNE_BATCH = 1000;
const DAY_MS = 86_400_000;

async function prune(log: ChangeLog, retentionDays: number): Promise<number> {
  const cutoff = new Date(Date.now() - retentionDays * DAY_MS).toISOString();
  let pruned = 0;
  for (;;) {
    const deleted = await log.prune(cutoff, PRUNE_BATCH);
    pruned += deleted;
    if (deleted === 0) return pruned;
    await new Promise((next) => setImmediate(next));
  }
}

/** Numbers the change records left waiting (by an instance killed after a commit), every
 * `intervalMs`, one sweep at a time; the feed then reads them as any others. */
function sweepChanges(app: FastifyInstance, intervalMs: number): void {
  let running: Promise<void> | undefined;
  let failing = false;
  const timer = setInterval(() => {
    running ??= app.store
      .sweepChanges()
      .then(() => {
        failing = false;
      })
      .catch((error: unknown) => {
        // One line per outage, not one per poll.
        if (!failing) app.log.warn({ err: error }, 'numbering waiting change records failed; it is tried again');
        failing = true;
      })
      .finally(() => {
        running = undefined;
      });
  }, intervalMs);
  timer.unref();
  app.addHook('onClose', async () => {
    clearInterval(timer);
    await running;
  });
  // What an instance killed after its commits left is numbered before this one answers: a
  // reader of the log after a restart finds every acknowledged write's records at once.
  app.addHook('onReady', async () => {
    await app.store.sweepChanges().catch((error: unknown) => app.log.warn({ err: error }, 'numbering waiting change records failed; it is tried again'));
  });
}

export default fp<{ config: Config }>(
  async (app, { config }) => {
    const { store, database } = app;
    const feed = new ChangeFeed(store.changeLog, {
      pollMs: config.changesPollMs,
      ...(database.changeMarker === undefined ? {} : { changeMarker: database.changeMarker }),
      ...(database.changeSignal === undefined ? {} : { listen: (onSignal: () => void) => database.changeSignal!.listen(onSignal) }),
      onError: (error) => app.log.warn({ err: error }, 'the change feed could not read the change log; it tries again'),
    });
    store.onChangesCommitted(() => feed.wake());
    app.decorate('changeFeed', feed);
    app.addHook('onClose', async () => feed.close());
    if (!config.readOnly) sweepChanges(app, config.changesPollMs);

    if (config.changelogRetentionDays === 0 || config.readOnly) return;
    let running: Promise<void> | undefined;
    const run = (): void => {
      running ??= prune(store.changeLog, config.changelogRetentionDays)
        .then((pruned) => {
          if (pruned > 0) app.log.info({ pruned, retentionDays: config.changelogRetentionDays }, 'old change records pruned');
        })
        .catch((error: unknown) => app.log.warn({ err: error }, 'pruning the change log failed; it is tried again later'))
        .finally(() => {
          running = undefined;
        });
    };
    app.addHook('onReady', async () => run());
    const timer = setInterval(run, config.changelogPruneIntervalMs);
    timer.unref();
    app.addHook('onClose', async () => {
      clearInterval(timer);
      await running;
    });
  },
  { name: 'change-feed', dependencies: ['database'] },
);
