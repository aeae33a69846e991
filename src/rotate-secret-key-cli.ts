// `npm run rotate-secret-key`: re-seals every stored SSH private key under a new key.
// The current key is read as the service reads it (SECRET_KEY, else SECRET_KEY_FILE); the
// new one from NEW_SECRET_KEY. Run it with the service stopped, then start the service with
// the new key. All secrets move in one transaction, or none does.
import { connectOptions, ConfigError, loadConfig } from './config/config.js';
import { connectDatabase } from './db/connect.js';
import { DEFAULT_REGISTRY } from './registry/registry.js';
import { createSecretBox, decodeKey, loadSecretKey } from './secrets/secret-box.js';
import { prepareDatabase } from './store/prepare-database.js';
import { resealSecrets, secretsReadable } from './store/stored-secrets.js';

async function main(): Promise<void> {
  const config = loadConfig();
  if (!process.env.NEW_SECRET_KEY) throw new ConfigError('NEW_SECRET_KEY must hold the new key (64 hex digits or base64 of 32 bytes)');
  const previous = createSecretBox(loadSecretKey(config.secretKey, config.secretKeyFile));
  const next = createSecretBox(decodeKey(process.env.NEW_SECRET_KEY, 'NEW_SECRET_KEY'));
  // A tool that writes by design, whatever READ_ONLY says.
  const handle = connectDatabase(config.databaseUrl, { ...connectOptions(config), readOnly: false });
  try {
    const { resources } = DEFAULT_REGISTRY;
    await prepareDatabase(handle, resources);
    if (!(await secretsReadable(handle, resources, previous))) {
      throw new ConfigError('the current key (SECRET_KEY or SECRET_KEY_FILE) does not open the stored secrets; nothing was changed');
    }
    const count = await resealSecrets(handle, resources, previous, next);
    process.stdout.write(`${handle.description}: ${count} secret(s) re-sealed; start the service with the new key\n`);
  } finally {
    await handle.db.destroy();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`rotate-secret-key: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
