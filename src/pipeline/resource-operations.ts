// Plan and execute steps of the pipeline: one implementation of each operation for every
// resource. A write is checked (rule, references, uniqueness) and applied inside one
// transaction, so that a refused request changes nothing.
import { ApiError, apiError, fieldProblem, validationFailed, type FieldProblem } from '../http/api-error.js';
import { entityTag, ifMatchHolds, ifNoneMatchHolds } from '../http/entity-tag.js';
import { message } from '../http/messages.js';
import type { Entry, Executor, ResourceStore } from '../db/resource-store.js';
import type { ResourceDefinition } from '../registry/resource-definition.js';
import { findResource, referencesTo } from '../registry/resources.js';
import { parseListQuery } from './list-query.js';
import type { RequestTarget } from './request-target.js';
import { validateBody, type WriteMode } from './validate-body.js';

export interface Outcome {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** Conditional request headers (contract section 8). */
export interface Preconditions {
  ifMatch?: string | undefined;
  ifNoneMatch?: string | undefined;
}

function refuseIfChanged(preconditions: Preconditions, current: Entry): void {
  if (preconditions.ifMatch !== undefined && !ifMatchHolds(preconditions.ifMatch, entityTag(current))) {
    throw apiError('PRECONDITION_FAILED', 'precondition.failed');
  }
}

/** How many referencing entries a 409 REFERENCED names at most. */
const REFERENCES_NAMED = 20;

function notFound(resource: ResourceDefinition, id: number): ApiError {
  return apiError('NOT_FOUND', 'entry.notFound', { id, resource: resource.name });
}

function now(): string {
  return new Date().toISOString();
}

export class ResourceOperations {
  constructor(private readonly store: ResourceStore) {}

  async list(target: RequestTarget, query: Record<string, unknown>): Promise<Outcome> {
    const resource = target.resource!;
    const list = parseListQuery(resource, query);
    const { items, total } = await this.store.list(this.store.db, resource, list);
    return { status: 200, body: { items, total, limit: list.limit, offset: list.offset } };
  }

  async read(target: RequestTarget, preconditions: Preconditions = {}): Promise<Outcome> {
    const resource = target.resource!;
    const entry = await this.store.findById(this.store.db, resource, target.id!);
    if (entry === undefined) throw notFound(resource, target.id!);
    const etag = entityTag(entry);
    if (preconditions.ifNoneMatch !== undefined && !ifNoneMatchHolds(preconditions.ifNoneMatch, etag)) {
      return { status: 304, headers: { etag }, body: undefined };
    }
    return { status: 200, headers: { etag }, body: { item: entry } };
  }

  async write(target: RequestTarget, mode: WriteMode, body: unknown, preconditions: Preconditions = {}): Promise<Outcome> {
    const resource = target.resource!;
    const values = validateBody(resource, body, mode, target.id);
    const sent = new Set(Object.keys(body as object).filter((name) => name in values));

    const entry = await this.store.transaction(async (tx) => {
      const existing = mode === 'create' ? undefined : await this.store.findById(tx, resource, target.id!, true);
      if (mode !== 'create' && existing === undefined) throw notFound(resource, target.id!);
      if (existing !== undefined) refuseIfChanged(preconditions, existing);
      const candidate: Record<string, unknown> = { ...existing, ...values };

      const problems = await this.checkEntry(tx, resource, candidate, sent, existing?.id);
      problems.push(...(await this.checkReferences(tx, resource, values)));
      if (problems.length > 0) throw validationFailed(problems);
      await this.checkUnique(tx, resource, candidate, existing);

      const row = this.writableValues(resource, candidate, values, mode);
      const id = existing?.id ?? (await this.store.insert(tx, resource, row, now()));
      if (existing !== undefined) await this.store.update(tx, resource, id, row, now());
      return (await this.store.findById(tx, resource, id)) as Entry;
    });

    const etag = entityTag(entry);
    if (mode === 'create') {
      return {
        status: 201,
        headers: { location: `/${target.lang}/api/config/${resource.name}/${entry.id}`, etag },
        body: { id: entry.id, resource: resource.name, item: entry },
      };
    }
    return { status: 200, headers: { etag }, body: { id: entry.id, resource: resource.name, updated: true, item: entry } };
  }

