// The webhook endpoints (contract section 16), for admin tokens only: create (the signing
// secret shown once), list, read, PATCH, DELETE, rotate-secret, ping, one webhook's
// deliveries (newest first, by status, with a cursor) and redeliver. Writes go through the
// registry-driven store (a change record of resource `webhooks`); the deliveries are made by
// the dispatcher (webhook-dispatcher.ts).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { apiError, entryNotFound } from '../../errors/api-error.js';
import { entityTag, entityTagOfJson, ifMatchHolds, ifNoneMatchHolds, shownEntry } from '../../pipeline/entity-tag.js';
import { encodeCursor } from '../../pipeline/list-page.js';
import { integerParameter, parseListQuery, refuseUnknownParameters, single } from '../../pipeline/parse-list-query.js';
import { refuseQuery, writeQuery } from '../../pipeline/parse-request.js';
import type { RequestTarget } from '../../pipeline/request-target.js';
import type { Outcome } from '../../pipeline/respond.js';
import { validateBody } from '../../pipeline/validate-body.js';
import { newWebhookSecret } from '../../secrets/webhook-signature.js';
import { UniqueConflict } from '../../store/unique-rules.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../store/webhook-deliveries.js';
import { WEBHOOKS } from '../../store/webhook-definition.js';
import type { Precondition } from '../../store/webhook-store.js';
import { endpointRoute } from './endpoint-route.js';

export const DELIVERIES_LIMIT_MAX = 100;
const DELIVERIES_LIMIT_DEFAULT = 20;
// The one answer that carries a secret: no cache may keep it.
const NO_STORE = { 'cache-control': 'no-store' };
const DRY_RUN = { 'dry-run': 'true' };

/** If-Match on PATCH and DELETE (contract section 8): checked against the entry as locked. */
function ifMatch(request: FastifyRequest): Precondition | undefined {
  const header = request.headers['if-match'];
  if (header === undefined) return undefined;
  return (current) => {
    if (!ifMatchHolds(header, entityTag(current))) throw apiError('PRECONDITION_FAILED', 'precondition.failed');
  };
}

/** A GET's answer with its entity tag, or 304 when If-None-Match holds that tag. */
function tagged(request: FastifyRequest, body: string, etag: string): Outcome {
  const header = request.headers['if-none-match'];
  if (header !== undefined && !ifNoneMatchHolds(header, etag)) return { status: 304, headers: { etag } };
  return { status: 200, headers: { etag }, body };
}

