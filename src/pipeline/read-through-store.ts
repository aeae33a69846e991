// The caches as one layer around the store: reads go through it (an entry as GET by id sends
// it, the version of a resource's lists, a list's answer text under its tag) and are read from
// the store only when memory does not hold them; writes go through it too, so that the cached
// copies of what a write changes are out of the way before its transaction starts and again
// after it ends (entry-cache.ts says why both). The execute step asks this layer and never
// looks at a cache itself.
//
// A hit is answered without a promise: the hot reads (GET by id, an unchanged list) then cost
// no extra turn of the microtask queue.
import { entryNotFound } from '../errors/api-error.js';
import type { CompiledResource } from '../registry/compiled-resource.js';
import type { Author } from '../store/change-log.js';
import type { Entry } from '../store/entry-rows.js';
import type { ResourceStore } from '../store/resource-store.js';
import type { StoreTransaction } from '../store/store-transaction.js';
import type { EntryCache } from './entry-cache.js';
import { listBody } from './list-body.js';
import type { ListCache } from './list-cache.js';
import type { DeletePlan, ListPlan, RestorePlan, WritePlan } from './plan.js';
import { readAnswer, type ReadAnswer } from './shown-entry.js';


/** What a write changes: its plans, or, for work that may change any entry of these tables (an
 * apply), the tables. */
export type WriteChanges = readonly (WritePlan | DeletePlan | RestorePlan)[] | { readonly tables: readonly CompiledResource[] };

export class ReadThroughStore {
  constructor(
    readonly store: ResourceStore,
    /** Entries as GET by id sends them; undefined where the backend cannot keep one coherent. */
    private readonly entries: EntryCache | undefined,
    /** List answers by entity tag; undefined when LIST_CACHE_SIZE is 0. */
    private readonly lists: ListCache | undefined,
  ) {}

  /** An entry as GET by id answers it; a 404 if there is none. */
  entry(resource: CompiledResource, id: number): ReadAnswer | Promise<ReadAnswer> {
    return this.entries?.get(resource.table, id) ?? this.readEntry(resource, id);
  }

  private async readEntry(resource: CompiledResource, id: number): Promise<ReadAnswer> {
    const ticket = this.entries?.ticket();
    const entry = await this.store.read(resource, id);
    if (entry === undefined) throw entryNotFound(resource.name, id);
    const answer = readAnswer(entry);
    if (ticket !== undefined) this.entries?.fill(resource.table, id, answer, ticket);
    return answer;
  }

  /** The version of the lists of `resource` (the change counter a list's tag names). */
  listVersion(resource: CompiledResource): string | Promise<string> {
    return this.entries?.listVersion(resource.table) ?? this.readListVersion(resource);
  }

  private async readListVersion(resource: CompiledResource): Promise<string> {
    const ticket = this.entries?.ticket();
    const version = await this.store.listVersion(resource);
    if (ticket !== undefined) this.entries?.fillListVersion(resource.table, version, ticket);
    return version;
  }

  /** The answer text kept under a list's tag, if any. */
  keptList(etag: string): string | undefined {
    return this.lists?.get(etag);
  }

  /** A list's answer text, read from the store and kept under its tag; a request that waited
   * its turn may find it made meanwhile by the same query. */
  async list(plan: ListPlan, etag: string): Promise<string> {
    const made = this.lists?.get(etag);
    if (made !== undefined) return made;
    const body = listBody(plan.list, await this.store.list(plan.resource, plan.list, plan.total));
    this.lists?.fill(etag, body);
    return body;
  }

  /** A write's transaction, with the cached copies of the entries it changes out of the way
   * before and after. */
  async transaction<T>(changes: WriteChanges, work: (tx: StoreTransaction) => Promise<T>, author: Author): Promise<T> {
    this.forget(changes);
    try {
      return await this.store.transaction(work, author);
    } finally {
      this.forget(changes);
    }
  }

  /** A create in one statement where the store can (ResourceStore.createAlone), with the
   * cached copies it changes out of the way; undefined when it was not done so. */
  async createAlone(plan: WritePlan, values: Record<string, unknown>, now: string, secretsChanged: readonly string[]): Promise<Entry | undefined> {
    this.forget([plan]);
    try {
      return await this.store.createAlone(plan.resource, values, now, plan.author, secretsChanged);
    } finally {
      this.forget([plan]);
    }
  }

  private forget(changes: WriteChanges): void {
    const cache = this.entries;
    if (cache === undefined) return;
    if (!Array.isArray(changes)) {
      cache.drop();
      for (const resource of (changes as { readonly tables: readonly CompiledResource[] }).tables) cache.forgetListVersion(resource.table);
      return;
    }
    for (const change of changes as readonly (WritePlan | DeletePlan | RestorePlan)[]) {
      // A delete that takes its entry out of other entries' sets changes those entries too.
      if (change.action === 'delete' && change.unlinks.length > 0) cache.drop();
      else if (change.id !== undefined) cache.invalidate(change.resource.table, change.id);
      cache.forgetListVersion(change.resource.table);
    }
  }
}
