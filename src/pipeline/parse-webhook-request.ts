// Parse step of the webhook endpoints (contract section 16): what each request asks, with its
// query string checked here, before any body is validated (plan-webhooks.ts) or any database
// read. Every write takes ?dry_run=true (contract section 12); a ping is not a write but a
// sending, whose answer is the sending's result: it takes no dry run.
import { apiError } from '../errors/api-error.js';
import type { Author } from '../store/change-log.js';
import type { ListQuery } from '../store/list-query.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../store/webhook-delivery-records.js';
import { WEBHOOKS } from '../store/webhook-definition.js';
import { integerParameter, parseListQuery, refuseUnknownParameters, single } from './parse-list-query.js';
import { refuseQuery, writeQuery, type HttpInput } from './parse-request.js';
import type { RequestTarget } from './request-target.js';

export const DELIVERIES_LIMIT_MAX = 100;
const DELIVERIES_LIMIT_DEFAULT = 20;

export type WebhookRequest =
  | { readonly action: 'list-webhooks'; readonly list: ListQuery; readonly ifNoneMatch: string | undefined }
  | { readonly action: 'read-webhook'; readonly id: number; readonly ifNoneMatch: string | undefined }
  | { readonly action: 'webhook-deliveries'; readonly id: number; readonly status: DeliveryStatus | undefined; readonly after: number | undefined; readonly limit: number }
  | { readonly action: 'create-webhook'; readonly lang: string; readonly body: unknown; readonly author: Author; readonly dryRun: boolean }
  | { readonly action: 'patch-webhook'; readonly id: number; readonly body: unknown; readonly ifMatch: string | undefined; readonly author: Author; readonly dryRun: boolean }
  | { readonly action: 'delete-webhook'; readonly id: number; readonly ifMatch: string | undefined; readonly author: Author; readonly dryRun: boolean }
  | { readonly action: 'rotate-webhook-secret'; readonly id: number; readonly author: Author; readonly dryRun: boolean }
  | { readonly action: 'ping-webhook'; readonly id: number }
  | { readonly action: 'redeliver-webhook'; readonly id: number; readonly deliveryId: number; readonly dryRun: boolean };

/** The actions of the webhook endpoints, stated once: each step of the pipeline hands them to
 * the webhooks' own module together (isWebhookAction). */
const WEBHOOK_ACTIONS: ReadonlySet<string> = new Set([
  'list-webhooks',
  'read-webhook',
  'webhook-deliveries',
  'create-webhook',
  'patch-webhook',
  'delete-webhook',
  'rotate-webhook-secret',
  'ping-webhook',
  'redeliver-webhook',
] satisfies readonly WebhookRequest['action'][]);

/** Whether a request, plan or result of the pipeline is a webhook endpoint's. */
export function isWebhookAction<T extends { readonly action: string }>(value: T): value is Extract<T, { readonly action: WebhookRequest['action'] }> {
  return WEBHOOK_ACTIONS.has(value.action);
}

/** The endpoints this parses. */
export const WEBHOOK_ENDPOINTS: ReadonlySet<string> = new Set(['webhooks', 'webhook', 'webhookRotate', 'webhookPing', 'webhookDeliveries', 'webhookRedeliver']);

function deliveriesQuery(query: Record<string, unknown>): { status: DeliveryStatus | undefined; after: number | undefined; limit: number } {
  refuseUnknownParameters(query, ['status', 'limit', 'after']);
  const limit = integerParameter('limit', query.limit, 1, DELIVERIES_LIMIT_MAX, DELIVERIES_LIMIT_DEFAULT);
  const after = query.after === undefined ? undefined : integerParameter('after', query.after, 1, 2_147_483_647, 0);
  let status: DeliveryStatus | undefined;
  if (query.status !== undefined) {
    const value = single('status', query.status);
    if (!(DELIVERY_STATUSES as readonly string[]).includes(value)) throw apiError('BAD_QUERY', 'query.oneOf', { parameter: 'status', values: DELIVERY_STATUSES.join(', ') });
    status = value as DeliveryStatus;
  }
  return { status, after, limit };
}

export function parseWebhookRequest(target: RequestTarget, input: HttpInput, author: Author): WebhookRequest {
  const { method, query } = input;
  if (target.endpoint === 'webhooks' && method !== 'POST') return { action: 'list-webhooks', list: parseListQuery(WEBHOOKS, query), ifNoneMatch: input.ifNoneMatch };
  const id = target.id!;
  if (target.endpoint === 'webhookDeliveries') return { action: 'webhook-deliveries', id, ...deliveriesQuery(query) };
  // A HEAD of one webhook takes what its writes take, as it always has.
  const { dryRun } = method === 'GET' || target.endpoint === 'webhookPing' ? (refuseQuery(query), { dryRun: false }) : writeQuery(query);
  switch (target.endpoint) {
    case 'webhooks':
      return { action: 'create-webhook', lang: target.lang, body: input.body, author, dryRun };
    case 'webhookRotate':
      return { action: 'rotate-webhook-secret', id, author, dryRun };
    case 'webhookPing':
      return { action: 'ping-webhook', id };
    case 'webhookRedeliver':
      return { action: 'redeliver-webhook', id, deliveryId: target.deliveryId!, dryRun };
    default:
      break;
  }
  if (method === 'DELETE') return { action: 'delete-webhook', id, ifMatch: input.ifMatch, author, dryRun };
  if (method === 'PATCH') return { action: 'patch-webhook', id, body: input.body, ifMatch: input.ifMatch, author, dryRun };
  return { action: 'read-webhook', id, ifNoneMatch: input.ifNoneMatch };
}
