// The webhook endpoints (contract section 16), for admin tokens only: create (the signing
// secret shown once), list, read, PATCH, DELETE, rotate-secret, ping, one webhook's
// deliveries (newest first, by status, with a cursor) and redeliver. The pipeline answers
// them (src/pipeline/parse-webhook-request.ts, plan-webhooks.ts, execute-webhooks.ts,
// respond-webhooks.ts); the deliveries are made by the dispatcher (webhook-dispatcher.ts).
import type { FastifyInstance } from 'fastify';
import { pipelineRoutes, type PipelineContext } from './endpoint-route.js';

export default async function webhookRoutes(app: FastifyInstance, { context }: { context: PipelineContext }): Promise<void> {
  pipelineRoutes(app, context, [
    ['/:lang/api/webhooks', 'webhooks'],
    ['/:lang/api/webhooks/:id', 'webhook'],
    ['/:lang/api/webhooks/:id/rotate-secret', 'webhookRotate'],
    ['/:lang/api/webhooks/:id/ping', 'webhookPing'],
    ['/:lang/api/webhooks/:id/deliveries', 'webhookDeliveries'],
    ['/:lang/api/webhooks/:id/deliveries/:delivery_id/redeliver', 'webhookRedeliver'],
  ], { admin: true });
}
