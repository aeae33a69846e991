// Execute step: runs a plan through the store. A write runs in one transaction: the entry is
// read under a lock, the preconditions and every check of the plan run, then the write; any
// refusal throws and the transaction changes nothing. A dry run does all of it and rolls back.
import { ApiError, apiError, fieldProblem, validationFailed, type FieldProblem } from '../errors/api-error.js';
import { message } from '../messages/messages.js';
import type { ResourceDefinition } from '../registry/resource-definition.js';
import type { Entry } from '../store/entry-rows.js';
import type { ResourceStore } from '../store/resource-store.js';
import { UniqueConflict, type StoreTransaction } from '../store/store-transaction.js';
import { entityTag, ifMatchHolds } from './entity-tag.js';
import type { EntryCache } from './entry-cache.js';
import type { DeletePlan, ListPlan, Plan, ReadPlan, WritePlan } from './plan.js';
import { shownEntry, type ShownEntry } from './shown-entry.js';

export interface ExecutionContext {
  readonly store: ResourceStore;
  /** Entries as GET by id sends them; undefined where the backend cannot keep one coherent. */
  readonly cache: EntryCache | undefined;
}

/** What a plan's execution gave, with the plan: all the respond step needs. */
export type Result =
  | { readonly action: 'list'; readonly plan: ListPlan; readonly items: Entry[]; readonly total: number }
  | { readonly action: 'read'; readonly plan: ReadPlan; readonly shown: ShownEntry }
  | { readonly action: 'create' | 'update'; readonly plan: WritePlan; readonly entry: Entry }
  | { readonly action: 'delete'; readonly plan: DeletePlan };

/** How many referencing entries a 409 REFERENCED names at most. */
const REFERENCES_NAMED = 20;

/** Carries the result of a dry run out of the transaction it rolls back. */
class DryRunRollback<T> extends Error {
  constructor(readonly result: T) {
    super('dry run');
  }
}

function notFound(resource: ResourceDefinition, id: number): ApiError {
  return apiError('NOT_FOUND', 'entry.notFound', { id, resource: resource.name });
}

function refuseIfChanged(ifMatch: string | undefined, current: Entry): void {
  if (ifMatch !== undefined && !ifMatchHolds(ifMatch, entityTag(current))) throw apiError('PRECONDITION_FAILED', 'precondition.failed');
}

function now(): string {
  return new Date().toISOString();
}

export async function execute(context: ExecutionContext, plan: Plan): Promise<Result> {
  switch (plan.action) {
    case 'list':
      return { action: 'list', plan, ...(await context.store.list(plan.resource, plan.list)) };
    case 'read':
      return { action: 'read', plan, shown: context.cache?.get(plan.resource.table, plan.id) ?? (await readEntry(context, plan.resource, plan.id)) };
    case 'create':
    case 'update':
      return { action: plan.action, plan, entry: await changing(context, plan, (tx) => write(tx, plan)) };
    case 'delete':
      await changing(context, plan, (tx) => remove(tx, plan));
      return { action: 'delete', plan };
  }
}

async function readEntry(context: ExecutionContext, resource: ResourceDefinition, id: number): Promise<ShownEntry> {
  const ticket = context.cache?.ticket();
  const entry = await context.store.read(resource, id);
  if (entry === undefined) throw notFound(resource, id);
  const shown = shownEntry(entry);
  if (ticket !== undefined) context.cache?.fill(resource.table, id, shown, ticket);
  return shown;
}

/** Runs a write plan's transaction, rolled back for a dry run, with the cached copy of the
 * entry it changes out of the way before and after (see EntryCache). */
async function changing<T>(context: ExecutionContext, plan: WritePlan | DeletePlan, work: (tx: StoreTransaction) => Promise<T>): Promise<T> {
  const { cache, store } = context;
  const id = plan.id;
  if (id !== undefined) cache?.invalidate(plan.resource.table, id);
  try {
    return await store.transaction(async (tx) => {
      const result = await work(tx);
      if (plan.dryRun) throw new DryRunRollback(result);
      return result;
    });
  } catch (error) {
    if (error instanceof DryRunRollback) return error.result as T;
    throw error;
  } finally {
    if (id !== undefined) cache?.invalidate(plan.resource.table, id);
  }
}

