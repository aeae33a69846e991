// Checkpoints a SQLite file's WAL mostly off the event loop. SQLite's default is that the
// connection whose commit takes the WAL past 1,000 pages copies them into the database file
// and syncs both, there and then: in this service the one connection, on the main thread, so
// every request waits meanwhile. At a million servers a PATCH dirties pages all over the file,
// and `perf` found a large share of the main thread's time in such checkpoints
// (docs/performance.md, "Figures behind the code").
//
// Here a worker thread copies the WAL's pages into the database every INTERVAL_MS, from a
// connection of its own (WORKER_SOURCE, below), and the service's connection checkpoints
// only past MAIN_THRESHOLD_PAGES. It must still checkpoint: the WAL starts over from its
// beginning only when a write finds every page of it copied, which under a steady stream of
// writes the worker, always a little behind, never achieves. By then the worker has copied
// nearly everything, and the service's checkpoint copies what came since the worker's last
// pass. Commits are as durable as before: each still waits for its own sync of the WAL
// (SQLITE_SYNCHRONOUS), and every checkpoint syncs the WAL before it copies.
//
// Should the worker stop (it cannot start, or it crashes), the service's own checkpoints keep
// the WAL to MAIN_THRESHOLD_PAGES, as SQLite's do to 1,000 pages.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SqliteDatabase from 'better-sqlite3';
import type { BackgroundWarning } from './database-dialect.js';

/** How often the worker checkpoints. A checkpoint with nothing to copy costs a few system
 * calls. */
const INTERVAL_MS = 100;
/** Where the service's connection checkpoints: about 40 MB of WAL (4 KiB pages). */
const MAIN_THRESHOLD_PAGES = 10_000;
/** How long closing waits for the worker to close its connection (so that the service's,
 * closed last, removes the WAL as SQLite does on a clean stop). */
const STOP_WAIT_MS = 2000;

interface CheckpointerSettings {
  /** better-sqlite3, resolved here: the worker's code has no module of its own to resolve from. */
  readonly driver: string;
  readonly path: string;
  readonly synchronous: 'FULL' | 'NORMAL';
  readonly intervalMs: number;
  /** Set to 1 by the worker once its connection is closed. */
  readonly closed: SharedArrayBuffer;
}

/** What the worker tells its owner: only changes, so that a failing disk logs once. */
type CheckpointReport = { readonly kind: 'failed'; readonly code: string | undefined; readonly message: string } | { readonly kind: 'recovered' };

// The worker's code, CommonJS, given to the Worker as text rather than as a file: a file would
// be .js once built and .ts in the sources, and a worker thread started under tsx (the tests)
// does not load TypeScript. It reads CheckpointerSettings and sends CheckpointReports.
const WORKER_SOURCE = `
const { parentPort, workerData: settings } = require('node:worker_threads');
const SqliteDatabase = require(settings.driver);
const closed = new Int32Array(settings.closed);
const database = new SqliteDatabase(settings.path);
database.pragma('synchronous = ' + settings.synchronous);
// PASSIVE waits for nobody: frames a reader may still need stay for the next checkpoint.
const checkpoint = database.prepare('pragma wal_checkpoint(PASSIVE)');
let failing = false;
const timer = setInterval(() => {
  try {
    checkpoint.get();
    if (failing) parentPort.postMessage({ kind: 'recovered' });
    failing = false;
  } catch (error) {
    // Another process's checkpointer holds the checkpoint lock: it does the same work.
    if (typeof error.code === 'string' && error.code.startsWith('SQLITE_BUSY')) return;
    if (!failing) parentPort.postMessage({ kind: 'failed', code: error.code, message: error.message });
    failing = true;
  }
}, settings.intervalMs);
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  database.close();
  // The owner waits on this, synchronously, before it closes its own connection: that one is
  // then the last, and removes the WAL as SQLite does at a clean stop.
  Atomics.store(closed, 0, 1);
  Atomics.notify(closed, 0);
  parentPort.close();
});
`;

const DRIVER = createRequire(import.meta.url).resolve('better-sqlite3');

export class WalCheckpointer {
  private readonly worker: Worker;
  private readonly closed = new Int32Array(new SharedArrayBuffer(4));
  private stopping = false;

  constructor(
    database: SqliteDatabase.Database,
    path: string,
    synchronous: 'FULL' | 'NORMAL',
    private readonly warn: BackgroundWarning,
  ) {
    const settings: CheckpointerSettings = { driver: DRIVER, path, synchronous, intervalMs: INTERVAL_MS, closed: this.closed.buffer as SharedArrayBuffer };
    database.pragma(`wal_autocheckpoint = ${MAIN_THRESHOLD_PAGES}`);
    // A small heap: it runs one statement in a loop, and its memory counts in the service's.
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: settings, resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 8 } });
    // A worker never keeps the process alive: a CLI that forgets to close still exits.
    this.worker.unref();
    this.worker.on('message', (report: CheckpointReport) => {
      if (report.kind === 'failed') this.warn('checkpointing the SQLite WAL failed; retrying', { code: report.code, reason: report.message });
      else this.warn('checkpointing the SQLite WAL works again', {});
    });
    this.worker.on('error', (error) => this.stopped(error.message));
    this.worker.on('exit', (code) => this.stopped(`exit code ${code}`));
  }

  /** Closes the worker's connection, waiting for it at most STOP_WAIT_MS. */
  stop(): void {
    if (this.stopping) return;
    this.stopping = true;
    this.worker.postMessage('stop');
    Atomics.wait(this.closed, 0, 0, STOP_WAIT_MS);
  }

  private stopped(reason: string): void {
    if (this.stopping) return;
    this.stopping = true;
    this.warn(`the SQLite checkpoint worker stopped: the main thread checkpoints the WAL, every ${MAIN_THRESHOLD_PAGES} pages`, { reason });
  }
}
