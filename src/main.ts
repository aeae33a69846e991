// Entry point: read the configuration, then serve from this process, or (WORKERS > 1) from
// a cluster of workers this process supervises.
import cluster from 'node:cluster';
import v8 from 'node:v8';
import { runPrimary } from './run-primary.js';
import { ConfigError, loadConfig } from './config/config.js';
import { assertPortFree } from './http/port-free.js';
import { runServer } from './run-server.js';

// V8 lets the old generation grow to several times what is live before a full collection:
// under sustained writes resident memory went past the bound the service is held to, mostly
// garbage. Growing by a quarter keeps it under, for a little more CPU on the requests that
// allocate most (the measurements: docs/performance.md, "Log lines and heap growth"). V8
// reads this flag at each collection, so setting it here works.
const HEAP_GROWING_PERCENT = 25;

async function main(): Promise<void> {
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  const config = loadConfig();
  // A worker shares its primary's socket: only the process that listens first checks.
  if (cluster.isPrimary) await assertPortFree(config.host, config.port);
  if (config.workers > 1 && cluster.isPrimary) await runPrimary(config);
  else await runServer(config);
}

main().catch((error: unknown) => {
  // Configuration mistakes are the operator's to fix: say what is wrong, without a stack.
  const text = error instanceof ConfigError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`config-api: cannot start: ${text}\n`);
  process.exit(1);
});