async function write(tx: StoreTransaction, plan: WritePlan): Promise<Entry> {
  const { resource } = plan;
  const existing = plan.id === undefined ? undefined : await tx.lockForWrite(resource, plan.id);
  if (plan.id !== undefined && existing === undefined) throw notFound(resource, plan.id);
  if (existing !== undefined) refuseIfChanged(plan.ifMatch, existing);
  const candidate: Record<string, unknown> = { ...existing, ...plan.values };

  const problems = await checkRule(tx, plan, candidate);
  problems.push(...(await checkReferences(tx, plan)));
  if (problems.length > 0) throw validationFailed(problems);

  const values = storedValues(plan, candidate);
  try {
    return existing === undefined ? await tx.insert(resource, values, now()) : await tx.update(resource, existing, values, now());
  } catch (error) {
    throw error instanceof UniqueConflict ? error.problem() : error;
  }
}

/** The resource's own rule, on the entry as it would be stored (it may set fields in it). */
async function checkRule(tx: StoreTransaction, plan: WritePlan, candidate: Record<string, unknown>): Promise<FieldProblem[]> {
  const { resource, id } = plan;
  if (resource.rule === undefined) return [];
  return resource.rule(candidate, {
    sent: new Set(plan.sent),
    storedSecret: (field) => (id === undefined ? Promise.resolve(undefined) : tx.storedSecret(resource, id, field)),
  });
}

async function checkReferences(tx: StoreTransaction, plan: WritePlan): Promise<FieldProblem[]> {
  const problems: FieldProblem[] = [];
  for (const check of plan.references) {
    const state = await tx.referenceState(check.resource, check.id);
    const params = { resource: check.resource.name, id: check.id };
    if (state === 'missing') problems.push(fieldProblem(check.field, 'field.referenceMissing', params));
    else if (state === 'deleted' && check.mustBeLive) problems.push(fieldProblem(check.field, 'field.referenceDeleted', params));
  }
  return problems;
}

/** What to store: every field of the entry, but a kept secret is not rewritten and
 * server-managed fields are set only when the entry is created. */
function storedValues(plan: WritePlan, candidate: Record<string, unknown>): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(plan.resource.fields)) {
    if (field.writeOnly && !(name in plan.values)) continue;
    if (field.readOnly && plan.action !== 'create') continue;
    if (name in candidate) values[name] = candidate[name];
  }
  return values;
}

async function remove(tx: StoreTransaction, plan: DeletePlan): Promise<void> {
  const { resource, id } = plan;
  const existing = await tx.lockForWrite(resource, id);
  if (existing === undefined) throw notFound(resource, id);
  refuseIfChanged(plan.ifMatch, existing);
  if (plan.guarded) throw apiError('DELETE_GUARDED', 'delete.guarded', { resource: resource.name, id });
  const deletion = resource.deletion;
  if (deletion.mode === 'soft' && existing[deletion.flagField] === 1) return; // already deleted: nothing to do
  await refuseIfReferenced(tx, plan);
  if (deletion.mode === 'soft') await tx.softDelete(resource, id, now());
  else await tx.remove(resource, id);
}

async function refuseIfReferenced(tx: StoreTransaction, plan: DeletePlan): Promise<void> {
  const users: { resource: string; ids: number[] }[] = [];
  for (const reference of plan.referencedBy) {
    const ids = await tx.idsReferencing(reference.resource, reference.field, plan.id, REFERENCES_NAMED);
    if (ids.length > 0) users.push({ resource: reference.resource.name, ids });
  }
  if (users.length === 0) return;
  const named = users.map((user) => `${user.resource} ${user.ids.join(', ')}`).join('; ');
  throw new ApiError('REFERENCED', message('delete.referenced', { resource: plan.resource.name, id: plan.id, users: named }), [], {}, {
    referenced_by: users,
  });
}
