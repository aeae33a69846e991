// Makes the webhooks' deliveries (contract section 16). After every commit of this process,
// and every WEBHOOK_POLL_MS for the commits of other instances, it stores the deliveries of
// the new changes (WebhookDeliveries.fanOut) and claims the due ones. Attempts run side by
// side, at most WEBHOOK_CONCURRENCY at once in this process and at most a quarter of that
// for one webhook, each bounded by WEBHOOK_TIMEOUT_MS: a receiver that hangs or refuses
// holds its own share only, and no request of the API ever waits on a delivery.
//
// A receiver that refuses connections is probed by one attempt at a time, its other due
// deliveries held until a probe reaches it (webhook-reachability.ts).
//
// The database work is per batch, not per delivery: a claimed batch's webhooks are read
// once, and the results of the attempts are recorded in batches (webhook-attempt-recorder.ts),
// then the dispatcher looks for more work once. What its attempts leave a delivery as is the
// retry schedule's (webhook-retry-schedule.ts); the poll also keeps the deliveries table
// (webhook-delivery-upkeep.ts).
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import type { AddressGuard } from '../auth/webhook-address-guard.js';
import type { Config } from '../config/config.js';
import { deliveryPayload, type ClaimedDelivery, type WebhookDeliveries } from '../store/webhook-deliveries.js';
import type { DeliveryStatus } from '../store/webhook-delivery-records.js';
import type { WebhookStore, WebhookTarget } from '../store/webhook-store.js';
import { WebhookAttemptRecorder } from './webhook-attempt-recorder.js';
import { WebhookDeliveryUpkeep } from './webhook-delivery-upkeep.js';
import { WebhookReachability } from './webhook-reachability.js';
import { attemptOutcome } from './webhook-retry-schedule.js';
import { attemptDelivery } from './webhook-sender.js';

/** A lease outlives its attempt by this much: the time to record the attempt's result. */
const LEASE_MARGIN_MS = 5_000;
/** Where the database runs on the event loop (SQLite), the claims and recordings take at most
 * this share of its time: the rest is the API's. */
const LOOP_SHARE = 0.25;
/** After a commit, the change log is read this long after the last read at the soonest: under
 * a stream of writes one fan-out (a transaction; on SQLite an fsync on the event loop) then
 * takes the changes of several commits instead of one each. */
const FAN_OUT_SPACING_MS = 20;

export interface DispatcherOptions {
  /** Whether the database's statements run on this event loop (SQLite) rather than over a
   * connection (PostgreSQL, MariaDB): then the dispatcher's database work is paced. */
  readonly onEventLoop: boolean;
  /** How often held deliveries are looked at for the retry window's end; a minute unless a
   * test, which cannot wait for minutes, makes it shorter (AppOptions). */
  readonly expireHeldEveryMs?: number;
}

type WebhookSettings = Pick<Config, 'webhookTimeoutMs' | 'webhookDisableAfterHours' | 'webhookDeliveryRetentionDays' | 'webhookConcurrency' | 'webhookPollMs' | 'webhookRetryScheduleMs'>;

export class WebhookDispatcher {
  /** This process's name on the leases it takes. */
  readonly owner = `${hostname().slice(0, 40)}-${process.pid}-${randomBytes(4).toString('hex')}`;
  private readonly perWebhook: number;
  private readonly inFlight = new Map<number, number>();
  private inFlightTotal = 0;
  private running = false;
  private runQueued = false;
  private again = false;
  /** Whether the next look reads the change log, and whether it claims. */
  private lookForChanges = true;
  private lookForDue = true;
  private stopped = false;
  private failing = false;
  private poll: NodeJS.Timeout | undefined;
  /** Receivers refusing connections: their webhooks' deliveries are held but for a probe. */
  private readonly reach: WebhookReachability;
  private readonly recorder: WebhookAttemptRecorder;
  private readonly upkeep: WebhookDeliveryUpkeep;
  /** No claim before this time (performance.now()): the pacing of LOOP_SHARE. */
  private quietUntil = 0;
  private paced: NodeJS.Timeout | undefined;
  /** When the change log was last read (performance.now()), and the wake after a commit that
   * waits for FAN_OUT_SPACING_MS. */
  private lastReadAt = -Infinity;
  private spaced: NodeJS.Timeout | undefined;
  private readonly attempts = new Set<Promise<void>>();

  constructor(
    private readonly store: WebhookStore,
    private readonly deliveries: WebhookDeliveries,
    private readonly guard: AddressGuard,
    private readonly settings: WebhookSettings,
    private readonly log: FastifyBaseLogger,
    private readonly options: DispatcherOptions = { onEventLoop: false },
  ) {
    this.perWebhook = Math.max(1, Math.ceil(settings.webhookConcurrency / 4));
    this.reach = new WebhookReachability(settings.webhookRetryScheduleMs[0]!);
    this.recorder = new WebhookAttemptRecorder(store, deliveries, this.owner, settings.webhookDisableAfterHours, log, (workMs) => this.spent(workMs));
    this.upkeep = new WebhookDeliveryUpkeep(store, deliveries, this.reach, settings.webhookDeliveryRetentionDays, log, options.expireHeldEveryMs);
  }

