// Whether the database can store writes now. A write that fails because the disk is full or
// the database refuses writes leaves the fault in place, and readiness reports it; the next
// write that commits clears it. An instance that reports itself not ready gets no traffic
// from its load balancer, so no write of a client would ever clear the fault: while there
// is one, the readiness check tries a write of its own that changes nothing (probeWrite).
// Every other failure (a refused request, a lost connection) says nothing about storage and
// changes nothing here.
//
// The other half, before a write rather than after it (DiskWatch): free space on the disk of
// the SQLite database, watched like Elasticsearch's disk watermarks (docs/operations.md, "Disk
// watermarks"). Below the flood stage, writes are refused 507 before SQLite itself runs out of
// room in the middle of one, and /readyz is 503; below the low watermark, a warning is logged
// and /readyz says so. PostgreSQL and MariaDB keep their data on their server's disk, which
// this process cannot see.
//
// The space is read with statfs at most once a second, in the background: a request reads
// the last figure, never the disk.
import { statfs } from 'node:fs/promises';
import type { DatabaseFailure, StorageFault } from '../db/connect.js';
import { ApiError } from '../errors/api-error.js';
import { message } from '../messages/messages.js';

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

/** Free space, in bytes or as a percentage of the disk's size. */
export type DiskThreshold = { readonly bytes: number } | { readonly percent: number };
export type DiskLevel = 'ok' | 'low' | 'flood';

export interface DiskSpace {
  readonly freeBytes: number;
  readonly totalBytes: number;
  readonly level: DiskLevel;
  /** The flood stage, in bytes, on this disk (0 when off). */
  readonly floodBytes: number;
}

export interface DiskWatchOptions {
  /** The folder of the database file. */
  readonly folder: string;
  readonly flood: DiskThreshold | undefined;
  readonly low: DiskThreshold | undefined;
  /** Told every change of level (the first reading included when it is not `ok`). */
  readonly onLevel: (space: DiskSpace, previous: DiskLevel) => void;
  readonly readIntervalMs?: number;
}

const READ_INTERVAL_MS = 1000;

function bytesOf(threshold: DiskThreshold | undefined, totalBytes: number): number {
  if (threshold === undefined) return 0;
  return 'bytes' in threshold ? threshold.bytes : Math.ceil((totalBytes * threshold.percent) / 100);
}

/** 1.5 MiB, 20 GiB: for messages. */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} bytes` : `${value.toFixed(1)} ${units[unit]}`;
}

export class DiskWatch {
  private space: DiskSpace | undefined;
  private readAt = 0;
  private reading: Promise<void> | undefined;
  private readonly readIntervalMs: number;

  constructor(private readonly options: DiskWatchOptions) {
    this.readIntervalMs = options.readIntervalMs ?? READ_INTERVAL_MS;
  }

  /** The space as last read; a figure older than the interval is read again in the
   * background (undefined until the first reading, or while statfs fails). */
  current(): DiskSpace | undefined {
    if (Date.now() - this.readAt >= this.readIntervalMs) void this.read();
    return this.space;
  }

  /** The space, read now if the last figure is older than the interval. */
  async fresh(): Promise<DiskSpace | undefined> {
    if (Date.now() - this.readAt >= this.readIntervalMs) await this.read();
    return this.space;
  }

  /** Refuses a write below the flood stage: 507, nothing written. */
  refuseWriteIfFlooded(): void {
    const space = this.current();
    if (space?.level !== 'flood') return;
    throw new ApiError('INSUFFICIENT_STORAGE', message('disk.floodStage', { free: formatBytes(space.freeBytes), threshold: formatBytes(space.floodBytes) }));
  }

  private read(): Promise<void> {
    this.reading ??= statfs(this.options.folder)
      .then(
        (stats) => this.update(stats.bavail * stats.bsize, stats.blocks * stats.bsize),
        // A disk that cannot be read refuses nothing: SQLite's own error says so if it fills.
        () => (this.space = undefined),
      )
      .finally(() => {
        this.readAt = Date.now();
        this.reading = undefined;
      });
    return this.reading;
  }

  private update(freeBytes: number, totalBytes: number): void {
    const floodBytes = bytesOf(this.options.flood, totalBytes);
    const level: DiskLevel = freeBytes < floodBytes ? 'flood' : freeBytes < bytesOf(this.options.low, totalBytes) ? 'low' : 'ok';
    const previous = this.space?.level ?? 'ok';
    this.space = { freeBytes, totalBytes, level, floodBytes };
    if (level !== previous) this.options.onLevel(this.space, previous);
  }
}
