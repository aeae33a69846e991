// Whether the database can store writes now. A write that fails because the disk is full or
// the database refuses writes leaves the fault in place, and readiness reports it; the next
// write that commits clears it. An instance that reports itself not ready gets no traffic
// from its load balancer, so no write of a client would ever clear the fault: while there
// is one, the readiness check tries a write of its own that changes nothing (probeWrite).
// Every other failure (a refused request, a lost connection) says nothing about storage and
// changes nothing here.
import type { DatabaseFailure, StorageFault } from '../db/connect.js';

/** The storage fault an error stands for, if it is one, or its cause is (a failed migration
 * wraps the driver's error). */
export function storageFaultOf(failureOf: (error: unknown) => DatabaseFailure, error: unknown): StorageFault | undefined {
  for (let current = error, depth = 0; current !== undefined && current !== null && depth < 4; depth++) {
    const failure = failureOf(current);
    if (failure === 'full' || failure === 'read-only') return failure;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

export class StorageHealth {
  private fault: StorageFault | undefined;
  /** The probe in progress: concurrent readiness checks share it. */
  private probing: Promise<void> | undefined;

  constructor(
    private readonly failureOf: (error: unknown) => DatabaseFailure,
    private readonly probe: () => Promise<void>,
  ) {}

  /** A write committed: the database stores writes again. */
  succeeded(): void {
    this.fault = undefined;
  }

  /** A write failed: remember the fault it shows, if it shows one. */
  failed(error: unknown): void {
    this.fault = storageFaultOf(this.failureOf, error) ?? this.fault;
  }

  /** The fault now, as a write within `timeoutMs` finds it: undefined when writes are stored.
   * Without a fault since the last write, nothing is written. */
  async check(timeoutMs: number): Promise<StorageFault | undefined> {
    if (this.fault === undefined) return undefined;
    this.probing ??= this.probe().then(
      () => this.succeeded(),
      (error: unknown) => this.failed(error),
    ).finally(() => (this.probing = undefined));
    let timer: NodeJS.Timeout | undefined;
    // A probe that waits for a lock past the deadline leaves the fault as it was.
    await Promise.race([this.probing, new Promise<void>((done) => (timer = setTimeout(done, timeoutMs)))]);
    clearTimeout(timer);
    return this.fault;
  }
}