  /** Attempts made by this process, by what they left the delivery as (metrics). */
  get results(): Readonly<Record<DeliveryStatus, number>> {
    return this.recorder.results;
  }

  /** Webhooks this process disabled for failing WEBHOOK_DISABLE_AFTER_HOURS (metrics). */
  get disabled(): number {
    return this.recorder.disabled;
  }

  // One timer, the poll: it also runs the deliveries' upkeep when some is due
  // (webhook-delivery-upkeep.ts), and counts the enabled webhooks again: that is how this
  // process learns of a webhook another instance created or enabled (changesCommitted skips
  // while it knows none).
  // The poll's look at the change log runs whatever the count, so a change this process wrote
  // before it learnt of a webhook is fanned out at the next poll of any instance.
  start(): void {
    const polled = (): void => {
      void this.store.countEnabled().finally(() => {
        void this.upkeep.runIfDue();
        this.wake();
      });
    };
    this.poll = setInterval(polled, this.settings.webhookPollMs);
    this.poll.unref();
    // Also at start, as the change log is pruned: a service restarted often still prunes.
    polled();
  }

  /** After a commit of this process: a look at its changes, unless no webhook is enabled (as
   * this process knows; the poll corrects it for other instances' webhook writes). */
  changesCommitted(): void {
    if (!this.store.mayDeliver) return;
    const wait = this.lastReadAt + FAN_OUT_SPACING_MS - performance.now();
    if (wait <= 0) return this.wake();
    if (this.spaced !== undefined) return;
    this.spaced = setTimeout(() => {
      this.spaced = undefined;
      this.wake();
    }, Math.ceil(wait));
    this.spaced.unref();
  }

  /** Stops claiming; resolves once the attempts under way have ended (each within its time-out). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.poll);
    clearTimeout(this.paced);
    clearTimeout(this.spaced);
    await Promise.allSettled([...this.attempts]);
    await this.recorder.idle();
  }

  /** Looks for new changes and due deliveries now (or once the look under way has ended). */
  wake(): void {
    this.lookForChanges = true;
    this.lookForDue = true;
    this.run();
  }

  // The attempts of one recording end together, one callback each: a look made at the first
  // saw one slot free, and claimed one delivery per transaction (over a connection, a few
  // round trips for each delivery). Looked at once they have all ended, their slots are one batch.
  private runAfterTurn(): void {
    if (this.runQueued) return;
    this.runQueued = true;
    setImmediate(() => {
      this.runQueued = false;
      this.run();
    });
  }

