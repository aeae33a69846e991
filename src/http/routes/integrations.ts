// The monitoring integrations' read endpoints (contract section 17): Prometheus HTTP service
// discovery and the Ansible dynamic inventory, answered by the pipeline
// (src/pipeline/parse-monitoring-request.ts, execute-monitoring.ts, respond-streams.ts, which
// say how the answer is tagged, streamed and bounded).
import type { FastifyInstance } from 'fastify';
import { pipelineRoutes, type PipelineContext } from './endpoint-route.js';

export default async function integrationRoutes(app: FastifyInstance, { context }: { context: PipelineContext }): Promise<void> {
  pipelineRoutes(app, context, [
    ['/:lang/api/sd/prometheus', 'prometheusTargets'],
    ['/:lang/api/inventory/ansible', 'ansibleInventory'],
  ]);
}
