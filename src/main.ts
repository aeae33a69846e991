// Entry point: read the configuration, then serve from this process, or (WORKERS > 1) from
// a cluster of workers this process supervises.
import cluster from 'node:cluster';
import { assertExposureAllowed } from './auth/exposure-guard.js';
import { runPrimary } from './cluster/run-primary.js';
import { ConfigError, loadConfig } from './config.js';
import { runServer } from './run-server.js';

async function main(): Promise<void> {
  const config = loadConfig();
  assertExposureAllowed(config.host, config.apiTokens.length);
  if (config.workers > 1 && cluster.isPrimary) await runPrimary(config);
  else await runServer(config);
}

main().catch((error: unknown) => {
  // Configuration mistakes are the operator's to fix: say what is wrong, without a stack.
  const text = error instanceof ConfigError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`config-api: cannot start: ${text}\n`);
  process.exit(1);
});
