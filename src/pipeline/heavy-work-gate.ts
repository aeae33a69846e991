// A bound on the heavy work running at once: a list that asks for many entries, searches
// text or skips deep into a table, and every bulk write (docs/operations.md, "Health under
// load"), and the monitoring answers of contract section 17, which hold their slot while they
// stream (hold()). Past the bound a request waits in a short queue, then is answered 503 UNAVAILABLE
// with Retry-After, rather than every request of a burst being served at once and all of
// them slowly.
//
// On SQLite the database runs on the main thread: a heavy query holds the event loop from
// start to end, and a burst of them, run back to back, would hold it for seconds, health
// probes included. So each heavy job starts on a turn of the event loop of its own
// (setImmediate), after the sockets were polled: between two heavy jobs, probes and light
// requests are answered. On PostgreSQL and MariaDB the bound also keeps connections of the
// pool free for the light requests and for /readyz.
import { ApiError } from '../errors/api-error.js';
import { message } from '../messages/messages.js';
import { ThrottledReport } from '../metrics/throttled-report.js';

/** Seconds a client refused here is told to wait. */
const RETRY_AFTER_SECONDS = 1;
export interface HeavyWorkLimits {
  /** Heavy jobs running at once. */
  readonly concurrency: number;
  /** Requests waiting for a turn at most; past it a request is refused at once. */
  readonly queue: number;
  /** How long a request waits for its turn before it is refused. */
  readonly waitMs: number;
  /** Told, at most once a second, how many requests were refused since it was last told:
   * one log line for a burst, not one per refused request. */
  readonly reportRefused?: (refused: number) => void;
}

/** Refusals are told together, at most this often. */
const REPORT_EVERY_MS = 1000;

interface Waiter {
  readonly admit: () => void;
  readonly timer: NodeJS.Timeout;
}

function busy(): ApiError {
  return new ApiError('UNAVAILABLE', message('heavy.busy', { seconds: RETRY_AFTER_SECONDS }), [], { 'retry-after': String(RETRY_AFTER_SECONDS) });
}

function nextTurn(): Promise<void> {
  return new Promise((done) => setImmediate(done));
}

export class HeavyWorkGate {
  private running = 0;
  private readonly waiting: Waiter[] = [];
  /** Refused since the last report. */
  private unreported = 0;
  private readonly report: ThrottledReport | undefined;

  constructor(private readonly limits: HeavyWorkLimits) {
    const told = limits.reportRefused;
    this.report =
      told === undefined
        ? undefined
        : new ThrottledReport(REPORT_EVERY_MS, () => {
            told(this.unreported);
            this.unreported = 0;
          });
  }

  /** Runs `work` once a slot is free, on a turn of the event loop of its own; throws a 503 if
   * none frees in time. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.enter();
    try {
      return await work();
    } finally {
      this.leave();
    }
  }

  /** A slot held until the function it resolves to is called (once; later calls do nothing):
   * for an answer streamed after its handler returned, which holds the slot until its last
   * byte is written or its connection is gone. Throws a 503 as run() does. */
  async hold(): Promise<() => void> {
    await this.enter();
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.leave();
    };
  }

  private enter(): Promise<void> {
    if (this.running < this.limits.concurrency && this.waiting.length === 0) {
      this.running++;
      return nextTurn();
    }
    if (this.waiting.length >= this.limits.queue) return Promise.reject(this.refuse());
    return new Promise((admit, refuse) => {
      const waiter: Waiter = {
        admit,
        timer: setTimeout(() => {
          this.waiting.splice(this.waiting.indexOf(waiter), 1);
          refuse(this.refuse());
        }, this.limits.waitMs),
      };
      this.waiting.push(waiter);
    });
  }

  private refuse(): ApiError {
    this.unreported++;
    this.report?.later();
    return busy();
  }

  /** The slot goes to the first waiter, which starts on the next turn (setImmediate called
   * from a job runs after the next poll of the sockets). */
  private leave(): void {
    const next = this.waiting.shift();
    if (next === undefined) {
      this.running--;
      return;
    }
    clearTimeout(next.timer);
    setImmediate(next.admit);
  }
}
