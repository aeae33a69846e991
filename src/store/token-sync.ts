// Keeps a process's token index (src/auth/token-index.ts) in step with the database. A change
// made here is applied to the index at once (a revocation holds from its commit on); changes
// made by other instances are learnt by polling the generation every second and, when it moved,
// comparing the stored ids and digests with the index's: only the tokens created meanwhile are
// read in full, and only the revoked ones are taken out. Last-use times go the other way, in
// batches.
import type { TokenIndex } from '../auth/token-index.js';
import type { TokenScope } from '../auth/caller.js';
import type { Entry } from './entry-rows.js';
import type { TokenStore } from './token-store.js';

export class TokenSync {
  /** The generation the index reflects; undefined before the first load. */
  private generation: number | undefined;
  /** Changes this process applied itself: a reload that overlaps one is thrown away. */
  private localChanges = 0;

  constructor(
    readonly store: TokenStore,
    readonly index: TokenIndex,
  ) {}

  /** Applies what other instances changed, if the generation moved; resolves to whether it did. */
  async refresh(): Promise<boolean> {
    const changesBefore = this.localChanges;
    // The generation first: a change committed after it was read moves it again, and is
    // then read at the next refresh.
    const generation = await this.store.generation();
    if (generation === this.generation) return false;
    const firstLoad = this.generation === undefined;
    const stored = firstLoad ? undefined : await this.store.digests();
    const known = this.index.managedDigests();
    const present = new Set<number>();
    const missing: number[] = [];
    for (const { id, digest } of stored ?? []) {
      present.add(id);
      if (known.get(id) !== digest) missing.push(id);
    }
    const added = firstLoad ? await this.store.tokens(undefined) : missing.length === 0 ? [] : await this.store.tokens(missing);
    // A creation or revocation of this process landed meanwhile: these rows may predate it.
    if (this.localChanges !== changesBefore) return false;
    if (!firstLoad) for (const id of [...known.keys()]) if (!present.has(id)) this.index.removeManaged(id);
    for (const token of added) this.index.addManaged(token);
    this.generation = generation;
    return true;
  }

  /** A token this process has just stored. */
  issued(entry: Entry, digest: string): void {
    this.localChanges += 1;
    this.index.addManaged({
      id: entry.id,
      name: entry.name as string,
      scope: entry.scope as TokenScope,
      digest,
      expiresAt: entry.expires_at as string | null,
      allowedIps: entry.allowed_ips as string[] | null,
    });
  }

  /** A token this process has just removed: refused from now on. */
  revoked(id: number): void {
    this.localChanges += 1;
    this.index.removeManaged(id);
  }

  /** Hands the last uses over to the database. */
  async saveUsage(): Promise<void> {
    await this.store.saveUsage(this.index.takeUsage());
  }

  /** An entry as this process knows it: its last use here may be later than the stored one. */
  withLastUse(entry: Entry): Entry {
    const here = this.index.lastUsed(entry.id);
    if (here === 0) return entry;
    const stored = entry.last_used_at as string | null;
    const mine = new Date(here).toISOString();
    return stored === null || stored < mine ? { ...entry, last_used_at: mine } : entry;
  }
}