  private run(): void {
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
        this.run();
      }
    });
  }

  // An attempt that ends only frees a slot: it needs no look at the change log, and no claim
  // unless the last claim may have left due deliveries behind (it filled every free slot, or
  // skipped a webhook at its share). Without this, each ended attempt cost a claim that found
  // nothing.
  private async tick(): Promise<void> {
    try {
      if (this.lookForChanges) {
        this.lookForChanges = false;
        this.lastReadAt = performance.now();
        if (await this.deliveries.behind()) {
          while ((await this.deliveries.fanOut()) && !this.stopped);
          this.lookForDue = true;
        }
      }
      if (!this.lookForDue || this.stopped) return;
      const free = this.settings.webhookConcurrency - this.inFlightTotal;
      // A batch, not a slot: claiming for each slot freed found nothing most of the time (the
      // webhook whose attempts just ended still at its share) and cost a scan past all its
      // due deliveries, 10,000 of them for a dead receiver. The look waits for the next ended
      // attempt, which calls run(), until a webhook's share of slots is free.
      if (free < this.perWebhook && this.inFlightTotal > 0) return;
      if (this.pacedUntilQuiet()) return;
      this.lookForDue = false;
      const workBefore = this.deliveries.workMs;
      const roomOf = (webhookId: number): number => this.reach.room(webhookId, this.perWebhook - (this.inFlight.get(webhookId) ?? 0));
      const { claimed, more } = await this.deliveries.claim(this.owner, this.settings.webhookTimeoutMs + LEASE_MARGIN_MS, free, roomOf);
      this.spent(this.deliveries.workMs - workBefore);
      // More may be due: the slots were filled, or a webhook's share left rows another takes.
      if (claimed.length === free || (more && claimed.length > 0)) this.lookForDue = true;
      if (claimed.length > 0) {
        const targets = await this.store.targets([...new Set(claimed.map((delivery) => delivery.webhookId))]);
        for (const delivery of claimed) this.begin(delivery, targets.get(delivery.webhookId));
      }
      if (this.failing) this.log.info('webhooks: the deliveries can be read again');
      this.failing = false;
    } catch (error) {
      // Once per outage; the next poll tries again, and nothing stored is lost meanwhile.
      if (!this.failing) this.log.warn({ err: error }, 'webhooks: cannot read or claim deliveries; trying again');
      this.failing = true;
    }
  }

  // SQLite runs the claims and recordings on this event loop: while a dead receiver's
  // thousands of deliveries are retried, back to back they took most of it, and the API's
  // answers waited (GET p99 from 9 to 175 ms with 5,000 retrying). Each takes a few ms; after
  // it, the next claim waits so that they take at most LOOP_SHARE of the time. Recordings are
  // not delayed (their attempts hold slots); their time delays the next claim. What counts is
  // the time inside their transactions (workMs), not the wait for their turn behind the API's
  // writes. Over a connection (PostgreSQL, MariaDB) the wait is the database's, not the loop's.
  private spent(workMs: number): void {
    if (!this.options.onEventLoop) return;
    this.quietUntil = Math.max(this.quietUntil, performance.now()) + (workMs * (1 - LOOP_SHARE)) / LOOP_SHARE;
  }

  /** True if the claim must wait for its pace; then run() is called once it may go. */
  private pacedUntilQuiet(): boolean {
    const wait = this.quietUntil - performance.now();
    if (wait <= 0) return false;
    if (this.paced === undefined) {
      this.paced = setTimeout(() => {
        this.paced = undefined;
        this.run();
      }, Math.ceil(wait));
      this.paced.unref();
    }
    return true;
  }

  private begin(delivery: ClaimedDelivery, target: WebhookTarget | undefined): void {
    this.inFlightTotal++;
    this.inFlight.set(delivery.webhookId, (this.inFlight.get(delivery.webhookId) ?? 0) + 1);
    this.reach.started(delivery.webhookId, delivery.id);
    const attempt = this.attempt(delivery, target)
      .catch((error: unknown) => this.log.warn({ err: error, delivery: delivery.id }, 'webhooks: an attempt could not be recorded; its lease will expire and it will be made again'))
      .finally(() => {
        this.attempts.delete(attempt);
        this.inFlightTotal--;
        const held = this.inFlight.get(delivery.webhookId) ?? 1;
        if (held === 1) this.inFlight.delete(delivery.webhookId);
        else this.inFlight.set(delivery.webhookId, held - 1);
        // The slot is free once the result is recorded, not when the receiver answered: a
        // crash then resends at most WEBHOOK_CONCURRENCY attempts of this process (those in
        // flight), never also the answered ones still waiting for their recording. The last
        // claim skipped this webhook while it was at its share, which it now is no more.
        if (held === this.perWebhook) this.lookForDue = true;
        this.runAfterTurn();
      });
    this.attempts.add(attempt);
  }

  /** Makes the attempt and records its result with the others that end meanwhile. */
  private async attempt(delivery: ClaimedDelivery, target: WebhookTarget | undefined): Promise<void> {
    // A webhook deleted since the claim: its deliveries went with it.
    if (target === undefined) return void this.reach.ended(delivery.webhookId, delivery.id, 'unknown');
    const result = await attemptDelivery(this.guard, target, delivery.id, delivery.payload, this.settings.webhookTimeoutMs);
    // The receiver answered again: its held deliveries may go (the slot's end looks for them).
    if (this.reach.ended(delivery.webhookId, delivery.id, result.reach)) this.lookForDue = true;
    const { status, next } = attemptOutcome(delivery, result, this.settings.webhookRetryScheduleMs);
    await this.recorder.record(delivery.webhookId, { id: delivery.id, attemptsJson: delivery.attemptsJson, attempt: result.attempt, status, nextAttemptAt: next });
  }

  /** A ping: one delivery of type `webhook.ping`, attempted and recorded at once; its id, or
   * undefined if no such webhook. */
  async ping(webhookId: number): Promise<number | undefined> {
    const target = await this.store.target(webhookId);
    if (target === undefined) return undefined;
    const now = new Date().toISOString();
    const payload = deliveryPayload('webhook.ping', now, JSON.stringify({ webhook_id: webhookId }));
    const id = await this.deliveries.insertPing(webhookId, payload, this.owner, this.settings.webhookTimeoutMs + LEASE_MARGIN_MS);
    const result = await attemptDelivery(this.guard, target, id, payload, this.settings.webhookTimeoutMs);
    // A ping that reaches a receiver that was refusing lets its held deliveries go at once.
    if (this.reach.ended(webhookId, id, result.reach)) this.wake();
    await this.deliveries.finish(this.owner, [{ id, attemptsJson: '[]', attempt: result.attempt, status: result.succeeded ? 'succeeded' : 'failed', nextAttemptAt: null }]);
    return id;
  }
}
