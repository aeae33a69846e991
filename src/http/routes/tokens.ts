// The token endpoints (contract section 14), for admin tokens only (`config.admin`, which the
// authorization hook reads): POST creates a token and shows its secret once, GET lists and
// reads tokens without it, DELETE revokes one, at once in this process and within about a
// second in every other instance on the database (src/store/token-sync.ts). Creations and
// revocations are in the change log (resource `tokens`), under the admin token's name. The
// pipeline answers them (src/pipeline/execute-tokens.ts).
import type { FastifyInstance } from 'fastify';
import { pipelineRoutes, type PipelineContext } from './endpoint-route.js';

export default async function tokenRoutes(app: FastifyInstance, { context }: { context: PipelineContext }): Promise<void> {
  pipelineRoutes(app, context, [
    ['/:lang/api/tokens', 'tokens'],
    ['/:lang/api/tokens/:id', 'token'],
  ], { admin: true });
}
