// The managed API tokens of this process: read from the database at start-up (then the start
// is refused if the token key is not the one their digests were made with, or if the service
// would be exposed without any token), re-read within a second of a change made by another
// instance (TOKEN_POLL_MS), and their last uses saved every TOKEN_USAGE_SAVE_MS and on close.
import fp from 'fastify-plugin';
import type { Config } from '../../config/config.js';
import { assertExposureAllowed } from '../../auth/exposure-guard.js';
import { ConfigError } from '../../errors/config-error.js';
import { TokenStore } from '../../store/token-store.js';
import { TokenSync } from '../../store/token-sync.js';

declare module 'fastify' {
  interface FastifyInstance {
    tokens: TokenSync;
  }
}

/** How often the generation is read: a revocation elsewhere holds here within about this. */
export const TOKEN_POLL_MS = 1000;
/** How often last uses are saved: `last_used_at` is at most this late in the database. */
export const TOKEN_USAGE_SAVE_MS = 60_000;

export default fp<{ config: Config }>(
  async (app, { config }) => {
    const sync = new TokenSync(new TokenStore(app.database, app.store), app.tokenIndex);
    await sync.refresh();
    if (!(await sync.store.keyMatches(app.tokenDigester.keyCheck))) {
      throw new ConfigError(
        'the token key (TOKEN_KEY or TOKEN_KEY_FILE) is not the one the stored API tokens were made with; start with the original key',
      );
    }
    assertExposureAllowed(config.host, app.tokenIndex.size);
    app.decorate('tokens', sync);

    let polling = false;
    let failing = false;
    const poll = setInterval(() => {
      if (polling) return;
      polling = true;
      sync.refresh().then(
        () => {
          if (failing) app.log.info('api tokens: the token list can be read again');
          failing = false;
        },
        (error: unknown) => {
          // Once per outage: the tokens known so far keep working meanwhile.
          if (!failing) app.log.warn({ err: error }, 'api tokens: cannot read the token list; keeping the last one read');
          failing = true;
        },
      ).finally(() => {
        polling = false;
      });
    }, TOKEN_POLL_MS);
    poll.unref();

    const save = (): Promise<void> =>
      sync.saveUsage().catch((error: unknown) => app.log.warn({ err: error }, 'api tokens: could not save when tokens were last used'));
    const saving = setInterval(() => void save(), TOKEN_USAGE_SAVE_MS);
    saving.unref();

    app.addHook('onClose', async () => {
      clearInterval(poll);
      clearInterval(saving);
      await save();
    });
  },
  { name: 'api-tokens', dependencies: ['database', 'authentication'] },
);
