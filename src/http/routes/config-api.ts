// The generic routes of `/{lang}/api/config/{resource}[/{id}[/restore]]`: no code per table. Each
// request is handed to the pipeline (handleRequest in endpoint-route.ts), which reads top to
// bottom: parse, plan, execute, respond.
import type { FastifyInstance } from 'fastify';
import { pipelineRoutes, type PipelineContext } from './endpoint-route.js';

export default async function configApiRoutes(app: FastifyInstance, { context }: { context: PipelineContext }): Promise<void> {
  pipelineRoutes(app, context, [
    ['/:lang/api/config/:resource', 'collection'],
    ['/:lang/api/config/:resource/:id', 'item'],
    ['/:lang/api/config/:resource/:id/restore', 'restore'],
  ]);
}
