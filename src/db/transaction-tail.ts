// What the writes of one transaction leave to its end, written once just before the COMMIT.
// In a commit group (SQLite, commit-group.ts) a transaction holds many writes, each in a
// savepoint of its own: what each would write at its end (the store's count rows and change
// log records) is then gathered and written once for the group, not once per write, which
// saves several statements per write. A write adds to a tail only as the last step of its
// work, so a write that was refused or rolled back has added nothing; if writing the tail
// fails, the whole transaction fails and no write of it is acknowledged.
import type { Transaction } from 'kysely';
import type { Database } from './database-schema.js';

export interface TransactionTail {
  /** Writes what was added; called once, after the last write and before the COMMIT. */
  write(tx: Transaction<Database>): Promise<void>;
}

/** The tails of one transaction, each found by its key. */
export class TransactionTails {
  private readonly tails = new Map<object, TransactionTail>();

  /** The transaction's tail under `key`, made by `create` at the first ask. */
  get<T extends TransactionTail>(key: object, create: () => T): T {
    let tail = this.tails.get(key);
    if (tail === undefined) this.tails.set(key, (tail = create()));
    return tail as T;
  }

  /** Writes every tail, in the order they were first asked for. (One kind today, the store's
   * counts and change records; a second would have to come before it: the change log takes
   * its ordering lock last, see writeChanges.) */
  async write(tx: Transaction<Database>): Promise<void> {
    for (const tail of this.tails.values()) await tail.write(tx);
  }
}

/** The work of one write: its transaction, and the tails it shares with the other writes of
 * that transaction. */
export type TransactionWork<T> = (tx: Transaction<Database>, tails: TransactionTails) => Promise<T>;
