// Where log lines go: standard output, through pino's own destination (SonicBoom), handed
// over once per event-loop turn instead of once per line, in one synchronous write.
// - Once per turn: SonicBoom measures the byte length of its whole pending buffer at every
//   write; at one access line per request that cost more than forming the lines.
// - Synchronous (pino's own default): an asynchronous write goes through libuv's thread pool,
//   a hand-over and a wake-up each turn that cost more than the write itself (the figures:
//   docs/performance.md, "Log lines and heap growth"). The write is
//   to a file, /dev/null or a pipe that a log shipper reads; a reader that stops reading
//   stalls the service once the pipe is full (64 KB), where an asynchronous write would
//   instead have kept every line in memory, without bound.
// - As one Buffer (SonicBoom's 'buffer' mode): the turn's lines are encoded to UTF-8 once.
//   Given a string, SonicBoom measures its byte length twice, encodes it to write it, then
//   encodes it again to see how much was written; a Buffer spares those steps.
// Nothing is lost on a normal exit or a crash that reaches the 'exit' event: the lines of
// the turn are written then. A SIGKILL can lose the lines of the current turn.
import { destination } from 'pino';

export interface LineDestination {
  write(line: string): void;
}

export function turnBatchedStdout(): LineDestination {
  const sonic = destination({ fd: process.stdout.fd ?? 1, sync: true, contentMode: 'buffer' });
  let pending: string[] = [];
  const handOver = (): void => {
    if (pending.length === 0) return;
    const lines = Buffer.from(pending.join(''));
    pending = [];
    // SonicBoom's types know only the string form of write; in 'buffer' mode it takes a Buffer.
    sonic.write(lines as unknown as string);
  };
  process.on('exit', () => {
    try {
      handOver();
      sonic.flushSync();
    } catch {
      // Standard output is gone (a closed pipe): there is nowhere left to write.
    }
  });
  return {
    write(line: string): void {
      if (pending.length === 0) setImmediate(handOver);
      pending.push(line);
    },
  };
}
