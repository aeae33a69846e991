// The memory all the change streams of a process may hold for clients that read slower than
// changes come (CHANGE_STREAM_BUFFER_BYTES). What a stream cannot send yet stays in the
// process (the socket's queue, and the records held while it catches up); a hundred clients
// that never read would each hold every change. Past the bound, the slowest streams are cut
// first: those whose queue has not emptied for longest (a client that reads empties it between
// changes, one that does not never does), the largest first among equals. A cut client loses
// nothing: it resumes from the last id it received (Last-Event-ID), from the log.
//
// Counting is kept cheap: the total is updated from the stream that just grew, with the other
// streams' last known figures (which can only be too high: a queue shrinks by itself as the
// client reads). Only when that estimate passes the bound is every stream measured again.

export interface BufferedStream {
  /** Bytes it holds now for its client. */
  buffered(): number;
  /** Since when (ms) its queue has not emptied; undefined while it keeps up. */
  readonly behindSince: number | undefined;
  /** Ends it at once, dropping what it holds. */
  cut(): void;
}

export class ChangeStreamBudget {
  private readonly known = new Map<BufferedStream, number>();
  private estimate = 0;
  private cutCount = 0;

  constructor(
    private readonly maxBytes: number,
    /** Told how many streams were cut, and the bytes held before and after. */
    private readonly onCut: (cut: number, heldBefore: number, heldAfter: number) => void,
  ) {}

  add(stream: BufferedStream): void {
    this.known.set(stream, 0);
  }

  /** A closed stream is forgotten: nothing here keeps it alive. */
  delete(stream: BufferedStream): void {
    const last = this.known.get(stream);
    if (last === undefined) return;
    this.known.delete(stream);
    this.estimate -= last;
  }

  /** Streams cut since the start. */
  get cuts(): number {
    return this.cutCount;
  }

  /** `stream` may hold more than before: cut the streams furthest behind if over the bound. */
  grew(stream: BufferedStream): void {
    const last = this.known.get(stream);
    if (last === undefined) return;
    const now = stream.buffered();
    this.known.set(stream, now);
    this.estimate += now - last;
    if (this.estimate > this.maxBytes) this.enforce();
  }

  private enforce(): void {
    let total = 0;
    const held: [BufferedStream, number][] = [];
    for (const stream of this.known.keys()) {
      const bytes = stream.buffered();
      this.known.set(stream, bytes);
      total += bytes;
      held.push([stream, bytes]);
    }
    this.estimate = total;
    if (total <= this.maxBytes) return;
    const before = total;
    const since = (stream: BufferedStream): number => stream.behindSince ?? Infinity;
    held.sort((a, b) => since(a[0]) - since(b[0]) || b[1] - a[1]);
    let cut = 0;
    for (const [stream, bytes] of held) {
      if (total <= this.maxBytes) break;
      this.delete(stream);
      total -= bytes;
      cut += 1;
      stream.cut();
    }
    this.cutCount += cut;
    this.onCut(cut, before, total);
  }
}
