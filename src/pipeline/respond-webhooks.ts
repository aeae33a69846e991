// Respond step of the webhook endpoints (contract section 16). A create and a rotation carry
// the signing secret, shown once: no cache may keep those answers. A dry run shows no secret:
// the one made for its checks is rolled back with the rest, and a secret shown but never
// stored would sign nothing (docs/webhooks.md).
import { entityTag, entityTagOfJson, shownEntry } from '../store/entity-tag.js';
import type { WebhookResult } from './execute-webhooks.js';
import { encodeCursor } from './list-page.js';
import type { Outcome } from './respond.js';
import { tagged } from './respond-tagged.js';

const NO_STORE = { 'cache-control': 'no-store' };
const DRY_RUN = { 'dry-run': 'true' };

export function respondWebhook(result: WebhookResult): Outcome {
  switch (result.action) {
    case 'list-webhooks': {
      const { list } = result.plan;
      const { items, total, totalExact, nextAfter } = result.page;
      const next = nextAfter === undefined ? null : encodeCursor(list.sort, nextAfter);
      // Tagged by its text: a webhook's health (failing_since) changes outside the table's
      // version counter, and a list of webhooks is short.
      const body = JSON.stringify({ items, total, total_exact: totalExact, limit: list.limit, offset: list.offset, next });
      return tagged(result.plan.ifNoneMatch, body, entityTagOfJson(body));
    }
    case 'read-webhook': {
      const { json, etag } = shownEntry(result.entry);
      return tagged(result.plan.ifNoneMatch, `{"item":${json}}`, etag);
    }
    case 'webhook-deliveries': {
      const { limit } = result.plan;
      const items = result.deliveries.slice(0, limit);
      const next = result.deliveries.length > limit ? String(items.at(-1)!.id) : null;
      return { status: 200, body: JSON.stringify({ items, limit, next }) };
    }
    case 'create-webhook': {
      const { entry, secret, plan } = result;
      if (plan.dryRun) return { status: 201, headers: { ...DRY_RUN, ...NO_STORE }, body: JSON.stringify({ id: null, secret: null, item: { ...entry, id: null } }) };
      return { status: 201, headers: { location: `/${plan.lang}/api/webhooks/${entry.id}`, etag: entityTag(entry), ...NO_STORE }, body: JSON.stringify({ id: entry.id, secret, item: entry }) };
    }
    case 'rotate-webhook-secret': {
      const { id, dryRun } = result.plan;
      return { status: 200, headers: { ...(dryRun ? DRY_RUN : {}), ...NO_STORE }, body: JSON.stringify({ id, secret: dryRun ? null : result.secret }) };
    }
    case 'ping-webhook':
      return { status: 200, body: JSON.stringify(result.delivery) };
    case 'redeliver-webhook':
      return { status: 202, headers: result.plan.dryRun ? DRY_RUN : {}, body: JSON.stringify(result.delivery) };
    case 'delete-webhook': {
      const { id, dryRun } = result.plan;
      return { status: 200, headers: dryRun ? DRY_RUN : {}, body: JSON.stringify({ id, deleted: true, mode: 'hard' }) };
    }
    case 'patch-webhook': {
      const { json, etag } = shownEntry(result.entry);
      return { status: 200, headers: { etag, ...(result.plan.dryRun ? DRY_RUN : {}) }, body: `{"id":${result.plan.id},"resource":"webhooks","updated":true,"item":${json}}` };
    }
  }
}
