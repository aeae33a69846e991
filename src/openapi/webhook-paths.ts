// The webhook endpoints of the document (contract section 16): their paths, and their
// schemas, made from the webhook description (src/store/webhook-definition.ts) by the same
// code as any resource's, plus the answers that carry a signing secret and the deliveries.
import { MAX_ID } from '../registry/field-types.js';
import { WEBHOOK_SECRET_PATTERN } from '../secrets/webhook-signature.js';
import { DELIVERY_STATUSES } from '../store/webhook-delivery-records.js';
import { WEBHOOKS } from '../store/webhook-definition.js';
import { headerRef, json, parameterRef, ref, type DocumentContext, type JsonObject } from './document-parts.js';
import { ACCESS, ALWAYS, errors, STORAGE_ERRORS, type ErrorName } from './error-responses.js';
import { listParameters } from './resource-paths.js';
import { resourceSchemas } from './resource-schemas.js';
import { webhookTexts } from './webhook-texts.js';

const TAG = 'webhooks';
const ADMIN_ONLY: JsonObject[] = [{}, { bearerAuth: ['admin'] }];
const SHOWN = new Set(['Webhook', 'WebhookCreate', 'WebhookPatch', 'WebhookList', 'WebhookItem', 'WebhookUpdated']);
const BODY: ErrorName[] = ['WebhookBodyRefused', 'PayloadTooLarge', 'UnsupportedMediaType', 'ValidationFailed', 'WriteConflict', ...STORAGE_ERRORS];
const id = { type: 'integer', minimum: 1, maximum: MAX_ID };

function object(properties: JsonObject): JsonObject {
  return { type: 'object', required: Object.keys(properties), additionalProperties: false, properties };
}

/** An entry shows its headers' names only: its example and default say so too (the registry's
 * entry schema takes both from the request's form, an object of names and values). */
function headerNamesShown(schema: JsonObject): JsonObject {
  const properties = schema.properties as Record<string, JsonObject>;
  const examples = (schema.examples as JsonObject[] | undefined)?.map((example) => ({ ...example, headers: Object.keys((example.headers ?? {}) as JsonObject) }));
  return { ...schema, properties: { ...properties, headers: { ...properties.headers, default: [] } }, ...(examples === undefined ? {} : { examples }) };
}

export function webhookTag(context: DocumentContext): JsonObject {
  return { name: TAG, description: webhookTexts(context.language).tag };
}

export function webhookSchemas(context: DocumentContext): [string, JsonObject][] {
  const t = webhookTexts(context.language);
  const secret = { type: 'string', pattern: WEBHOOK_SECRET_PATTERN, readOnly: true, description: t.secret };
  const attempt = object({
    at: { type: 'string', format: 'date-time' },
    duration_ms: { type: 'integer', minimum: 0 },
    status_code: { type: ['integer', 'null'] },
    error: { type: ['string', 'null'] },
    response: { type: 'string', maxLength: 1024, description: t.response },
  });
  const delivery = object({
    id,
    change_id: { type: ['integer', 'null'] },
    type: { type: 'string', description: t.type },
    status: { type: 'string', enum: [...DELIVERY_STATUSES] },
    attempts: { type: 'array', items: ref('WebhookAttempt') },
    next_attempt_at: { type: ['string', 'null'], format: 'date-time' },
  });
  const shown = resourceSchemas(context, WEBHOOKS)
    .filter(([name]) => SHOWN.has(name))
    .map(([name, schema]): [string, JsonObject] => [name, name === 'Webhook' ? headerNamesShown(schema) : schema]);
  const webhook = shown.find(([name]) => name === 'Webhook')![1];
  const unassigned = { type: 'null', description: context.t.unassignedId };
  const noSecret = { type: 'null', description: t.dryRunSecret };
  return [
    ...shown,
    ['WebhookCreated', object({ id, secret, item: ref('Webhook') })],
    // A dry run's answers (contract section 12): no id assigned, no secret made.
    ['WebhookUnassigned', { ...webhook, properties: { ...(webhook.properties as JsonObject), id: unassigned }, ...(webhook.examples === undefined ? {} : { examples: (webhook.examples as JsonObject[]).map((example) => ({ ...example, id: null })) }) }],
    ['WebhookDryRunCreated', object({ id: unassigned, secret: noSecret, item: ref('WebhookUnassigned') })],
    ['WebhookSecret', object({ id, secret })],
    ['WebhookDryRunSecret', object({ id, secret: noSecret })],
    ['WebhookAttempt', attempt],
    ['WebhookDelivery', delivery],
    ['WebhookDeliveryList', object({ items: { type: 'array', items: ref('WebhookDelivery') }, limit: { type: 'integer', minimum: 1, maximum: 100 }, next: { type: ['string', 'null'], description: t.next } })],
  ];
}

