// Entry point: read the configuration, then serve from this process, or (WORKERS > 1) from
// a cluster of workers this process supervises.
import cluster from 'node:cluster';
import v8 from 'node:v8';
import { runPrimary } from './run-primary.js';
import { ConfigError, loadConfig } from './config/config.js';
import { assertPortFree } from './http/port-free.js';
import { runServer } from './run-server.js';

// V8 lets the old generation grow to several times what is live before a full collection.
// Under sustained writes that kept 80 MB of garbage and resident memory above 200 MB, for
// about 40 MB live; growing by half instead kept it near 160 MB at the same throughput. At a
// million servers with the list cache churning, half still let resident memory reach 190-210
// MB; a quarter kept it at 182-190, for 2-8 % more CPU on the requests that allocate most
// (docs/performance.md). V8 reads this flag at each collection, so setting it here works.
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
