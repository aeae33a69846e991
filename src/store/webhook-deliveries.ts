// The webhooks' deliveries (contract section 16), kept in the database from the moment their
// change is read from the change log: none is lost by a restart, a kill -9 or an outage.
//
// - fanOut reads the change log after the position saved in webhook_state and, in the same
//   transaction, stores one delivery per change and subscribed webhook and moves the
//   position: a change gives its deliveries exactly once, whichever instance reads it (the
//   state row is locked where transactions run side by side).
// - claim takes due deliveries for this instance: it writes its name and a lease expiry on
//   them, in a transaction that skips rows another instance holds (the dialect's claimRows).
//   An instance that dies leaves its leases to expire; another then makes the attempt again,
//   with the same webhook-id.
// - finish records an attempt, only while this instance still holds the lease.
// claim and finish commit without waiting for a disk flush where the database lets them
// (SQLite's commit groups, PostgreSQL's synchronous_commit): both are redone if lost, and a
// flush per batch of attempts held the event loop, and so the API's answers, for a dead
// receiver's thousands of retries.
// This is the dispatcher's queue; what the API reads of it is webhook-delivery-records.ts.
import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { DatabaseHandle } from '../db/connect.js';
import type { Database } from '../db/database-schema.js';
import { recordOf } from './change-log.js';
import { DUE_STATUSES, type Attempt, type DeliveryStatus } from './webhook-delivery-records.js';

/** A delivery claimed for an attempt. */
export interface ClaimedDelivery {
  readonly id: number;
  readonly webhookId: number;
  readonly payload: string;
  readonly createdAt: string;
  /** The attempts made before, as stored (a JSON array). */
  readonly attemptsJson: string;
  readonly attempts: number;
}

/** An attempt to record on a delivery this instance holds (finish). */
export interface FinishedAttempt {
  readonly id: number;
  /** The delivery's attempts before this one, as stored when it was claimed. */
  readonly attemptsJson: string;
  readonly attempt: Attempt;
  readonly status: DeliveryStatus;
  readonly nextAttemptAt: string | null;
}

/** A JSON array with one more element, without parsing the attempts before. */
function appended(arrayJson: string, element: unknown): string {
  const text = JSON.stringify(element);
  return arrayJson === '[]' ? `[${text}]` : `${arrayJson.slice(0, -1)},${text}]`;
}

const FAN_OUT_BATCH = 500;
/** Attempts recorded per statement (finish). */
const FINISH_BATCH = 100;
/** Finished deliveries removed per statement: a prune never holds the table long. */
const PRUNE_BATCH = 1000;

type Row = Database['webhook_deliveries'];

export function deliveryPayload(type: string, timestamp: string, data: string): string {
  return `{"type":${JSON.stringify(type)},"timestamp":${JSON.stringify(timestamp)},"data":${data}}`;
}

export class WebhookDeliveries {
  /** Milliseconds spent so far inside the claims' and recordings' transactions: on SQLite the
   * time they held the event loop (the dispatcher paces itself by it). Not the time waited for
   * the transaction's turn, which the API's writes had. */
  workMs = 0;
  /** Claims made: which webhook a claim reads first (they take turns). */
  private claims = 0;

  constructor(
    private readonly handle: DatabaseHandle,
    /** The resources whose changes may be delivered (section 2's; not tokens nor webhooks). */
    private readonly resources: ReadonlySet<string>,
  ) {}

  private get db(): Kysely<Database> {
    return this.handle.db;
  }