  async remove(target: RequestTarget, preconditions: Preconditions = {}): Promise<Outcome> {
    const resource = target.resource!;
    const id = target.id!;
    const deletion = resource.deletion;
    await this.store.transaction(async (tx) => {
      const existing = await this.store.findById(tx, resource, id, true);
      if (existing === undefined) throw notFound(resource, id);
      refuseIfChanged(preconditions, existing);
      if (deletion.mode === 'hard' && deletion.guarded?.(id)) {
        throw apiError('DELETE_GUARDED', 'delete.guarded', { resource: resource.name, id });
      }
      if (deletion.mode === 'soft' && existing[deletion.flagField] === 1) return; // already deleted: nothing to do
      await this.refuseIfReferenced(tx, resource, id);
      if (deletion.mode === 'soft') await this.store.softDelete(tx, resource, id, now());
      else await this.store.remove(tx, resource, id);
    });
    return { status: 200, body: { id, deleted: true, mode: deletion.mode } };
  }

  private async checkEntry(
    tx: Executor,
    resource: ResourceDefinition,
    candidate: Record<string, unknown>,
    sent: ReadonlySet<string>,
    id: number | undefined,
  ): Promise<FieldProblem[]> {
    if (resource.rule === undefined) return [];
    return resource.rule(candidate, {
      sent,
      storedSecret: (field) => (id === undefined ? Promise.resolve(undefined) : this.store.storedSecret(tx, resource, id, field)),
    });
  }

  private async checkReferences(tx: Executor, resource: ResourceDefinition, values: Record<string, unknown>): Promise<FieldProblem[]> {
    const problems: FieldProblem[] = [];
    for (const [name, field] of Object.entries(resource.fields)) {
      const target = field.references === undefined ? undefined : findResource(field.references.resource);
      const id = values[name];
      if (target === undefined || typeof id !== 'number') continue;
      const state = await this.store.referenceState(tx, target, id);
      if (state === 'missing') problems.push(fieldProblem(name, 'field.referenceMissing', { resource: target.name, id }));
      else if (state === 'deleted' && field.references?.mustBeLive) {
        problems.push(fieldProblem(name, 'field.referenceDeleted', { resource: target.name, id }));
      }
    }
    return problems;
  }

  private async checkUnique(
    tx: Executor,
    resource: ResourceDefinition,
    candidate: Record<string, unknown>,
    existing: Entry | undefined,
  ): Promise<void> {
    const deleted = resource.deletion.mode === 'soft' && candidate[resource.deletion.flagField] === 1;
    const problems: FieldProblem[] = [];
    for (const rule of resource.unique) {
      if (rule.amongLive && deleted) continue;
      const unchanged = existing !== undefined && rule.fields.every((name) => existing[name] === candidate[name]);
      if (unchanged) continue;
      if (await this.store.isTaken(tx, resource, rule, candidate, existing?.id)) {
        problems.push(...rule.fields.map((name) => fieldProblem(name, 'conflict.unique')));
      }
    }
    if (problems.length > 0) throw new ApiError('CONFLICT', message('conflict.summary'), problems);
  }

  /** What to store: every field of the entry, but a kept secret is not rewritten and
   * server-managed fields are set only when the entry is created. */
  private writableValues(
    resource: ResourceDefinition,
    candidate: Record<string, unknown>,
    values: Record<string, unknown>,
    mode: WriteMode,
  ): Record<string, unknown> {
    const row: Record<string, unknown> = {};
    for (const [name, field] of Object.entries(resource.fields)) {
      if (field.writeOnly && !(name in values)) continue;
      if (field.readOnly && mode !== 'create') continue;
      if (name in candidate) row[name] = candidate[name];
    }
    return row;
  }

  private async refuseIfReferenced(tx: Executor, resource: ResourceDefinition, id: number): Promise<void> {
    const users: { resource: string; ids: number[] }[] = [];
    for (const reference of referencesTo(resource)) {
      const ids = await this.store.idsReferencing(tx, reference.resource, reference.field, id, REFERENCES_NAMED);
      if (ids.length > 0) users.push({ resource: reference.resource.name, ids });
    }
    if (users.length === 0) return;
    const named = users.map((user) => `${user.resource} ${user.ids.join(', ')}`).join('; ');
    throw new ApiError('REFERENCED', message('delete.referenced', { resource: resource.name, id, users: named }), [], {}, {
      referenced_by: users,
    });
  }
}
