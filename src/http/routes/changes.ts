// The change log's read endpoints (contract section 13): `/changes`, the records after
// `since`, oldest first; `/config/{resource}/{id}/history`, one entry's records, newest
// first, which still answers after the entry is gone for good (both executed in
// src/pipeline/execute-change-log.ts); and the change stream, whose connection the pipeline
// hands over to the streams' service (src/pipeline/execute-change-stream.ts,
// src/http/change-streams.ts).
import type { FastifyInstance } from 'fastify';
import { pipelineRoutes, type PipelineContext } from './endpoint-route.js';

export default async function changeRoutes(app: FastifyInstance, { context }: { context: PipelineContext }): Promise<void> {
  pipelineRoutes(app, context, [
    ['/:lang/api/changes', 'changes'],
    ['/:lang/api/config/:resource/:id/history', 'history'],
    ['/:lang/api/changes/stream', 'changeStream'],
  ]);
}
