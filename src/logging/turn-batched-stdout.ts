// Where log lines go: standard output, handed over once per event-loop turn instead of once
// per line, as one Buffer, and never in a way that can stop the event loop.
// - Once per turn: a hand-over per line cost more than forming the lines.
// - As one Buffer: the turn's lines are encoded to UTF-8 once.
// - Through Node's own process.stdout, which never waits: to a file (or /dev/null) it writes
//   synchronously, which takes microseconds; to a pipe or a socket (a service manager, a
//   container runtime, a log shipper) it writes from the main thread without blocking
//   (O_NONBLOCK; no thread pool hand-over, whose cost docs/performance.md gives), and what
//   the reader has not taken yet waits in memory.
// - Bounded: a reader that stops reading (a stuck log collector) must not stall the requests,
//   nor grow the memory without end. Once maxWaitingBytes wait, each turn's lines are
//   dropped and counted instead (dropped(): the metric log_lines_dropped_total), until the
//   reader takes them again (LOG_BUFFER_BYTES sets the bound). The reason: docs/decisions.md, "A stuck log reader costs lines,
//   not requests".
// Nothing is lost on a normal exit or a crash that reaches the 'exit' event, while the reader
// reads: the lines of the turn are handed over then. A SIGKILL can lose the current turn's.

export interface LineDestination {
  write(line: string): void;
  /** Lines dropped so far because the reader fell behind (or the output failed). */
  dropped?(): number;
}

export interface LineOutput {
  write(chunk: Buffer): unknown;
  readonly writableLength: number;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

export function turnBatchedStdout(output: LineOutput, maxWaitingBytes: number): LineDestination {
  let pending: string[] = [];
  let dropped = 0;
  let broken = false;
  // A closed pipe (EPIPE) or a full disk: the lines have nowhere to go; the service goes on.
  output.on('error', () => {
    broken = true;
  });
  const handOver = (): void => {
    if (pending.length === 0) return;
    const lines = pending;
    pending = [];
    if (broken || output.writableLength >= maxWaitingBytes) {
      dropped += lines.length;
      return;
    }
    output.write(Buffer.from(lines.join('')));
  };
  process.on('exit', handOver);
  return {
    write(line: string): void {
      if (pending.length === 0) setImmediate(handOver);
      pending.push(line);
    },
    dropped: () => dropped,
  };
}
