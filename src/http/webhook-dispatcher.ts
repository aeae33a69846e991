// Makes the webhooks' deliveries (contract section 16). After every commit of this process,
// and every WEBHOOK_POLL_MS for the commits of other instances, it stores the deliveries of
// the new changes (WebhookDeliveries.fanOut) and claims the due ones. Attempts run side by
// side, at most WEBHOOK_CONCURRENCY at once in this process and at most a quarter of that
// for one webhook, each bounded by WEBHOOK_TIMEOUT_MS: a receiver that hangs or refuses
// holds its own share only, and no request of the API ever waits on a delivery.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import type { AddressGuard } from '../auth/webhook-address-guard.js';
import type { Config } from '../config/config.js';
import { deliveryPayload, type ClaimedDelivery, type Delivery, type DeliveryStatus, type WebhookDeliveries } from '../store/webhook-deliveries.js';
import type { WebhookStore } from '../store/webhook-store.js';
import { attemptDelivery, type AttemptResult } from './webhook-sender.js';

/** A failed delivery is retried for a day, then `failed`. */
const RETRY_WINDOW_MS = 24 * 3_600_000;
/** A Retry-After replaces the next wait, up to an hour. */
const RETRY_AFTER_MAX_MS = 3_600_000;
/** A lease outlives its attempt by this much: the time to record the attempt's result. */
const LEASE_MARGIN_MS = 5_000;
const PRUNE_EVERY_MS = 3_600_000;

type WebhookSettings = Pick<Config, 'webhookTimeoutMs' | 'webhookDisableAfterHours' | 'webhookDeliveryRetentionDays' | 'webhookConcurrency' | 'webhookPollMs' | 'webhookRetryScheduleMs'>;

export class WebhookDispatcher {
  /** This process's name on the leases it takes. */
  readonly owner = `${hostname().slice(0, 40)}-${process.pid}-${randomBytes(4).toString('hex')}`;
  private readonly perWebhook: number;
  private readonly inFlight = new Map<number, number>();
  private inFlightTotal = 0;
  private running = false;
  private again = false;
  private stopped = false;
  private failing = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly attempts = new Set<Promise<void>>();
  /** Attempts made by this process, by what they left the delivery as (metrics). */
  readonly results: Record<DeliveryStatus, number> = { pending: 0, retrying: 0, succeeded: 0, failed: 0 };

  constructor(
    private readonly store: WebhookStore,
    private readonly deliveries: WebhookDeliveries,
    private readonly guard: AddressGuard,
    private readonly settings: WebhookSettings,
    private readonly log: FastifyBaseLogger,
  ) {
    this.perWebhook = Math.max(1, Math.ceil(settings.webhookConcurrency / 4));
  }

  start(): void {
    const poll = setInterval(() => this.wake(), this.settings.webhookPollMs);
    const prune = setInterval(() => void this.prune(), PRUNE_EVERY_MS);
    poll.unref();
    prune.unref();
    this.timers.push(poll, prune);
    // Also at start, as the change log is pruned: a service restarted often still prunes.
    void this.prune();
    this.wake();
  }

  /** Stops claiming; resolves once the attempts under way have ended (each within its time-out). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    await Promise.allSettled([...this.attempts]);
  }

  /** Looks for new changes and due deliveries now (or once the look under way has ended). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void this.tick().finally(() => {
      this.running = false;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
  }

  private async tick(): Promise<void> {
    try {
      while ((await this.deliveries.fanOut()) > 0 && !this.stopped);
      const free = this.settings.webhookConcurrency - this.inFlightTotal;
      const busy = [...this.inFlight].filter(([, count]) => count >= this.perWebhook).map(([id]) => id);
      const claimed = this.stopped ? [] : await this.deliveries.claim(this.owner, this.settings.webhookTimeoutMs + LEASE_MARGIN_MS, free, busy);
      for (const delivery of claimed) this.begin(delivery);
      if (this.failing) this.log.info('webhooks: the deliveries can be read again');
      this.failing = false;
    } catch (error) {
      // Once per outage; the next poll tries again, and nothing stored is lost meanwhile.
      if (!this.failing) this.log.warn({ err: error }, 'webhooks: cannot read or claim deliveries; trying again');
      this.failing = true;
    }
  }

  private begin(delivery: ClaimedDelivery): void {
    // A webhook may have more due deliveries than its share: the claim took them in order.
    this.inFlightTotal++;
    this.inFlight.set(delivery.webhookId, (this.inFlight.get(delivery.webhookId) ?? 0) + 1);
    const attempt = this.attempt(delivery)
      .catch((error: unknown) => this.log.warn({ err: error, delivery: delivery.id }, 'webhooks: an attempt could not be recorded; its lease will expire and it will be made again'))
      .finally(() => {
        this.attempts.delete(attempt);
        this.inFlightTotal--;
        const left = (this.inFlight.get(delivery.webhookId) ?? 1) - 1;
        if (left === 0) this.inFlight.delete(delivery.webhookId);
        else this.inFlight.set(delivery.webhookId, left);
        this.wake();
      });
    this.attempts.add(attempt);
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const target = await this.store.target(delivery.webhookId);
    if (target === undefined) return;
    const result = await attemptDelivery(this.guard, target, delivery.id, delivery.payload, this.settings.webhookTimeoutMs);
    const { status, next } = this.outcome(delivery, result);
    if (await this.deliveries.finish(delivery.id, this.owner, result.attempt, status, next)) {
      this.results[status]++;
      await this.store.recordHealth(delivery.webhookId, result.succeeded, this.settings.webhookDisableAfterHours * 3_600_000);
    }
  }

  /** The delivery's status after an attempt, and when the next one is due. */
  private outcome(delivery: ClaimedDelivery, result: AttemptResult): { status: DeliveryStatus; next: string | null } {
    if (result.succeeded) return { status: 'succeeded', next: null };
    const schedule = this.settings.webhookRetryScheduleMs;
    const wait = result.retryAfterMs !== undefined ? Math.min(result.retryAfterMs, RETRY_AFTER_MAX_MS) : schedule[Math.min(delivery.attempts, schedule.length - 1)]!;
    const next = Date.now() + wait;
    if (next > Date.parse(delivery.createdAt) + RETRY_WINDOW_MS) return { status: 'failed', next: null };
    return { status: 'retrying', next: new Date(next).toISOString() };
  }

  /** A ping: one delivery of type `webhook.ping`, attempted at once; undefined if no such webhook. */
  async ping(webhookId: number): Promise<Delivery | undefined> {
    const target = await this.store.target(webhookId);
    if (target === undefined) return undefined;
    const now = new Date().toISOString();
    const payload = deliveryPayload('webhook.ping', now, JSON.stringify({ webhook_id: webhookId }));
    const id = await this.deliveries.insertPing(webhookId, payload, this.owner, this.settings.webhookTimeoutMs + LEASE_MARGIN_MS);
    const result = await attemptDelivery(this.guard, target, id, payload, this.settings.webhookTimeoutMs);
    await this.deliveries.finish(id, this.owner, result.attempt, result.succeeded ? 'succeeded' : 'failed', null);
    return this.deliveries.read(webhookId, id);
  }

  private async prune(): Promise<void> {
    const cutoff = new Date(Date.now() - this.settings.webhookDeliveryRetentionDays * 86_400_000).toISOString();
    try {
      await this.deliveries.prune(cutoff);
    } catch (error) {
      this.log.warn({ err: error }, 'webhooks: could not remove old deliveries');
    }
  }
}
