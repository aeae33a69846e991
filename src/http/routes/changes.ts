// The change log's read endpoints (contract section 13): `/changes`, the records after
// `since`, oldest first, and `/config/{resource}/{id}/history`, one entry's records, newest
// first, which still answers after the entry is gone for good, both answered by the pipeline
// (src/pipeline/execute-change-log.ts); and the change stream.
import type { FastifyInstance } from 'fastify';
import changeStreamRoute, { type ChangeStreamSettings } from './change-stream.js';
import { pipelineRoutes, type PipelineContext } from './endpoint-route.js';

export default async function changeRoutes(app: FastifyInstance, { context, ...stream }: ChangeStreamSettings & { context: PipelineContext }): Promise<void> {
  pipelineRoutes(app, context, [
    ['/:lang/api/changes', 'changes'],
    ['/:lang/api/config/:resource/:id/history', 'history'],
  ]);
  await changeStreamRoute(app, stream);
}
