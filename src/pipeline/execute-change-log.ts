// Execute step of the change log's reads (contract section 13): a page of `/changes`, oldest
// first, and one entry's history, newest first, which still answers after the entry is gone
// for good. Record texts are made by the change log (src/store/change-log.ts).
import { entryNotFound } from '../errors/api-error.js';
import type { ChangeRecord } from '../store/change-log.js';
import type { ResourceStore } from '../store/resource-store.js';
import type { ChangeLogPlan } from './plan.js';

export type ChangeLogResult =
  | { readonly action: 'changes'; readonly plan: Extract<ChangeLogPlan, { action: 'changes' }>; readonly records: readonly ChangeRecord[] }
  | { readonly action: 'history'; readonly plan: Extract<ChangeLogPlan, { action: 'history' }>; readonly records: readonly ChangeRecord[]; readonly total: number };

export async function executeChangeLogPlan(store: ResourceStore, plan: ChangeLogPlan): Promise<ChangeLogResult> {
  const log = store.changeLog;
  if (plan.action === 'changes') {
    const { since, filter, limit } = plan.query;
    return { action: 'changes', plan, records: await log.after(since, filter, limit) };
  }
  const { resource, id, limit, offset } = plan;
  const { records, total } = await log.history(resource, id, limit, offset);
  // No record: the entry may still be there (a built-in row, or one made before the log).
  if (total === 0 && (await store.read(resource, id)) === undefined) throw entryNotFound(resource.name, id);
  return { action: 'history', plan, records, total };
}
