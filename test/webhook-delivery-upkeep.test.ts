// The deliveries' upkeep forgets the hold of a webhook deleted or disabled while its receiver
// refused connections: before, its entry stayed in the process's holds, and a statement that
// could expire nothing ran for it every minute, until the process stopped. The webhooks that
// are still enabled keep their hold and have their old held deliveries expired.
// @backend-independent (runs once, not once per backend): the upkeep alone, its store and
// deliveries stand-ins in memory.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import { WebhookDeliveryUpkeep } from '../src/http/webhook-delivery-upkeep.js';
import { WebhookReachability } from '../src/http/webhook-reachability.js';

const ENABLED = 1;
const DISABLED = 2;
const DELETED = 3;

test('held webhooks no longer enabled are forgotten, the others expired', async () => {
  const reach = new WebhookReachability(5_000);
  for (const id of [ENABLED, DISABLED, DELETED]) reach.ended(id, 100 + id, 'refused');
  assert.deepEqual(reach.heldWebhooks().sort(), [ENABLED, DISABLED, DELETED]);
  const expired: number[] = [];
  const store = { enabledAmong: async (ids: readonly number[]) => new Set(ids.filter((id) => id === ENABLED)) };
  const deliveries = {
    expire: async (webhookId: number) => {
      expired.push(webhookId);
      return 0;
    },
    prune: async () => 0,
  };
  const warnings: unknown[] = [];
  const log = { warn: (...args: unknown[]) => void warnings.push(args) } as unknown as FastifyBaseLogger;
  const upkeep = new WebhookDeliveryUpkeep(store, deliveries, reach, 30, log);

  await upkeep.runIfDue();
  assert.deepEqual(warnings, []);
  assert.deepEqual(reach.heldWebhooks(), [ENABLED]);
  assert.deepEqual(expired, [ENABLED]);
  // A webhook forgotten starts again as any other: its deliveries may go, within its share.
  assert.equal(reach.room(DISABLED, 2), 2);
  assert.equal(reach.room(ENABLED, 2), 0);
});
