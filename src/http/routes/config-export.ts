// `GET /{lang}/api/export` (contract section 18): the whole configuration as one document,
// answered by the pipeline (src/pipeline/parse-export-request.ts for the format,
// execute-export.ts for the snapshot, respond-streams.ts for the streamed body).
import type { FastifyInstance } from 'fastify';
import { pipelineRoutes, type PipelineContext } from './endpoint-route.js';

export default async function configExportRoutes(app: FastifyInstance, { context }: { context: PipelineContext }): Promise<void> {
  pipelineRoutes(app, context, [['/:lang/api/export', 'configurationExport']]);
}
