// The change log (contract section 13): a change is serialized here when it is made, its
// record written by the transaction of the change (its tail, write-tail.ts), and read here by
// list, history and the change feed. A record's JSON is made from the stored texts by concatenation: the
// snapshots were serialized once, when written, as responses show the entry.
import type { Kysely } from 'kysely';
import type { ChangeLogTable, Database } from '../db/database-schema.js';
import type { ResourceDefinition } from '../registry/resource-definition.js';
import type { Entry } from './entry-rows.js';
import type { QueryTemplates } from './query-templates.js';

export const CHANGE_ACTIONS = ['create', 'update', 'delete', 'restore'] as const;
export type ChangeAction = (typeof CHANGE_ACTIONS)[number];

/** Who makes a change: the name of the caller's token (or `anonymous`), and the request's id. */
export interface Author {
  readonly actor: string;
  readonly requestId: string;
}

/** A change made in a transaction, as the work reports it (StoreTransaction.recordChange). */
export interface PendingChange {
  readonly action: ChangeAction;
  readonly resource: ResourceDefinition;
  readonly entryId: number;
  /** The entry as responses show it (no write-only field): null for a create. */
  readonly before: Entry | null;
  /** Null for a hard delete. */
  readonly after: Entry | null;
  /** The write-only fields the change set. */
  readonly secretsChanged: readonly string[];
}

/** A change serialized when it was made (a later write of the same transaction cannot
 * alter its snapshots), written when the transaction's work is done. */
export interface SerializedChange {
  readonly author: Author;
  readonly action: ChangeAction;
  readonly resource: string;
  readonly entryId: number;
  readonly before: string | null;
  readonly after: string | null;
  readonly secretsChanged: string;
}

export function serializeChange(change: PendingChange, author: Author): SerializedChange {
  return {
    author,
    action: change.action,
    resource: change.resource.name,
    entryId: change.entryId,
    before: change.before === null ? null : JSON.stringify(change.before),
    after: change.after === null ? null : JSON.stringify(change.after),
    secretsChanged: JSON.stringify(change.secretsChanged),
  };
}

/** What the change log is read by: every condition is optional. */
export interface ChangeFilter {
  readonly resource?: string;
  readonly entryId?: number;
  readonly actor?: string;
  readonly action?: ChangeAction;
}

/** A record as the API shows it: its id, and its JSON text. */
export interface ChangeRecord {
  readonly id: number;
  readonly resource: string;
  readonly entryId: number;
  readonly actor: string;
  readonly action: ChangeAction;
  readonly json: string;
}

export function recordOf(row: ChangeLogTable): ChangeRecord {
  const id = Number(row.id);
  const entryId = Number(row.entry_id);
  const json =
    `{"id":${id},"at":${JSON.stringify(row.at)},"action":${JSON.stringify(row.action)},"resource":${JSON.stringify(row.resource)},` +
    `"entry_id":${entryId},"actor":${JSON.stringify(row.actor)},"request_id":${JSON.stringify(row.request_id)},` +
    `"before":${row.before_json ?? 'null'},"after":${row.after_json ?? 'null'},"secrets_changed":${row.secrets_changed_json}}`;
  return { id, resource: row.resource, entryId, actor: row.actor, action: row.action as ChangeAction, json };
}

/** Whether a record passes a filter (the change feed filters what it reads for everyone). */
export function matches(record: ChangeRecord, filter: ChangeFilter): boolean {
  return (
    (filter.resource === undefined || record.resource === filter.resource) &&
    (filter.entryId === undefined || record.entryId === filter.entryId) &&
    (filter.actor === undefined || record.actor === filter.actor) &&
    (filter.action === undefined || record.action === filter.action)
  );
}

export class ChangeLog {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly templates: QueryTemplates,
  ) {}

  /** The records after `since` that pass `filter`, oldest first, at most `limit`. */
  async after(since: number, filter: ChangeFilter, limit: number): Promise<ChangeRecord[]> {
    const key = `changes after ${filter.resource !== undefined} ${filter.entryId !== undefined} ${filter.actor !== undefined} ${filter.action !== undefined}`;
    const query = this.templates.get(key, (slot) => {
      let select = this.db.selectFrom('change_log').selectAll().where('id', '>', slot(0));
      if (filter.resource !== undefined) select = select.where('resource', '=', slot(1));
      if (filter.entryId !== undefined) select = select.where('entry_id', '=', slot(2));
      if (filter.actor !== undefined) select = select.where('actor', '=', slot(3));
      if (filter.action !== undefined) select = select.where('action', '=', slot(4));
      return select.orderBy('id').limit(slot(5));
    });
    const { rows } = await query.execute(this.db, [since, filter.resource, filter.entryId, filter.actor, filter.action, limit]);
    return rows.map(recordOf);
  }

  /** One entry's records, newest first, and how many there are. */
  async history(resource: ResourceDefinition, entryId: number, limit: number, offset: number): Promise<{ records: ChangeRecord[]; total: number }> {
    const page = this.templates.get('entry history', (slot) =>
      this.db.selectFrom('change_log').selectAll().where('resource', '=', slot(0)).where('entry_id', '=', slot(1)).orderBy('id', 'desc').limit(slot(2)).offset(slot(3)),
    );
    const count = this.templates.get('entry history count', (slot) =>
      this.db.selectFrom('change_log').select((eb) => eb.fn.countAll().as('total')).where('resource', '=', slot(0)).where('entry_id', '=', slot(1)),
    );
    const { rows } = await page.execute(this.db, [resource.name, entryId, limit, offset]);
    const total = Number((await count.execute(this.db, [resource.name, entryId])).rows[0]?.total ?? 0);
    return { records: rows.map(recordOf), total };
  }

  /** The id of the last committed record (0 for none). */
  async lastId(): Promise<number> {
    const query = this.templates.get('last change', () => this.db.selectFrom('change_log').select((eb) => eb.fn.max('id').as('last')));
    return Number((await query.execute(this.db, [])).rows[0]?.last ?? 0);
  }

  /**
   * Deletes the oldest records written before `cutoff`, at most `batch` of them, in one short
   * transaction on the primary key's first rows (ids grow with time, so the old ones are the
   * first): writers, who only append, never wait on it. Resolves to how many went.
   */
  async prune(cutoff: string, batch: number): Promise<number> {
    const oldest = await this.db.selectFrom('change_log').select(['id', 'at']).orderBy('id').limit(batch).execute();
    let last: number | undefined;
    for (const row of oldest) {
      if (row.at >= cutoff) break;
      last = Number(row.id);
    }
    if (last === undefined) return 0;
    const deleted = await this.db.deleteFrom('change_log').where('id', '<=', last).where('at', '<', cutoff).executeTakeFirst();
    return Number(deleted.numDeletedRows);
  }
}
