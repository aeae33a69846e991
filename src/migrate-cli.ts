// `npm run migrate`: brings the database of DATABASE_URL to the latest schema and exits,
// non-zero on failure. The service also migrates at start-up; this is for deploy scripts
// that want the schema ready before any instance starts.
import { connectOptions, loadConfig } from './config/config.js';
import { connectDatabase } from './db/connect.js';
import { DEFAULT_REGISTRY } from './registry/registry.js';
import { prepareDatabase } from './store/prepare-database.js';

async function main(): Promise<void> {
  const config = loadConfig();
  // A tool that writes by design, whatever READ_ONLY says.
  const handle = connectDatabase(config.databaseUrl, { ...connectOptions(config), readOnly: false });
  try {
    const applied = await prepareDatabase(handle, DEFAULT_REGISTRY.resources);
    process.stdout.write(applied.length === 0 ? `${handle.description}: schema already up to date\n` : `${handle.description}: applied ${applied.join(', ')}\n`);
  } finally {
    await handle.db.destroy();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`migrate: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
