// Execute step of the webhook endpoints (contract section 16). Writes go through the webhook
// store (a change record of resource `webhooks`, in the registry-driven store's transaction);
// the deliveries are made by the dispatcher (src/http/webhook-dispatcher.ts), woken here
// after a commit that gives it work. A dry run wakes nothing and shows no secret.
import type { AddressGuard } from '../auth/webhook-address-guard.js';
import { apiError, entryNotFound } from '../errors/api-error.js';
import { newWebhookSecret } from '../secrets/webhook-signature.js';
import type { Entry } from '../store/entry-rows.js';
import type { ListPage } from '../store/resource-store.js';
import { UniqueConflict } from '../store/unique-rules.js';
import type { Delivery, WebhookDeliveryRecords } from '../store/webhook-delivery-records.js';
import { WEBHOOKS } from '../store/webhook-definition.js';
import type { WebhookStore } from '../store/webhook-store.js';
import type { WebhookPlan } from './plan-webhooks.js';

/** What the webhook endpoints need: their store, the deliveries, the dispatcher that makes
 * them (the HTTP layer's, seen through what is asked of it) and the SSRF guard. */
export interface WebhookContext {
  readonly store: WebhookStore;
  readonly deliveries: WebhookDeliveryRecords;
  readonly dispatcher: {
    /** There is work: look for it now. */
    wake(): void;
    /** One delivery of type `webhook.ping`, attempted and recorded at once: its id; undefined
     * if no such webhook. */
    ping(webhookId: number): Promise<number | undefined>;
  };
  readonly guard: AddressGuard;
}

type PlanOf<A extends WebhookPlan['action']> = Extract<WebhookPlan, { readonly action: A }>;

export type WebhookResult =
  | { readonly action: 'list-webhooks'; readonly plan: PlanOf<'list-webhooks'>; readonly page: ListPage }
  | { readonly action: 'read-webhook'; readonly plan: PlanOf<'read-webhook'>; readonly entry: Entry }
  | { readonly action: 'webhook-deliveries'; readonly plan: PlanOf<'webhook-deliveries'>; readonly deliveries: readonly Delivery[] }
  | { readonly action: 'create-webhook'; readonly plan: PlanOf<'create-webhook'>; readonly entry: Entry; readonly secret: string }
  | { readonly action: 'patch-webhook'; readonly plan: PlanOf<'patch-webhook'>; readonly entry: Entry }
  | { readonly action: 'delete-webhook'; readonly plan: PlanOf<'delete-webhook'> }
  | { readonly action: 'rotate-webhook-secret'; readonly plan: PlanOf<'rotate-webhook-secret'>; readonly secret: string }
  | { readonly action: 'ping-webhook'; readonly plan: PlanOf<'ping-webhook'>; readonly delivery: Delivery }
  | { readonly action: 'redeliver-webhook'; readonly plan: PlanOf<'redeliver-webhook'>; readonly delivery: Delivery };

const notFound = (id: number) => entryNotFound(WEBHOOKS.name, id);

/** 400 when the URL's host resolves to an address webhooks may not reach. */
async function refuseUnsafeUrl(guard: AddressGuard, url: string): Promise<void> {
  const resolved = await guard.resolve(new URL(url).hostname);
  if ('unresolved' in resolved) throw apiError('URL_REFUSED', 'webhook.urlUnresolved');
  if ('refused' in resolved) throw apiError('URL_REFUSED', 'webhook.urlRefused', { address: resolved.refused });
}

export async function executeWebhookPlan(context: WebhookContext, plan: WebhookPlan): Promise<WebhookResult> {
  try {
    return await run(context, plan);
  } catch (error) {
    // A unique rule of the webhooks is the store's own refusal, said as any entry's; driver
    // errors are mapped where every endpoint's are (database-errors.ts).
    throw error instanceof UniqueConflict ? error.problem() : error;
  }
}

async function run(context: WebhookContext, plan: WebhookPlan): Promise<WebhookResult> {
  const { store, deliveries, dispatcher } = context;
  switch (plan.action) {
    case 'list-webhooks':
      return { action: plan.action, plan, page: await store.entries.list(WEBHOOKS, plan.list) };
    case 'read-webhook': {
      const entry = await store.entries.read(WEBHOOKS, plan.id);
      if (entry === undefined) throw notFound(plan.id);
      return { action: plan.action, plan, entry };
    }
    case 'webhook-deliveries': {
      if ((await store.entries.read(WEBHOOKS, plan.id)) === undefined) throw notFound(plan.id);
      // One more than asked tells whether there is a next page.
      return { action: plan.action, plan, deliveries: await deliveries.list(plan.id, plan.status, plan.after, plan.limit + 1) };
    }
    case 'create-webhook': {
      await refuseUnsafeUrl(context.guard, plan.values.url as string);
      const secret = newWebhookSecret();
      const entry = await store.create(plan.values, secret, plan.author, plan.dryRun);
      if (!plan.dryRun) dispatcher.wake();
      return { action: plan.action, plan, entry, secret };
    }
    case 'rotate-webhook-secret': {
      const secret = newWebhookSecret();
      if (!(await store.rotate(plan.id, secret, plan.author, plan.dryRun))) throw notFound(plan.id);
      return { action: plan.action, plan, secret };
    }
    case 'ping-webhook': {
      const id = await dispatcher.ping(plan.id);
      const delivery = id === undefined ? undefined : await deliveries.read(plan.id, id);
      if (delivery === undefined) throw notFound(plan.id);
      return { action: plan.action, plan, delivery };
    }
    case 'redeliver-webhook': {
      const delivery = await deliveries.redeliver(plan.id, plan.deliveryId, plan.dryRun);
      if (delivery === undefined) throw apiError('NOT_FOUND', 'webhook.deliveryNotFound', { id: plan.deliveryId, webhook: plan.id });
      if (!plan.dryRun) dispatcher.wake();
      return { action: plan.action, plan, delivery };
    }
    case 'delete-webhook':
      if (!(await store.remove(plan.id, plan.author, plan.ifMatch, plan.dryRun))) throw notFound(plan.id);
      return { action: plan.action, plan };
    case 'patch-webhook': {
      if (plan.values.url !== undefined) await refuseUnsafeUrl(context.guard, plan.values.url as string);
      const entry = await store.update(plan.id, plan.values, plan.author, plan.ifMatch, plan.dryRun);
      if (entry === undefined) throw notFound(plan.id);
      if (!plan.dryRun) dispatcher.wake();
      return { action: plan.action, plan, entry };
    }
  }
}
