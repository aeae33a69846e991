// The webhooks of this process (contract section 16): their store, the SSRF guard, and the
// dispatcher that makes their deliveries, woken after every commit of this process and
// stopped, its attempts under way ended, when the service closes.
import fp from 'fastify-plugin';
import { addressGuard, type AddressGuard } from '../../auth/webhook-address-guard.js';
import type { Config } from '../../config/config.js';
import { WebhookDeliveries } from '../../store/webhook-deliveries.js';
import { WebhookDeliveryRecords } from '../../store/webhook-delivery-records.js';
import { WebhookStore } from '../../store/webhook-store.js';
import { WebhookDispatcher } from '../webhook-dispatcher.js';

declare module 'fastify' {
  interface FastifyInstance {
    webhookStore: WebhookStore;
    /** What the API and the metrics read of the deliveries (the dispatcher's queue is its own). */
    webhookDeliveryRecords: WebhookDeliveryRecords;
    webhookDispatcher: WebhookDispatcher;
    webhookGuard: AddressGuard;
  }
}

export default fp<{ config: Config; expireHeldEveryMs?: number }>(
  async (app, { config, expireHeldEveryMs }) => {
    const store = new WebhookStore(app.database, app.store, app.secretBox);
    const deliveries = new WebhookDeliveries(app.database, new Set(app.registry.resources.map((resource) => resource.name)));
    const guard = addressGuard(config.webhookAllowedNetworks);
    const dispatcher = new WebhookDispatcher(store, deliveries, guard, config, app.log, { onEventLoop: app.database.capabilities.runsOnEventLoop, expireHeldEveryMs });
    app.decorate('webhookStore', store);
    app.decorate('webhookDeliveryRecords', new WebhookDeliveryRecords(app.database));
    app.decorate('webhookGuard', guard);
    app.decorate('webhookDispatcher', dispatcher);
    // A read-only instance stores nothing: it makes no delivery either.
    if (!config.readOnly) {
      app.store.onChangesCommitted(() => dispatcher.changesCommitted());
      app.addHook('onReady', async () => dispatcher.start());
    }
    app.addHook('onClose', async () => dispatcher.stop());
  },
  { name: 'webhooks', dependencies: ['database', 'secret-box'] },
);
