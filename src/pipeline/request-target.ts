// Parse step, first part: what a request path names. Runs before the body is read, so that
// an unknown language, resource or id is a 404 and a wrong method a 405, whatever the body
// holds.
import { apiError, entryNotFound, methodNotAllowed } from '../errors/api-error.js';
import { isPlatformLanguage, messageLanguage, type MessageLanguage } from '../messages/languages.js';
import type { CompiledResource } from '../registry/compiled-resource.js';
import { MAX_ID } from '../registry/field-types.js';
import type { Registry } from '../registry/registry.js';

/** The endpoints the service answers under a language: a resource's collection and items,
 * a soft-deleted entry's restore, an entry's history, the change log and its stream, the API
 * tokens and one token, the document and its page, the monitoring integrations' targets
 * (Prometheus service discovery, the Ansible inventory), the operator console's page and files,
 * and the configuration document (contract section 18): its export and its apply. */
export type Endpoint = 'collection' | 'item' | 'restore' | 'history' | 'changes' | 'changeStream' | 'tokens' | 'token' | 'webhooks' | 'webhook' | 'webhookRotate' | 'webhookPing' | 'webhookDeliveries' | 'webhookRedeliver' | 'openapi' | 'docs' | 'prometheusTargets' | 'ansibleInventory' | 'console' | 'configurationExport' | 'apply';

export const ALLOWED_METHODS: Readonly<Record<Endpoint, readonly string[]>> = {
  // PATCH and DELETE of a collection are bulk writes (contract section 12).
  collection: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
  item: ['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
  restore: ['POST', 'OPTIONS'],
  history: ['GET', 'HEAD', 'OPTIONS'],
  changes: ['GET', 'HEAD', 'OPTIONS'],
  changeStream: ['GET', 'OPTIONS'],
  tokens: ['GET', 'HEAD', 'POST', 'OPTIONS'],
  token: ['GET', 'HEAD', 'DELETE', 'OPTIONS'],
  webhooks: ['GET', 'HEAD', 'POST', 'OPTIONS'],
  webhook: ['GET', 'HEAD', 'PATCH', 'DELETE', 'OPTIONS'],
  webhookRotate: ['POST', 'OPTIONS'],
  webhookPing: ['POST', 'OPTIONS'],
  webhookDeliveries: ['GET', 'HEAD', 'OPTIONS'],
  webhookRedeliver: ['POST', 'OPTIONS'],
  openapi: ['GET', 'HEAD', 'OPTIONS'],
  docs: ['GET', 'HEAD', 'OPTIONS'],
  prometheusTargets: ['GET', 'HEAD', 'OPTIONS'],
  ansibleInventory: ['GET', 'HEAD', 'OPTIONS'],
  console: ['GET', 'HEAD', 'OPTIONS'],
  configurationExport: ['GET', 'HEAD', 'OPTIONS'],
  apply: ['POST', 'OPTIONS'],
};

/** Endpoints whose writes carry a JSON body (restore takes none). */
export const TAKES_BODY: Readonly<Record<Endpoint, boolean>> = { collection: true, item: true, restore: false, history: false, changes: false, changeStream: false, tokens: true, token: false, webhooks: true, webhook: true, webhookRotate: false, webhookPing: false, webhookDeliveries: false, webhookRedeliver: false, openapi: false, docs: false, prometheusTargets: false, ansibleInventory: false, console: false, configurationExport: false, apply: true };

export interface RequestTarget {
  endpoint: Endpoint;
  /** The `{lang}` segment as sent, e.g. `zh-cn`. */
  lang: string;
  language: MessageLanguage;
  resource?: CompiledResource;
  id?: number;
  /** A webhook delivery's id (`/webhooks/{id}/deliveries/{delivery_id}/redeliver`). */
  deliveryId?: number;
}

/** The id a path segment names, if it is one an entry can have (contract section 2). */
export function parseId(segment: string): number | undefined {
  if (!/^[1-9][0-9]{0,9}$/.test(segment)) return undefined;
  const id = Number(segment);
  return id <= MAX_ID ? id : undefined;
}

const WEBHOOK_ITEMS: ReadonlySet<Endpoint> = new Set(['webhook', 'webhookRotate', 'webhookPing', 'webhookDeliveries', 'webhookRedeliver']);

export function resolveTarget(registry: Registry, endpoint: Endpoint, params: Record<string, string | undefined>, method: string): RequestTarget {
  const lang = params.lang ?? '';
  if (!isPlatformLanguage(lang)) throw apiError('NOT_FOUND', 'path.unknown');
  const target: RequestTarget = { endpoint, lang, language: messageLanguage(lang) };
  if (endpoint === 'collection' || endpoint === 'item' || endpoint === 'restore' || endpoint === 'history') {
    const name = params.resource ?? '';
    target.resource = registry.find(name);
    if (target.resource === undefined) throw apiError('NOT_FOUND', 'resource.unknown', { resource: name });
    // Only what is deleted softly can be brought back.
    if (endpoint === 'restore' && target.resource.deletion.mode !== 'soft') throw apiError('NOT_FOUND', 'path.unknown');
  }
  if (endpoint === 'item' || endpoint === 'restore' || endpoint === 'history' || endpoint === 'token' || WEBHOOK_ITEMS.has(endpoint)) {
    target.id = parseId(params.id ?? '');
    const resource = endpoint === 'token' ? 'tokens' : WEBHOOK_ITEMS.has(endpoint) ? 'webhooks' : (target.resource?.name ?? '');
    if (target.id === undefined) throw entryNotFound(resource, params.id ?? '');
  }
  if (endpoint === 'webhookRedeliver') {
    target.deliveryId = parseId(params.delivery_id ?? '');
    if (target.deliveryId === undefined) throw apiError('NOT_FOUND', 'webhook.deliveryNotFound', { id: params.delivery_id ?? '', webhook: target.id! });
  }
  const allowed = ALLOWED_METHODS[endpoint];
  if (!allowed.includes(method)) throw methodNotAllowed(method, allowed);
  return target;
}
