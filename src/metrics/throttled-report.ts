// Events that come in bursts (connections turned away, streams cut, heavy requests refused)
// are counted by their owner and told in one log line a period, not one line per event: a
// burst of a thousand is one line, and a quiet service writes none.
export class ThrottledReport {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly everyMs: number,
    /** Writes the line for what was counted since the last one, and sets the counts back. */
    private readonly flush: () => void,
  ) {}

  /** Something was counted: the line goes out within `everyMs`, once for all counted meanwhile. */
  later(): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, this.everyMs);
    this.timer.unref();
  }

  /** On close: no line after the service has stopped. */
  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
