// Plan and execute steps of the pipeline: one implementation of each operation for every
// resource. A write is checked (rule, references, uniqueness) and applied inside one
// transaction, so that a refused request changes nothing.
import { ApiError, apiError, fieldProblem, validationFailed, type FieldProblem } from '../http/api-error.js';
import { entityTag, entityTagOfJson, ifMatchHolds, ifNoneMatchHolds } from '../http/entity-tag.js';
import { message } from '../http/messages.js';
import { classifyDatabaseError } from '../db/database-errors.js';
import type { Entry, Executor, ResourceStore } from '../db/resource-store.js';
import type { ResourceDefinition } from '../registry/resource-definition.js';
import { findResource, referencesTo } from '../registry/resources.js';
import type { CachedEntry, EntryCache } from './entry-cache.js';
import { parseListQuery } from './list-query.js';
import type { RequestTarget } from './request-target.js';
import { validateBody, type WriteMode } from './validate-body.js';

export interface Outcome {
  status: number;
  /** The body as sent: JSON text unless the headers name another content type. An entry is
   * serialized once, for both its tag and the body. */
  body?: string | Buffer;
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

/** An entry as responses show it: its JSON text, once, and the tag computed over that text. */
function shownEntry(entry: Entry): CachedEntry {
  const json = JSON.stringify(entry);
  return { json, etag: entityTagOfJson(json) };
}

function now(): string {
  return new Date().toISOString();
}

export class ResourceOperations {
  constructor(
    private readonly store: ResourceStore,
    private readonly cache: EntryCache | undefined,
  ) {}

  async list(target: RequestTarget, query: Record<string, unknown>): Promise<Outcome> {
    const resource = target.resource!;
    const list = parseListQuery(resource, query);
    const { items, total } = await this.store.list(this.store.db, resource, list);
    return { status: 200, body: JSON.stringify({ items, total, limit: list.limit, offset: list.offset }) };
  }

  async read(target: RequestTarget, preconditions: Preconditions = {}): Promise<Outcome> {
    const resource = target.resource!;
    const id = target.id!;
    const shown = this.cache?.get(resource.table, id) ?? (await this.readEntry(resource, id));
    const etag = shown.etag;
    if (preconditions.ifNoneMatch !== undefined && !ifNoneMatchHolds(preconditions.ifNoneMatch, etag)) {
      return { status: 304, headers: { etag } };
    }
    return { status: 200, headers: { etag }, body: `{"item":${shown.json}}` };
  }

  private async readEntry(resource: ResourceDefinition, id: number): Promise<CachedEntry> {
    const ticket = this.cache?.ticket();
    const entry = await this.store.findById(this.store.db, resource, id);
    if (entry === undefined) throw notFound(resource, id);
    const shown = shownEntry(entry);
    if (ticket !== undefined) this.cache?.fill(resource.table, id, shown, ticket);
    return shown;
  }

  /** Runs a change of an existing entry with the cached copy out of the way (see EntryCache). */
  private async changing<T>(resource: ResourceDefinition, id: number, change: () => Promise<T>): Promise<T> {
    this.cache?.invalidate(resource.table, id);
    try {
      return await change();
    } finally {
      this.cache?.invalidate(resource.table, id);
    }
  }

  async write(target: RequestTarget, mode: WriteMode, body: unknown, preconditions: Preconditions = {}): Promise<Outcome> {
    const resource = target.resource!;
    const values = validateBody(resource, body, mode, target.id);
    const sent = new Set(Object.keys(body as object).filter((name) => name in values));

    const transaction = () => this.store.transaction(async (tx) => {
      const existing = mode === 'create' ? undefined : await this.store.findById(tx, resource, target.id!, true);
      if (mode !== 'create' && existing === undefined) throw notFound(resource, target.id!);
      if (existing !== undefined) refuseIfChanged(preconditions, existing);
      const candidate: Record<string, unknown> = { ...existing, ...values };

      const problems = await this.checkEntry(tx, resource, candidate, sent, existing?.id);
      problems.push(...(await this.checkReferences(tx, resource, values)));
      if (problems.length > 0) throw validationFailed(problems);

      const row = this.writableValues(resource, candidate, values, mode);
      const apply = (): Promise<Entry> =>
        existing === undefined ? this.store.insert(tx, resource, row, now()) : this.store.update(tx, resource, existing.id, row, now());
      if (!this.store.capabilities.statementRollback) {
        await this.checkUnique(tx, resource, candidate, existing);
        return apply();
      }
      // The unique indexes find a conflict in the write itself; only then are the rules
      // looked at one by one, to name the fields of each rule that conflicts.
      try {
        return await apply();
      } catch (error) {
        if (classifyDatabaseError(error) === 'unique') await this.checkUnique(tx, resource, candidate, existing);
        throw error;
      }
    });
    const entry = mode === 'create' ? await transaction() : await this.changing(resource, target.id!, transaction);

    const { json, etag } = shownEntry(entry);
    const named = `"id":${entry.id},"resource":${JSON.stringify(resource.name)}`;
    if (mode === 'create') {
      return {
        status: 201,
        headers: { location: `/${target.lang}/api/config/${resource.name}/${entry.id}`, etag },
        body: `{${named},"item":${json}}`,
      };
    }
    return { status: 200, headers: { etag }, body: `{${named},"updated":true,"item":${json}}` };
  }

  async remove(target: RequestTarget, preconditions: Preconditions = {}): Promise<Outcome> {
    const resource = target.resource!;
    const id = target.id!;
    const deletion = resource.deletion;
    await this.changing(resource, id, () => this.store.transaction(async (tx) => {
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
    }));
    return { status: 200, body: JSON.stringify({ id, deleted: true, mode: deletion.mode }) };
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