  /** Whether the change log holds changes whose deliveries are not stored yet (no lock taken). */
  async behind(): Promise<boolean> {
    const row = await this.db
      .selectFrom('change_log')
      .select('id')
      .where('id', '>', (eb) => eb.selectFrom('webhook_state').select('last_change_id').where('id', '=', 1))
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Stores the deliveries of the next changes of the log; resolves to true if more may follow. */
  async fanOut(): Promise<boolean> {
    return this.handle.transaction(async (tx) => {
      let state = tx.selectFrom('webhook_state').select('last_change_id').where('id', '=', 1);
      if (this.handle.capabilities.rowLocks) state = state.forUpdate();
      const last = Number((await state.executeTakeFirstOrThrow()).last_change_id);
      const hooks = (await tx.selectFrom('webhooks').select(['id', 'resources', 'actions', 'since_change_id']).where('enabled', '=', 1).execute()).map((hook) => ({
        id: Number(hook.id),
        resources: JSON.parse(hook.resources) as string[],
        actions: JSON.parse(hook.actions) as string[],
        since: Number(hook.since_change_id),
      }));
      if (hooks.length === 0) {
        // No webhook to deliver to: the changes up to the last one give no delivery, and the
        // position moves past them without reading them (as it would after reading them all).
        const newest = await tx.selectFrom('change_log').select('id').orderBy('id', 'desc').limit(1).executeTakeFirst();
        if (newest !== undefined && Number(newest.id) > last) await tx.updateTable('webhook_state').set({ last_change_id: Number(newest.id) }).where('id', '=', 1).execute();
        return false;
      }
      const rows = await tx.selectFrom('change_log').selectAll().where('id', '>', last).orderBy('id').limit(FAN_OUT_BATCH).execute();
      if (rows.length === 0) return false;
      const now = new Date().toISOString();
      const deliveries: Omit<Row, 'id'>[] = [];
      for (const row of rows) {
        if (!this.resources.has(row.resource)) continue;
        const record = recordOf(row);
        const type = `${row.resource}.${row.action}`;
        // One body per change, the same text for each webhook it goes to.
        let payload: string | undefined;
        for (const hook of hooks) {
          if (record.id <= hook.since) continue;
          if (hook.resources.length > 0 && !hook.resources.includes(row.resource)) continue;
          if (hook.actions.length > 0 && !hook.actions.includes(row.action)) continue;
          deliveries.push({ webhook_id: hook.id, change_id: record.id, type, payload: (payload ??= deliveryPayload(type, row.at, record.json)), status: 'pending', attempts: '[]', next_attempt_at: now, lease_owner: null, lease_until: null, created_at: now, updated_at: now });
        }
      }
      for (let start = 0; start < deliveries.length; start += 100) await tx.insertInto('webhook_deliveries').values(deliveries.slice(start, start + 100)).execute();
      await tx.updateTable('webhook_state').set({ last_change_id: Number(rows.at(-1)!.id) }).where('id', '=', 1).execute();
      return rows.length === FAN_OUT_BATCH;
    });
  }

  /** Claims up to `limit` due deliveries of enabled webhooks for `owner` until `leaseMs` from
   * now, at most `roomOf(webhook)` for a webhook (one with no room is skipped: at its share, or
   * its receiver refusing and no probe due). `more`: a webhook with room left may have more
   * due, which the free slots kept out of this claim. */
  async claim(owner: string, leaseMs: number, limit: number, roomOf: (webhookId: number) => number): Promise<{ claimed: ClaimedDelivery[]; more: boolean }> {
    if (limit <= 0) return { claimed: [], more: false };
    return this.dispatcherWork((tx) => this.claimIn(tx, owner, leaseMs, limit, roomOf));
  }

  /** A claim's or a recording's transaction, timed into workMs. Not durable (sqlite-commit-group.ts):
   * a lease or a result lost in a power cut only makes the attempt again, with the same
   * webhook-id. */
  private dispatcherWork<T>(work: (tx: Transaction<Database>) => Promise<T>): Promise<T> {
    return this.handle.transaction(async (tx) => {
      const started = performance.now();
      try {
        return await work(tx);
      } finally {
        this.workMs += performance.now() - started;
      }
    }, false);
  }

  private async claimIn(tx: Transaction<Database>, owner: string, leaseMs: number, limit: number, roomOf: (webhookId: number) => number): Promise<{ claimed: ClaimedDelivery[]; more: boolean }> {
    const now = new Date().toISOString();
    // Each enabled webhook's due deliveries are read on their own, in order from the index on
    // (webhook_id, next_attempt_at, id), as many as it may take: a webhook at its share is not
    // read at all, and no delivery is read that is not taken. One walk of every due delivery
    // in order read past a busy webhook's whole backlog (a dead receiver's thousands) to find
    // the others' few, at every claim.
    const open = (await tx.selectFrom('webhooks').select('id').where('enabled', '=', 1).orderBy('id').execute())
      .map((row) => ({ webhook: Number(row.id), room: roomOf(Number(row.id)) }))
      .filter((candidate) => candidate.room > 0);
    // Where the free slots are fewer than the webhooks' room, the webhooks take turns first.
    const first = open.length === 0 ? 0 : this.claims++ % open.length;
    if (open.length > 0) await this.handle.queries.orderedClaim?.execute(tx);
    const rows: ClaimedDelivery[] = [];
    let more = false;
    for (let turn = 0; turn < open.length; turn++) {
      const { webhook, room } = open[(first + turn) % open.length]!;
      const wanted = Math.min(room, limit - rows.length);
      if (wanted <= 0) {
        more = true;
        break;
      }
      const select = tx
        .selectFrom('webhook_deliveries')
        .select(['id', 'webhook_id', 'payload', 'created_at', 'attempts'])
        .where('webhook_id', '=', webhook)
        .where('next_attempt_at', '<=', now)
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
        .orderBy('next_attempt_at')
        .orderBy('id')
        .limit(wanted);
      const found = await this.handle.queries.claimRows(select).execute();
      // A webhook that took all its room is at its share now: the end of one of its attempts
      // looks again (the dispatcher). One the free slots held back may have more due now.
      if (found.length === wanted && wanted < room) more = true;
      for (const row of found) {
        rows.push({ id: Number(row.id), webhookId: Number(row.webhook_id), payload: row.payload, createdAt: row.created_at, attemptsJson: row.attempts, attempts: (JSON.parse(row.attempts) as unknown[]).length });
      }
    }
    if (rows.length === 0) return { claimed: [], more };
    await tx
      .updateTable('webhook_deliveries')
      .set({ lease_owner: owner, lease_until: new Date(Date.now() + leaseMs).toISOString() })
      .where('id', 'in', rows.map((row) => row.id))
      .execute();
    return { claimed: rows, more };
  }

  /** Records attempts of deliveries `owner` holds, in one transaction; resolves to the ids
   * recorded. One whose lease was lost meanwhile is left out (the attempt is then another
   * instance's to make, and this one is forgotten). Only the lease holder writes a delivery's
   * attempts, so the attempts read at the claim are still the stored ones. A statement per
   * FINISH_BATCH attempts, not per attempt: over a connection (PostgreSQL, MariaDB) each
   * statement is a round trip, and one per attempt bounded the deliveries a second. */
  async finish(owner: string, finished: readonly FinishedAttempt[]): Promise<Set<number>> {
    if (finished.length === 0) return new Set();
    return this.dispatcherWork(async (tx) => {
      const recorded = new Set<number>();
      for (let start = 0; start < finished.length; start += FINISH_BATCH) {
        const chunk = finished.slice(start, start + FINISH_BATCH);
        let mine = chunk;
        const updateReturning = this.handle.capabilities.updateReturning;
        if (!updateReturning) {
          // The rows still held, locked where transactions run side by side: a lease that
          // expires meanwhile cannot be claimed by another instance before this commit.
          // Where an UPDATE answers the rows it changed, that UPDATE tells instead.
          let held = tx.selectFrom('webhook_deliveries').select('id').where('id', 'in', chunk.map((item) => item.id)).where('lease_owner', '=', owner);
          if (this.handle.capabilities.rowLocks) held = held.forUpdate();
          const ids = new Set((await held.execute()).map((row) => Number(row.id)));
          mine = chunk.filter((item) => ids.has(item.id));
          if (mine.length === 0) continue;
        }
        // A value the attempts share (a batch of successes: status, no next attempt) is one
        // parameter, not a CASE evaluated against every id for every row.
        const byId = (value: (item: FinishedAttempt) => string | null): RawBuilder<string> => {
          const first = value(mine[0]!);
          if (mine.every((item) => value(item) === first)) return sql<string>`${first}`;
          return sql<string>`case ${sql.ref('id')} ${sql.join(mine.map((item) => sql`when ${item.id} then ${value(item)}`), sql` `)} end`;
        };
        const update = tx
          .updateTable('webhook_deliveries')
          .set({
            attempts: byId((item) => appended(item.attemptsJson, item.attempt)),
            status: byId((item) => item.status),
            next_attempt_at: byId((item) => item.nextAttemptAt),
            updated_at: byId((item) => item.attempt.at),
            lease_owner: null,
            lease_until: null,
          })
          .where('id', 'in', mine.map((item) => item.id))
          // Only while still held (re-checked on the row's latest version where rows are locked).
          .where('lease_owner', '=', owner);
        if (updateReturning) for (const row of await update.returning('id').execute()) recorded.add(Number(row.id));
        else {
          await update.execute();
          for (const item of mine) recorded.add(item.id);
        }
      }
      return recorded;
    });
  }

  /** Gives up the deliveries of webhook `webhookId` still waiting although made before
   * `cutoff` (held while its receiver refused connections, so never retried past the retry
   * window): `failed`, as their retries would have left them. Not those under a lease (their
   * attempt records their outcome). Resolves to how many. */
  async expire(webhookId: number, cutoff: string): Promise<number> {
    const now = new Date().toISOString();
    const result = await this.db
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', next_attempt_at: null, updated_at: now })
      .where('webhook_id', '=', webhookId)
      .where('status', 'in', DUE_STATUSES)
      .where('created_at', '<', cutoff)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** A ping's delivery, already held by `owner` for its one attempt, made at once. */
  async insertPing(webhookId: number, payload: string, owner: string, leaseMs: number): Promise<number> {
    const now = new Date();
    const values = { webhook_id: webhookId, change_id: null, type: 'webhook.ping', payload, status: 'pending', attempts: '[]', next_attempt_at: null, lease_owner: owner, lease_until: new Date(now.getTime() + leaseMs).toISOString(), created_at: now.toISOString(), updated_at: now.toISOString() };
    const result = await this.db.insertInto('webhook_deliveries').values(values).executeTakeFirstOrThrow();
    if (result.insertId !== undefined) return Number(result.insertId);
    const row = await this.db.selectFrom('webhook_deliveries').select('id').where('webhook_id', '=', webhookId).where('lease_owner', '=', owner).orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow();
    return Number(row.id);
  }

  /** Removes finished deliveries last changed before `cutoff`, a batch per statement so that
   * writers wait on no long delete; resolves to how many went. */
  async prune(cutoff: string): Promise<number> {
    let removed = 0;
    for (;;) {
      const ids = await this.db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('status', 'in', ['succeeded', 'failed'])
        .where('updated_at', '<', cutoff)
        .limit(PRUNE_BATCH)
        .execute();
      if (ids.length === 0) return removed;
      const result = await this.db.deleteFrom('webhook_deliveries').where('id', 'in', ids.map((row) => Number(row.id))).executeTakeFirst();
      removed += Number(result.numDeletedRows);
      if (ids.length < PRUNE_BATCH) return removed;
    }
  }
}
