// Plan step: an API request and the registry become a plan, plain data that says what the
// execute step will do (the values to write, the checks to run in the transaction, whether
// to commit) and what the answer will be made of. No SQL, no database: a plan can be built
// and inspected in a unit test. A dry run is a plan whose transaction is rolled back.
import type { Registry, ReferencingField } from '../registry/registry.js';
import type { ResourceDefinition } from '../registry/resource-definition.js';
import type { ListQuery } from '../store/list-query.js';
import type { ApiRequest } from './parse-request.js';
import { validateBody } from './validate-body.js';

/** A reference the body sets, to be checked in the transaction. */
export interface ReferenceCheck {
  readonly field: string;
  /** The resource pointed at. */
  readonly resource: ResourceDefinition;
  readonly id: number;
  readonly mustBeLive: boolean;
}

export interface ListPlan {
  readonly action: 'list';
  readonly resource: ResourceDefinition;
  readonly list: ListQuery;
}

export interface ReadPlan {
  readonly action: 'read';
  readonly resource: ResourceDefinition;
  readonly id: number;
  readonly ifNoneMatch: string | undefined;
}

export interface WritePlan {
  readonly action: 'create' | 'update';
  readonly resource: ResourceDefinition;
  /** The entry to update; undefined for a create. */
  readonly id: number | undefined;
  /** The language segment of the path, for the `Location` of a created entry. */
  readonly lang: string;
  /** The values the body sets, in canonical form, defaults included where the mode restores them. */
  readonly values: Readonly<Record<string, unknown>>;
  /** The fields the body sent (the resource's rule reads them). */
  readonly sent: readonly string[];
  readonly ifMatch: string | undefined;
  readonly references: readonly ReferenceCheck[];
  /** Who makes the change (the change log's actor). */
  readonly actor: string;
  /** Check everything, answer as if done, commit nothing. */
  readonly dryRun: boolean;
}

export interface DeletePlan {
  readonly action: 'delete';
  readonly resource: ResourceDefinition;
  readonly id: number;
  readonly ifMatch: string | undefined;
  readonly mode: 'hard' | 'soft';
  /** A built-in entry (409 DELETE_GUARDED once it is known to exist). */
  readonly guarded: boolean;
  /** The fields of other resources that may still point at the entry (409 REFERENCED). */
  readonly referencedBy: readonly ReferencingField[];
  readonly actor: string;
  readonly dryRun: boolean;
}

export type Plan = ListPlan | ReadPlan | WritePlan | DeletePlan;

function referenceChecks(registry: Registry, resource: ResourceDefinition, values: Readonly<Record<string, unknown>>): ReferenceCheck[] {
  const checks: ReferenceCheck[] = [];
  for (const [field, definition] of Object.entries(resource.fields)) {
    const reference = definition.type.references;
    const id = values[field];
    if (reference === undefined || typeof id !== 'number') continue;
    checks.push({ field, resource: registry.target(reference), id, mustBeLive: reference.mustBeLive });
  }
  return checks;
}

export function planRequest(registry: Registry, request: ApiRequest): Plan {
  const { resource } = request;
  switch (request.action) {
    case 'list':
    case 'read':
      return request;
    case 'create':
    case 'replace':
    case 'patch': {
      const id = request.action === 'create' ? undefined : request.id;
      const { values, sent } = validateBody(resource, request.body, request.action, id);
      return {
        action: id === undefined ? 'create' : 'update',
        resource,
        id,
        lang: request.action === 'create' ? request.lang : '',
        values,
        sent,
        ifMatch: request.action === 'create' ? undefined : request.ifMatch,
        references: referenceChecks(registry, resource, values),
        actor: request.actor,
        dryRun: false,
      };
    }
    case 'delete': {
      const deletion = resource.deletion;
      return {
        action: 'delete',
        resource,
        id: request.id,
        ifMatch: request.ifMatch,
        mode: deletion.mode,
        guarded: deletion.mode === 'hard' && deletion.guarded?.(request.id) === true,
        referencedBy: registry.referencesTo(resource),
        actor: request.actor,
        dryRun: false,
      };
    }
  }
}
