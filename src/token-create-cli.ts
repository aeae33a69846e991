// `npm run token:create -- --name NAME --scope read|write|admin [--expires WHEN]
// [--allowed-ips CIDR,CIDR]`: creates a managed API token without the API (the first admin,
// or one for a machine), and prints the token once, alone on standard output; what was made
// goes to standard error. WHEN is a date and time with its zone (2027-01-31T00:00:00Z) or a
// duration from now: 90d, 12h, 30m. The checks are the API's (src/pipeline/issue-token.ts);
// the database, the token key and the encryption key are read as the service reads them.
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { ConfigError, connectOptions, loadConfig } from './config/config.js';
import { connectDatabase } from './db/connect.js';
import { ApiError, problemBody } from './errors/api-error.js';
import { issueToken } from './pipeline/issue-token.js';
import { DEFAULT_REGISTRY } from './registry/registry.js';
import { createSecretBox, loadSecretKey } from './secrets/secret-box.js';
import { createTokenDigester, loadTokenKey } from './secrets/token-secrets.js';
import { prepareDatabase } from './store/prepare-database.js';
import { ResourceStore } from './store/resource-store.js';
import { TokenStore } from './store/token-store.js';

// The actor of the change record: no token made it, and a token's name has no colon.
const CLI_ACTOR = 'token:create';
const UNITS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `90d` from now, or the text as given (the API's check reads it). */
function expiry(text: string | undefined): string | null {
  if (text === undefined) return null;
  const duration = /^(\d{1,6})([mhd])$/.exec(text);
  return duration === null ? text : new Date(Date.now() + Number(duration[1]) * UNITS[duration[2]!]!).toISOString();
}

async function main(): Promise<void> {
  const { values: options } = parseArgs({
    options: { name: { type: 'string' }, scope: { type: 'string' }, expires: { type: 'string' }, 'allowed-ips': { type: 'string' } },
    strict: true,
  });
  if (options.name === undefined || options.scope === undefined) {
    throw new ConfigError('usage: npm run token:create -- --name NAME --scope read|write|admin [--expires 90d|2027-01-31T00:00:00Z] [--allowed-ips CIDR,CIDR]');
  }
  const body = {
    name: options.name,
    scope: options.scope,
    expires_at: expiry(options.expires),
    allowed_ips: options['allowed-ips'] === undefined ? null : options['allowed-ips'].split(',').map((range) => range.trim()),
  };
  const config = loadConfig();
  const digester = createTokenDigester(loadTokenKey(config.tokenKey, config.tokenKeyFile));
  const handle = connectDatabase(config.databaseUrl, connectOptions(config));
  try {
    await prepareDatabase(handle, DEFAULT_REGISTRY.resources);
    const secrets = createSecretBox(loadSecretKey(config.secretKey, config.secretKeyFile));
    const store = new TokenStore(handle, new ResourceStore({ handle, secrets, resources: DEFAULT_REGISTRY.resources }));
    if (!(await store.keyMatches(digester.keyCheck))) {
      throw new ConfigError('the token key (TOKEN_KEY or TOKEN_KEY_FILE) is not the one the stored API tokens were made with; nothing was created');
    }
    const names = new Set(config.apiTokens.map((token) => token.caller.name));
    const { entry, token } = await issueToken(store, digester, body, names, { actor: CLI_ACTOR, requestId: randomUUID() });
    process.stderr.write(
      `${handle.description}: token ${entry.id} "${entry.name as string}" created, scope ${entry.scope as string}, ` +
        `expires ${(entry.expires_at as string | null) ?? 'never'}; it is shown only now:\n`,
    );
    process.stdout.write(`${token}\n`);
  } finally {
    await handle.db.destroy();
  }
}

main().catch((error: unknown) => {
  let text = error instanceof Error ? error.message : String(error);
  if (error instanceof ApiError) {
    const problem = problemBody(error, 'en');
    text = [problem.detail, ...(problem.errors ?? []).map((e) => `  ${e.field}: ${e.message}`)].join('\n');
  }
  process.stderr.write(`token:create: ${text}\n`);
  process.exit(1);
});