export function webhookPaths(context: DocumentContext): [string, JsonObject][] {
  const t = webhookTexts(context.language);
  const common = { tags: [TAG], security: ADMIN_ONLY };
  const item = [parameterRef('Lang'), parameterRef('Id')];
  const noBody = errors(...ALWAYS, ...ACCESS, 'MalformedJson');
  // Every write takes ?dry_run=true (contract section 12); a ping, a sending, does not.
  const dryRun = { 'Dry-Run': headerRef('DryRun') };
  const dryRunParameter = [parameterRef('DryRun')];
  return [
    [
      '/{lang}/api/webhooks',
      {
        parameters: [parameterRef('Lang')],
        get: {
          operationId: 'listWebhooks',
          ...common,
          summary: t.list,
          description: t.listDescription,
          parameters: [...listParameters(context, WEBHOOKS), parameterRef('IfNoneMatchList')],
          responses: {
            '200': { description: context.t.listed, headers: { ETag: headerRef('ETagOfList') }, content: json(ref('WebhookList')) },
            '304': { $ref: '#/components/responses/ListNotModified' },
            ...errors(...ALWAYS, ...ACCESS, 'BadQuery'),
          },
        },
        post: {
          operationId: 'createWebhook',
          ...common,
          summary: t.create,
          description: t.createDescription,
          parameters: dryRunParameter,
          requestBody: { required: true, content: { 'application/json': { schema: ref('WebhookCreate'), example: WEBHOOKS.example } } },
          responses: { '201': { description: t.created, headers: { Location: headerRef('Location'), ETag: headerRef('ETagOfOne'), ...dryRun }, content: json({ anyOf: [ref('WebhookCreated'), ref('WebhookDryRunCreated')] }) }, ...errors(...ALWAYS, ...ACCESS, ...BODY) },
        },
      },
    ],
    [
      '/{lang}/api/webhooks/{id}',
      {
        parameters: item,
        get: {
          operationId: 'getWebhook',
          ...common,
          summary: t.read,
          description: t.readDescription,
          parameters: [parameterRef('IfNoneMatch')],
          responses: {
            '200': { description: context.t.entry, headers: { ETag: headerRef('ETag') }, content: json(ref('WebhookItem')) },
            '304': { $ref: '#/components/responses/NotModified' },
            ...errors(...ALWAYS, ...ACCESS, 'BadQuery'),
          },
        },
        patch: {
          operationId: 'updateWebhook',
          ...common,
          summary: t.update,
          description: t.updateDescription,
          parameters: [parameterRef('IfMatch'), ...dryRunParameter],
          requestBody: { required: true, content: { 'application/json': { schema: ref('WebhookPatch'), example: { enabled: false } } } },
          responses: { '200': { description: t.updated, headers: { ETag: headerRef('ETag'), ...dryRun }, content: json(ref('WebhookUpdated')) }, ...errors(...ALWAYS, ...ACCESS, ...BODY, 'PreconditionFailed') },
        },
        delete: {
          operationId: 'deleteWebhook',
          ...common,
          summary: t.remove,
          description: t.removeDescription,
          parameters: [parameterRef('IfMatch'), ...dryRunParameter],
          responses: { '200': { description: t.removed, headers: dryRun, content: json(ref('Deleted')) }, ...errors(...ALWAYS, ...ACCESS, 'BadQuery', ...STORAGE_ERRORS, 'PreconditionFailed') },
        },
      },
    ],
    [
      '/{lang}/api/webhooks/{id}/rotate-secret',
      {
        parameters: item,
        post: { operationId: 'rotateWebhookSecret', ...common, summary: t.rotate, description: t.rotateDescription, parameters: dryRunParameter, responses: { '200': { description: t.rotated, headers: dryRun, content: json({ anyOf: [ref('WebhookSecret'), ref('WebhookDryRunSecret')] }) }, ...noBody } },
      },
    ],
    [
      '/{lang}/api/webhooks/{id}/ping',
      {
        parameters: item,
        post: { operationId: 'pingWebhook', ...common, summary: t.ping, description: t.pingDescription, responses: { '200': { description: t.pinged, content: json(ref('WebhookDelivery')) }, ...noBody } },
      },
    ],
    [
      '/{lang}/api/webhooks/{id}/deliveries',
      {
        parameters: item,
        get: {
          operationId: 'listWebhookDeliveries',
          ...common,
          summary: t.deliveries,
          description: t.deliveriesDescription,
          parameters: [
            { name: 'status', in: 'query', required: false, description: t.statusParameter, schema: { type: 'string', enum: [...DELIVERY_STATUSES] } },
            { name: 'limit', in: 'query', required: false, description: t.limitParameter, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
            { name: 'after', in: 'query', required: false, description: t.afterParameter, schema: { type: 'string', pattern: '^[0-9]{1,10}$' } },
          ],
          responses: { '200': { description: t.deliveriesListed, content: json(ref('WebhookDeliveryList')) }, ...errors(...ALWAYS, ...ACCESS, 'BadQuery') },
        },
      },
    ],
    [
      '/{lang}/api/webhooks/{id}/deliveries/{delivery_id}/redeliver',
      {
        parameters: [...item, { name: 'delivery_id', in: 'path', required: true, description: t.deliveryId, schema: id, example: 1 }],
        post: { operationId: 'redeliverWebhookDelivery', ...common, summary: t.redeliver, description: t.redeliverDescription, parameters: dryRunParameter, responses: { '202': { description: t.redelivered, headers: dryRun, content: json(ref('WebhookDelivery')) }, ...noBody } },
      },
    ],
  ];
}
