// What the API shows of a webhook's deliveries (contract section 16) and the one change it
// makes to them, a redelivery: the records the dispatcher's queue (webhook-deliveries.ts)
// leaves behind each attempt, read newest first, and the metrics' count of those waiting.
import type { Kysely } from 'kysely';
import type { DatabaseHandle } from '../db/connect.js';
import type { Database } from '../db/database-schema.js';

export const DELIVERY_STATUSES = ['pending', 'retrying', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** An attempt as stored and shown: at most 1 KB of the answer. */
export interface Attempt {
  readonly at: string;
  readonly duration_ms: number;
  readonly status_code: number | null;
  readonly error: string | null;
  readonly response: string;
}

/** A delivery as the API shows it. */
export interface Delivery {
  readonly id: number;
  readonly change_id: number | null;
  readonly type: string;
  readonly status: DeliveryStatus;
  readonly attempts: Attempt[];
  readonly next_attempt_at: string | null;
}

/** The statuses of a delivery waiting for an attempt. */
export const DUE_STATUSES: readonly DeliveryStatus[] = ['pending', 'retrying'];

type Row = Database['webhook_deliveries'];

const SHOWN_COLUMNS = ['id', 'change_id', 'type', 'status', 'attempts', 'next_attempt_at'] as const;

function shown(row: { id: number | string } & Pick<Row, 'change_id' | 'type' | 'status' | 'attempts' | 'next_attempt_at'>): Delivery {
  return {
    id: Number(row.id),
    change_id: row.change_id === null ? null : Number(row.change_id),
    type: row.type,
    status: row.status as DeliveryStatus,
    attempts: JSON.parse(row.attempts) as Attempt[],
    next_attempt_at: row.next_attempt_at,
  };
}

export class WebhookDeliveryRecords {
  constructor(private readonly handle: DatabaseHandle) {}

  private get db(): Kysely<Database> {
    return this.handle.db;
  }

  /** One webhook's deliveries, newest first, before delivery id `before` if given. */
  async list(webhookId: number, status: DeliveryStatus | undefined, before: number | undefined, limit: number): Promise<Delivery[]> {
    let select = this.db.selectFrom('webhook_deliveries').select([...SHOWN_COLUMNS]).where('webhook_id', '=', webhookId);
    if (status !== undefined) select = select.where('status', '=', status);
    if (before !== undefined) select = select.where('id', '<', before);
    return (await select.orderBy('id', 'desc').limit(limit).execute()).map(shown);
  }

  async read(webhookId: number, id: number): Promise<Delivery | undefined> {
    const row = await this.db.selectFrom('webhook_deliveries').select([...SHOWN_COLUMNS]).where('webhook_id', '=', webhookId).where('id', '=', id).executeTakeFirst();
    return row === undefined ? undefined : shown(row);
  }

  /** Queues a delivery again for an attempt now (same delivery, same webhook-id). A dry run
   * changes nothing and resolves to the delivery as it would be queued. */
  async redeliver(webhookId: number, id: number, dryRun = false): Promise<Delivery | undefined> {
    const now = new Date().toISOString();
    if (dryRun) {
      const delivery = await this.read(webhookId, id);
      return delivery === undefined ? undefined : { ...delivery, status: 'pending', next_attempt_at: now };
    }
    const result = await this.db
      .updateTable('webhook_deliveries')
      .set({ status: 'pending', next_attempt_at: now, updated_at: now })
      .where('webhook_id', '=', webhookId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return undefined;
    return this.read(webhookId, id);
  }

  /** Deliveries waiting for an attempt, and when the oldest of them was made (metrics). */
  async pending(): Promise<{ count: number; oldest: string | null }> {
    const row = await this.db
      .selectFrom('webhook_deliveries')
      .select((eb) => [eb.fn.countAll().as('count'), eb.fn.min('created_at').as('oldest')])
      .where('status', 'in', DUE_STATUSES)
      .executeTakeFirstOrThrow();
    return { count: Number(row.count), oldest: (row.oldest as string | null) ?? null };
  }
}
