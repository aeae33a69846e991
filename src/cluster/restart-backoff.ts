// When to start a worker again after it died. A worker that dies soon after starting is
// likely to die again the same way: waiting twice as long after each such death keeps a
// crash loop from spinning the CPU and flooding the log; one that ran a while is restarted
// at once and starts the count afresh.
export class RestartBackoff {
  private quickDeaths = 0;

  constructor(
    private readonly firstDelayMs = 100,
    private readonly maxDelayMs = 30_000,
    /** A worker that lived this long was healthy: its death is not part of a loop. */
    private readonly healthyAfterMs = 10_000,
  ) {}

  /** The wait before the next start, given how long the worker that died had lived. */
  delayAfter(livedMs: number): number {
    if (livedMs >= this.healthyAfterMs) this.quickDeaths = 0;
    const delay = Math.min(this.firstDelayMs * 2 ** this.quickDeaths, this.maxDelayMs);
    this.quickDeaths += 1;
    return delay;
  }
}
