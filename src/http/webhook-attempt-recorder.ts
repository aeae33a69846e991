// Records the results of the dispatcher's attempts, in batches: the attempts that end while a
// recording is under way are recorded together in the next one, with their webhooks' health
// (and the auto-disable of a webhook failing for WEBHOOK_DISABLE_AFTER_HOURS). One
// transaction for many results, not one each: with a dead receiver's backlog retried, the
// recordings were most of the dispatcher's database work.
import type { FastifyBaseLogger } from 'fastify';
import type { DeliveryStatus } from '../store/webhook-delivery-records.js';
import type { FinishedAttempt, WebhookDeliveries } from '../store/webhook-deliveries.js';
import type { WebhookStore } from '../store/webhook-store.js';

/** An attempt's result waiting to be recorded, with the webhook it went to. */
interface Ended {
  readonly webhookId: number;
  readonly finished: FinishedAttempt;
}

export class WebhookAttemptRecorder {
  private ended: Ended[] = [];
  private recording: Promise<void> | undefined;
  /** Attempts made by this process, by what they left the delivery as (metrics). */
  readonly results: Record<DeliveryStatus, number> = { pending: 0, retrying: 0, succeeded: 0, failed: 0 };
  /** Webhooks this process disabled for failing WEBHOOK_DISABLE_AFTER_HOURS (metrics). */
  disabled = 0;

  constructor(
    private readonly store: WebhookStore,
    private readonly deliveries: WebhookDeliveries,
    /** The dispatcher's name on its leases: a result is recorded only while its lease is held. */
    private readonly owner: string,
    private readonly disableAfterHours: number,
    private readonly log: FastifyBaseLogger,
    /** Told the time each recording spent in its transactions (the dispatcher's pacing). */
    private readonly spent: (workMs: number) => void,
  ) {}

  /** Records the attempt's result now, or after the recording under way (which then takes it);
   * settles once it is recorded (or its recording failed, which it logs). */
  record(webhookId: number, finished: FinishedAttempt): Promise<void> {
    this.ended.push({ webhookId, finished });
    if (this.recording !== undefined) return this.recording;
    this.recording = (async () => {
      // Attempts that end in the same turn of the event loop join this recording.
      await new Promise((resolve) => setImmediate(resolve));
      while (this.ended.length > 0) {
        const batch = this.ended;
        this.ended = [];
        try {
          const workBefore = this.deliveries.workMs;
          await this.recordBatch(batch);
          this.spent(this.deliveries.workMs - workBefore);
        } catch (error) {
          this.log.warn({ err: error, deliveries: batch.length }, 'webhooks: attempts could not be recorded; their leases will expire and they will be made again');
        }
      }
    })().finally(() => {
      // A recorded failure is due again later: the poll finds it then.
      this.recording = undefined;
    });
    return this.recording;
  }

  /** Resolves once no recording is under way (at stop, after the last attempts ended). */
  async idle(): Promise<void> {
    while (this.recording !== undefined) await this.recording;
  }

  private async recordBatch(batch: readonly Ended[]): Promise<void> {
    const recorded = await this.deliveries.finish(this.owner, batch.map((ended) => ended.finished));
    // Each webhook's health after the last of its attempts recorded here.
    const outcomes = new Map<number, boolean>();
    for (const { webhookId, finished } of batch) {
      if (!recorded.has(finished.id)) continue;
      this.results[finished.status]++;
      outcomes.set(webhookId, finished.status === 'succeeded');
    }
    const disableAfterMs = this.disableAfterHours * 3_600_000;
    for (const id of await this.store.recordHealth(outcomes, disableAfterMs)) {
      const disabled = await this.store.disableFailing(id, disableAfterMs);
      if (disabled === undefined) continue;
      this.disabled++;
      this.log.warn({ webhook: id, name: disabled.name, reason: disabled.disabled_reason }, 'webhooks: a webhook was disabled, every delivery failing');
    }
  }
}
