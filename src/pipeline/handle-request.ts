// The whole request of the configuration API, top to bottom, as PostgREST reads: parse the
// HTTP request into an API request, plan it against the registry (plain data, no SQL),
// execute the plan (one transaction for a write), and respond. A driver error that escapes
// the execution is turned into the contract's answer by the route factory, as for every
// endpoint (database-errors.ts).
import type { Registry } from '../registry/registry.js';
import { execute, type ExecutionContext } from './execute.js';
import { parseRequest, type HttpInput } from './parse-request.js';
import { planRequest } from './plan.js';
import type { RequestTarget } from './request-target.js';
import { respond, type Outcome } from './respond.js';

export interface PipelineContext extends ExecutionContext {
  readonly registry: Registry;
}

export async function handleRequest(context: PipelineContext, target: RequestTarget, input: HttpInput): Promise<Outcome> {
  const request = parseRequest(context.registry, target, input);
  const plan = planRequest(context.registry, request);
  return respond(await execute(context, plan));
}

