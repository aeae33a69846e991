// Which webhooks' receivers refuse connections, as this process last saw them: while a
// receiver refuses every connection, each attempt of its backlog would cost a resolution, a
// signature, a socket and a recording only to fail the same way (a dead receiver's thousands
// of retries took their share of the event loop in bursts). So, as well-run senders do, one
// attempt probes it at a time, a probe every PROBE interval, and its other due deliveries are
// held: not claimed, not attempted, their attempts and schedule untouched. The first attempt
// that reaches the receiver (any HTTP answer) lifts the hold, and the backlog goes out under
// the webhook's usual share.
//
// Held deliveries are not attempts: no attempt is recorded for them and no metric counts them.
// A held delivery older than the retry window is `failed` (webhook-delivery-upkeep.ts), as it
// would be after its retries. The probes' failures keep the webhook's `failing_since`, so the
// auto-disable after WEBHOOK_DISABLE_AFTER_HOURS is unchanged. The state is this process's own:
// each instance probes for itself, and a restart starts with every receiver reachable.

/** What an ended attempt says of its receiver. */
export type Reach = 'refused' | 'answered' | 'unknown';

interface Hold {
  /** No probe before this time (ms since the epoch). */
  probeAt: number;
  /** The delivery being attempted as the probe, if one is under way. */
  probe: number | undefined;
}

export class WebhookReachability {
  private readonly held = new Map<number, Hold>();

  constructor(
    /** Between two probes of a refusing receiver: the retry schedule's first wait. */
    private readonly probeEveryMs: number,
  ) {}

  /** The webhooks whose deliveries are held (for the expiry of the old ones). */
  heldWebhooks(): number[] {
    return [...this.held.keys()];
  }

  /** The webhook is no longer held: deleted or disabled, its deliveries will not be claimed
   * (an enabled webhook again starts as any other, its receiver reachable until an attempt
   * finds otherwise). */
  forget(webhookId: number): void {
    this.held.delete(webhookId);
  }

  /** How many deliveries the webhook may start now out of `room`: all while its receiver is
   * reachable; one probe while it refuses, once the probe is due and none is under way. */
  room(webhookId: number, room: number, now = Date.now()): number {
    const hold = this.held.get(webhookId);
    if (hold === undefined) return room;
    return hold.probe !== undefined || now < hold.probeAt ? 0 : Math.min(1, room);
  }

  /** A delivery of the webhook was claimed: while the webhook is held, it is the probe. */
  started(webhookId: number, deliveryId: number): void {
    const hold = this.held.get(webhookId);
    if (hold !== undefined) hold.probe = deliveryId;
  }

  /** An attempt ended; resolves to true if that lifted the webhook's hold (its backlog may go). */
  ended(webhookId: number, deliveryId: number, reach: Reach, now = Date.now()): boolean {
    if (reach === 'answered') return this.held.delete(webhookId);
    if (reach === 'refused') {
      this.held.set(webhookId, { probeAt: now + this.probeEveryMs, probe: undefined });
      return false;
    }
    // Neither (a time-out, a guard's refusal, a deleted webhook): the probe is over, and the
    // next one due at the same time.
    const hold = this.held.get(webhookId);
    if (hold?.probe === deliveryId) hold.probe = undefined;
    return false;
  }
}
