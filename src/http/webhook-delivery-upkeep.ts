// The upkeep of the deliveries table, looked at by the dispatcher's poll: finished deliveries
// past WEBHOOK_DELIVERY_RETENTION_DAYS are removed, and the deliveries held for a receiver
// that refuses connections (webhook-reachability.ts) are given up once past the retry window,
// as their retries would have left them. The holds of webhooks deleted or disabled meanwhile
// (on any instance) are forgotten at that check, rather than kept, each with its statement,
// until the process stops. Both are due far less often than a poll (hourly, or a tenth of the
// retention; every minute), so a check at each poll is as correct as a timer of their own, a
// poll late at most, and leaves one timer to start and stop.
import type { FastifyBaseLogger } from 'fastify';
import type { WebhookDeliveries } from '../store/webhook-deliveries.js';
import type { WebhookStore } from '../store/webhook-store.js';
import type { WebhookReachability } from './webhook-reachability.js';
import { RETRY_WINDOW_MS } from './webhook-retry-schedule.js';

/** Old deliveries are looked for hourly, or ten times per retention period if that is shorter. */
const PRUNE_EVERY_MS = 3_600_000;
const PRUNE_EVERY_MIN_MS = 100;
/** How often the held deliveries of a refusing receiver are looked at for the retry window's end. */
const EXPIRE_EVERY_MS = 60_000;

export class WebhookDeliveryUpkeep {
  private nextPruneAt = 0;
  private nextExpireAt = 0;

  constructor(
    private readonly store: Pick<WebhookStore, 'enabledAmong'>,
    private readonly deliveries: Pick<WebhookDeliveries, 'expire' | 'prune'>,
    private readonly reach: WebhookReachability,
    private readonly retentionDays: number,
    private readonly log: FastifyBaseLogger,
    private readonly expireEveryMs = EXPIRE_EVERY_MS,
  ) {}

  /** At each poll: starts what is due; settles once it has ended (its errors are logged,
   * never thrown). The poll does not wait for it. */
  async runIfDue(): Promise<void> {
    const now = Date.now();
    const work: Promise<void>[] = [];
    if (now >= this.nextExpireAt) {
      this.nextExpireAt = now + this.expireEveryMs;
      work.push(this.expireHeld());
    }
    if (now >= this.nextPruneAt) {
      const retentionMs = this.retentionDays * 86_400_000;
      this.nextPruneAt = now + Math.max(PRUNE_EVERY_MIN_MS, Math.min(PRUNE_EVERY_MS, retentionMs / 10));
      work.push(this.prune());
    }
    await Promise.all(work);
  }

  /** Held deliveries past the retry window are given up (WebhookDeliveries.expire); the holds
   * of webhooks no longer enabled are forgotten: their deliveries are not claimed anyway, and
   * a disabled webhook's wait as any disabled webhook's, attempted once it is enabled again. */
  private async expireHeld(): Promise<void> {
    const held = this.reach.heldWebhooks();
    if (held.length === 0) return;
    const cutoff = new Date(Date.now() - RETRY_WINDOW_MS).toISOString();
    try {
      const enabled = await this.store.enabledAmong(held);
      for (const webhookId of held) {
        if (enabled.has(webhookId)) await this.deliveries.expire(webhookId, cutoff);
        else this.reach.forget(webhookId);
      }
    } catch (error) {
      this.log.warn({ err: error }, 'webhooks: could not give up the held deliveries past the retry window');
    }
  }

  private async prune(): Promise<void> {
    const cutoff = new Date(Date.now() - this.retentionDays * 86_400_000).toISOString();
    try {
      await this.deliveries.prune(cutoff);
    } catch (error) {
      this.log.warn({ err: error }, 'webhooks: could not remove old deliveries');
    }
  }
}
