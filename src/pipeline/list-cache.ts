// List answers kept in memory by their entity tag, so that a dashboard polling a page that
// has not changed costs the one row read the tag needs, not the page's query and its
// serialization (about nine tenths of a list request).
//
// Keyed by the tag itself, the cache is exactly as coherent as the tag, on every backend and
// with any number of instances: the tag names the table's change counter, which every
// committed change of the table moves in its own transaction, and the query, normalised
// (entity-tag.ts, listTag). The counter is read before the page, so the body kept under a
// tag is never older than the counter it names; a body from a write that committed between
// the two reads is no older than a request running next to that write may see. A tag that
// could name two bodies would already break If-None-Match.
//
// Bounded by the characters it holds, oldest answer dropped first; an answer larger than a
// tenth of the bound is not kept, so one huge page cannot empty the cache.

export class ListCache {
  private readonly answers = new Map<string, string>();
  private held = 0;

  /** `capacity`: characters of JSON text kept at most (> 0; no cache at all for 0). */
  constructor(private readonly capacity: number) {}

  get(tag: string): string | undefined {
    return this.answers.get(tag);
  }

  fill(tag: string, body: string): void {
    if (body.length > this.capacity / 10 || this.answers.has(tag)) return;
    for (const [oldest, text] of this.answers) {
      if (this.held + body.length <= this.capacity) break;
      this.answers.delete(oldest);
      this.held -= text.length;
    }
    this.answers.set(tag, body);
    this.held += body.length;
  }
}
