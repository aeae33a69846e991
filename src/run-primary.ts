// WORKERS > 1: this process serves nothing itself. It prepares the shared state once, forks
// the workers (they accept connections from one listening socket they share), restarts a
// worker that dies, and on SIGTERM or SIGINT passes the signal on and exits when they have
// finished: 0 if every worker stopped cleanly, else 1.
import cluster, { type Worker } from 'node:cluster';
import { buildApp } from './app.js';
import type { Config } from './config/config.js';
import { serveClusterMetrics } from './cluster/cluster-metrics.js';
import { RestartBackoff } from './cluster/restart-backoff.js';

// Beyond the workers' own grace period: the time to report and exit after it.
const STOP_MARGIN_MS = 2000;

interface Slot {
  readonly index: number;
  readonly backoff: RestartBackoff;
  worker?: Worker;
  startedAt: number;
  restart?: NodeJS.Timeout;
}

// node:cluster's default on Linux (round robin) has the primary accept every connection and
// pass it to a worker, and close its own copy only once the worker says it took it. A worker
// that dies before saying so (kill -9) leaves the connection open in the primary for ever,
// answered by nobody: its client hangs until its own time-out. The same holds for a worker
// whose channel has closed but whose death the primary has not yet seen: Node hands it
// connections, fails to send them, and neither closes nor passes them on. And when the last
// worker stops, the primary closes the connections it holds unsent, with their requests
// unread: resets. Instead the workers share the listening socket and each accepts for
// itself (SCHED_NONE): a connection waits in the kernel's queue until a live worker takes it,
// and a worker killed with connections it took closes them as it dies. The cost: the kernel,
// not a turn, decides which worker takes a connection (docs/operations.md, Workers).
const SCHEDULING_POLICY = cluster.SCHED_NONE;

export async function runPrimary(config: Config): Promise<void> {
  cluster.schedulingPolicy = SCHEDULING_POLICY;
  // Building the app once here creates the key file, migrates the database and checks the
  // key against the stored secrets before any worker exists: the workers cannot race on
  // the key file or the migrations (SQLite's migrator takes no lock), and a bad setting
  // stops the start once with its message rather than crash-looping every worker.
  const prepared = await buildApp(config);
  await prepared.close();
  // The prepared app is closed, but its logger is a plain pino logger with the service's
  // settings: the primary's lines look like the workers'.
  const log = prepared.log.child({ role: 'primary' });

  serveClusterMetrics();
  const slots: Slot[] = Array.from({ length: config.workers }, (_, index) => ({ index, backoff: new RestartBackoff(), startedAt: 0 }));
  const bySlot = new Map<Worker, Slot>();
  let everListening = false;
  let stopping: NodeJS.Signals | undefined;
  let exitCode = 0;

  const start = (slot: Slot): void => {
    slot.restart = undefined;
    slot.startedAt = Date.now();
    const worker = cluster.fork();
    slot.worker = worker;
    bySlot.set(worker, slot);
  };

  const finishIfDone = (): void => {
    if (stopping !== undefined && slots.every((slot) => slot.worker === undefined)) {
      log.info({ exitCode }, 'all workers stopped');
      process.exit(exitCode);
    }
  };

  const stop = (signal: NodeJS.Signals, code = 0): void => {
    if (stopping !== undefined) return;
    stopping = signal;
    exitCode = code;
    log.info({ signal, workers: slots.filter((slot) => slot.worker !== undefined).length }, 'stopping: passing the signal to the workers');
    for (const slot of slots) {
      clearTimeout(slot.restart);
      slot.worker?.process.kill(signal);
    }
    setTimeout(() => {
      log.error({ graceMs: config.shutdownGraceMs }, 'stopping: workers still running after the grace period; killing them');
      for (const slot of slots) slot.worker?.process.kill('SIGKILL');
      process.exit(1);
    }, config.shutdownGraceMs + STOP_MARGIN_MS).unref();
    finishIfDone();
  };

  cluster.on('listening', () => {
    everListening = true;
  });

  cluster.on('exit', (worker, code, signal) => {
    const slot = bySlot.get(worker);
    bySlot.delete(worker);
    if (slot === undefined) return;
    slot.worker = undefined;
    if (stopping !== undefined) {
      // Ended by the signal itself: the worker was still starting and had nothing in flight.
      if (code !== 0 && signal !== stopping) exitCode = 1;
      finishIfDone();
      return;
    }
    if (!everListening) {
      // Not one worker could start: the cause (port taken, database down) is the operator's
      // to fix, and the worker has already logged it.
      log.error({ worker: slot.index, code, signal }, 'a worker failed to start; stopping');
      stop('SIGTERM', 1);
      return;
    }
    const delayMs = slot.backoff.delayAfter(Date.now() - slot.startedAt);
    log.error({ worker: slot.index, workerPid: worker.process.pid, code, signal, restartInMs: delayMs }, 'worker died; restarting it');
    slot.restart = setTimeout(() => start(slot), delayMs);
  });

  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  for (const slot of slots) start(slot);
  log.info({ workers: config.workers }, 'started the workers');
}
