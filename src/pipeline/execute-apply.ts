// Execute step of `POST /{lang}/api/apply` (contract section 18): the document is read against
// the registry and made the stored configuration in one transaction (apply.ts), rolled back
// for a dry run.
import { applyDocument, type ApplyPlan } from './apply.js';
import type { ExecutionContext } from './execute.js';
import type { ApplyDocumentPlan } from './plan.js';

export interface ApplyResult {
  readonly action: 'apply';
  readonly plan: ApplyDocumentPlan;
  /** What was done (or, for a dry run, would be): the answer's body. */
  readonly applied: ApplyPlan;
  /** The configuration's tag after the apply. */
  readonly etag: string;
}

export async function executeApplyPlan(context: ExecutionContext, plan: ApplyDocumentPlan): Promise<ApplyResult> {
  const { plan: applied, etag } = await applyDocument(context, plan);
  return { action: 'apply', plan, applied, etag };
}
