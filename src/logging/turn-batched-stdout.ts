// Where log lines go: standard output, through pino's own destination (SonicBoom), handed
// over once per event-loop turn instead of once per line. SonicBoom measures the byte length
// of its whole pending buffer at every write, a buffer that grows while the previous write
// is in flight: at one access line per request that cost more than forming the lines. Lines
// of one turn are joined first, so SonicBoom sees one write per turn.
// Nothing is lost on a normal exit or a crash that reaches the 'exit' event: the lines of
// the turn are flushed synchronously then. A SIGKILL can lose the lines of the current turn
// and of the write in flight, as with SonicBoom alone.
import { destination } from 'pino';

export interface LineDestination {
  write(line: string): void;
}

export function turnBatchedStdout(): LineDestination {
  const sonic = destination({ fd: process.stdout.fd ?? 1, sync: false });
  let pending: string[] = [];
  const handOver = (): void => {
    if (pending.length === 0) return;
    const lines = pending.join('');
    pending = [];
    sonic.write(lines);
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