export default async function webhookRoutes(app: FastifyInstance): Promise<void> {
  const { webhookStore: store, webhookDeliveries: deliveries, webhookDispatcher: dispatcher, webhookGuard: guard } = app;
  const notFound = (id: number) => entryNotFound(WEBHOOKS.name, id);

  /** 400 when the URL's host resolves to an address webhooks may not reach. */
  async function refuseUnsafeUrl(url: string): Promise<void> {
    const resolved = await guard.resolve(new URL(url).hostname);
    if ('unresolved' in resolved) throw apiError('URL_REFUSED', 'webhook.urlUnresolved');
    if ('refused' in resolved) throw apiError('URL_REFUSED', 'webhook.urlRefused', { address: resolved.refused });
  }

  async function serve(target: RequestTarget, request: FastifyRequest): Promise<Outcome> {
    const query = request.query as Record<string, unknown>;
    const method = request.method;
    const author = { actor: request.caller!.name, requestId: request.id };
    if (target.endpoint === 'webhooks' && method !== 'POST') {
      const list = parseListQuery(WEBHOOKS, query);
      const { items, total, totalExact, nextAfter } = await store.entries.list(WEBHOOKS, list);
      const next = nextAfter === undefined ? null : encodeCursor(list.sort, nextAfter);
      // Tagged by its text: a webhook's health (failing_since) changes outside the table's
      // version counter, and a list of webhooks is short.
      const body = JSON.stringify({ items, total, total_exact: totalExact, limit: list.limit, offset: list.offset, next });
      return tagged(request, body, entityTagOfJson(body));
    }
    if (target.endpoint === 'webhookDeliveries') {
      refuseUnknownParameters(query, ['status', 'limit', 'after']);
      const limit = integerParameter('limit', query.limit, 1, DELIVERIES_LIMIT_MAX, DELIVERIES_LIMIT_DEFAULT);
      const after = query.after === undefined ? undefined : integerParameter('after', query.after, 1, 2_147_483_647, 0);
      let status: DeliveryStatus | undefined;
      if (query.status !== undefined) {
        const value = single('status', query.status);
        if (!(DELIVERY_STATUSES as readonly string[]).includes(value)) throw apiError('BAD_QUERY', 'query.oneOf', { parameter: 'status', values: DELIVERY_STATUSES.join(', ') });
        status = value as DeliveryStatus;
      }
      if ((await store.entries.read(WEBHOOKS, target.id!)) === undefined) throw notFound(target.id!);
      // One more than asked tells whether there is a next page.
      const page = await deliveries.list(target.id!, status, after, limit + 1);
      const items = page.slice(0, limit);
      const next = page.length > limit ? String(items.at(-1)!.id) : null;
      return { status: 200, body: JSON.stringify({ items, limit, next }) };
    }
    // Every write takes ?dry_run=true (contract section 12): all its checks run in a
    // transaction rolled back, answered as the real request would be with `Dry-Run: true`; no
    // change record, no delivery. A ping is not a write but a sending, whose answer is the
    // sending's result: it takes no dry run.
    const { dryRun } = method === 'GET' || target.endpoint === 'webhookPing' ? (refuseQuery(query), { dryRun: false }) : writeQuery(query);
    const dry = dryRun ? DRY_RUN : {};
    const id = target.id!;
    switch (target.endpoint) {
      case 'webhooks': {
        const { values } = validateBody(WEBHOOKS, request.body, 'create');
        await refuseUnsafeUrl(values.url as string);
        const secret = newWebhookSecret();
        const entry = await store.create(values, secret, author, dryRun);
        // A dry run shows no secret: the one made for its checks is rolled back with the rest,
        // and a secret shown but never stored would sign nothing (docs/webhooks.md).
        if (dryRun) return { status: 201, headers: { ...dry, ...NO_STORE }, body: JSON.stringify({ id: null, secret: null, item: { ...entry, id: null } }) };
        dispatcher.wake();
        return { status: 201, headers: { location: `/${target.lang}/api/webhooks/${entry.id}`, etag: entityTag(entry), ...NO_STORE }, body: JSON.stringify({ id: entry.id, secret, item: entry }) };
      }
      case 'webhookRotate': {
        const secret = newWebhookSecret();
        if (!(await store.rotate(id, secret, author, dryRun))) throw notFound(id);
        return { status: 200, headers: { ...dry, ...NO_STORE }, body: JSON.stringify({ id, secret: dryRun ? null : secret }) };
      }
      case 'webhookPing': {
        const delivery = await dispatcher.ping(id);
        if (delivery === undefined) throw notFound(id);
        return { status: 200, body: JSON.stringify(delivery) };
      }
      case 'webhookRedeliver': {
        const delivery = await deliveries.redeliver(id, target.deliveryId!, dryRun);
        if (delivery === undefined) throw apiError('NOT_FOUND', 'webhook.deliveryNotFound', { id: target.deliveryId!, webhook: id });
        if (!dryRun) dispatcher.wake();
        return { status: 202, headers: dry, body: JSON.stringify(delivery) };
      }
      default:
        break;
    }
    if (method === 'DELETE') {
      if (!(await store.remove(id, author, ifMatch(request), dryRun))) throw notFound(id);
      return { status: 200, headers: dry, body: JSON.stringify({ id, deleted: true, mode: 'hard' }) };
    }
    if (method === 'PATCH') {
      const { values } = validateBody(WEBHOOKS, request.body, 'patch', id);
      if (values.url !== undefined) await refuseUnsafeUrl(values.url as string);
      const entry = await store.update(id, values, author, ifMatch(request), dryRun);
      if (entry === undefined) throw notFound(id);
      if (!dryRun) dispatcher.wake();
      const { json, etag } = shownEntry(entry);
      return { status: 200, headers: { etag, ...dry }, body: `{"id":${id},"resource":"webhooks","updated":true,"item":${json}}` };
    }
    const entry = await store.entries.read(WEBHOOKS, id);
    if (entry === undefined) throw notFound(id);
    const { json, etag } = shownEntry(entry);
    return tagged(request, `{"item":${json}}`, etag);
  }

  const handle = async (target: RequestTarget, request: FastifyRequest): Promise<Outcome> => {
    try {
      return await serve(target, request);
    } catch (error) {
      // The route factory maps every other failure (database-errors.ts).
      throw error instanceof UniqueConflict ? error.problem() : error;
    }
  };
  const admin = { admin: true };
  endpointRoute(app, app.registry, '/:lang/api/webhooks', 'webhooks', handle, admin);
  endpointRoute(app, app.registry, '/:lang/api/webhooks/:id', 'webhook', handle, admin);
  endpointRoute(app, app.registry, '/:lang/api/webhooks/:id/rotate-secret', 'webhookRotate', handle, admin);
  endpointRoute(app, app.registry, '/:lang/api/webhooks/:id/ping', 'webhookPing', handle, admin);
  endpointRoute(app, app.registry, '/:lang/api/webhooks/:id/deliveries', 'webhookDeliveries', handle, admin);
  endpointRoute(app, app.registry, '/:lang/api/webhooks/:id/deliveries/:delivery_id/redeliver', 'webhookRedeliver', handle, admin);
}
