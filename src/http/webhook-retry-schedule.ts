// When a delivery whose attempt failed is tried again, and when it is given up (contract
// section 16): the retry schedule's waits, one per attempt made, the last one repeated; a
// Retry-After of the receiver in place of the next wait; and a day from the change, after
// which the delivery is `failed` rather than retried. The dispatcher applies it to each ended
// attempt; the upkeep applies the window to the deliveries held while a receiver refuses
// connections, which are not attempted and so never reach this schedule by themselves.
import type { DeliveryStatus } from '../store/webhook-delivery-records.js';
import type { ClaimedDelivery } from '../store/webhook-deliveries.js';
import type { AttemptResult } from './webhook-sender.js';

/** A failed delivery is retried for a day, then `failed`. */
export const RETRY_WINDOW_MS = 24 * 3_600_000;
/** A Retry-After replaces the next wait, up to an hour. */
const RETRY_AFTER_MAX_MS = 3_600_000;

/** The delivery's status after an attempt, and when the next one is due. */
export function attemptOutcome(delivery: ClaimedDelivery, result: AttemptResult, schedule: readonly number[]): { status: DeliveryStatus; next: string | null } {
  if (result.succeeded) return { status: 'succeeded', next: null };
  const wait = result.retryAfterMs !== undefined ? Math.min(result.retryAfterMs, RETRY_AFTER_MAX_MS) : schedule[Math.min(delivery.attempts, schedule.length - 1)]!;
  const next = Date.now() + wait;
  if (next > Date.parse(delivery.createdAt) + RETRY_WINDOW_MS) return { status: 'failed', next: null };
  return { status: 'retrying', next: new Date(next).toISOString() };
}
