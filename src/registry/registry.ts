// The set of resources a service serves, checked once when it is made: a resource added with
// a typo (a unique rule or a reference naming a field or resource that does not exist), or
// with a field a request may set of a type only the service writes, stops the start-up with a
// clear message instead of failing on the first request.
import { compileResource, type CompiledResource } from './compiled-resource.js';
import type { Reference } from './field-types.js';
import type { LinkTable, ResourceDefinition } from './resource-definition.js';
import { RESOURCES } from './resources.js';

/** A field of `resource` that holds the id of an entry of another resource. */
export interface ReferencingField {
  readonly resource: CompiledResource;
  readonly field: string;
  /** Set for a field that holds a set of ids: a deleted target is taken out of the set
   * instead of refusing the delete. */
  readonly link?: LinkTable;
}

export class Registry {
  /** Each resource compiled once (compiled-resource.ts), in the order given. */
  readonly resources: readonly CompiledResource[];
  private readonly byName: ReadonlyMap<string, CompiledResource>;
  private readonly pointingAt = new Map<string, ReferencingField[]>();

  constructor(definitions: readonly ResourceDefinition[]) {
    const resources = definitions.map(compileResource);
    this.resources = resources;
    this.byName = new Map(resources.map((resource) => [resource.name, resource]));
    const problems = resources.flatMap((resource) => this.problemsOf(resource));
    if (problems.length === 0) {
      // Only once every reference names a resource: an apply orders its writes by them.
      const cycle = this.cycle();
      if (cycle !== undefined) problems.push(`references make a cycle (${cycle.join(' -> ')}): no order creates them`);
    }
    if (problems.length > 0) throw new Error(`the resource registry is inconsistent: ${problems.join('; ')}`);
    for (const resource of resources) {
      for (const [field, definition] of Object.entries(resource.fields)) {
        const target = definition.type.references?.resource;
        if (target === undefined) continue;
        const referencing: ReferencingField = definition.link === undefined ? { resource, field } : { resource, field, link: definition.link };
        this.pointingAt.set(target, [...(this.pointingAt.get(target) ?? []), referencing]);
      }
    }
  }

  /** The resources that have a natural key, each after every resource it references (so
   * that an apply creates a tag before the servers that carry it, and prunes in the reverse
   * order); ties keep the order of `resources`. The registry refuses a cycle. */
  dependencyOrder(): readonly CompiledResource[] {
    const order: CompiledResource[] = [];
    const visit = (resource: CompiledResource): void => {
      if (order.includes(resource) || resource.naturalKey === undefined) return;
      for (const target of this.targetsOf(resource)) visit(target);
      order.push(resource);
    };
    for (const resource of this.resources) visit(resource);
    return order;
  }

  /** The resources `resource`'s fields point at (itself left out). */
  private targetsOf(resource: CompiledResource): CompiledResource[] {
    const targets = Object.values(resource.fields).flatMap((field) => (field.type.references === undefined ? [] : [this.target(field.type.references)]));
    return targets.filter((target) => target !== resource);
  }

  /** A cycle of references among the resources, as the names along it, if there is one. */
  private cycle(): string[] | undefined {
    const state = new Map<CompiledResource, 'open' | 'done'>();
    const walk = (resource: CompiledResource, path: string[]): string[] | undefined => {
      if (state.get(resource) === 'done') return undefined;
      if (state.get(resource) === 'open') return [...path, resource.name];
      state.set(resource, 'open');
      for (const target of this.targetsOf(resource)) {
        const found = walk(target, [...path, resource.name]);
        if (found !== undefined) return found;
      }
      state.set(resource, 'done');
      return undefined;
    };
    for (const resource of this.resources) {
      const found = walk(resource, []);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  find(name: string): CompiledResource | undefined {
    return this.byName.get(name);
  }

  /** The resource a reference points at (the registry checked that it exists). */
  target(reference: Reference): CompiledResource {
    return this.byName.get(reference.resource)!;
  }

  /** The fields, of any resource, that point at entries of `target` (its delete rule). */
  referencesTo(target: ResourceDefinition): readonly ReferencingField[] {
    return this.pointingAt.get(target.name) ?? [];
  }

  private problemsOf(resource: ResourceDefinition): string[] {
    const problems: string[] = [];
    const has = (name: string): boolean => Object.hasOwn(resource.fields, name);
    if (this.resources.filter((other) => other.name === resource.name || other.table === resource.table).length > 1) {
      problems.push(`${resource.name}: another resource has the same name or table`);
    }
    for (const name of resource.naturalKey ?? []) if (!has(name)) problems.push(`${resource.name}: natural key names no field "${name}"`);
    if (resource.naturalKey?.length === 0) problems.push(`${resource.name}: a natural key needs at least one field`);
    for (const rule of resource.unique) {
      for (const name of rule.fields) if (!has(name)) problems.push(`${resource.name}: unique rule names no field "${name}"`);
    }
    if (resource.deletion.mode === 'soft' && !has(resource.deletion.flagField)) {
      problems.push(`${resource.name}: soft delete names no field "${resource.deletion.flagField}"`);
    }
    for (const [name, field] of Object.entries(resource.fields)) {
      const target = field.type.references?.resource;
      if (target !== undefined && !this.byName.has(target)) problems.push(`${resource.name}.${name} points at no resource "${target}"`);
      if ((field.type.references?.many === true) !== (field.link !== undefined)) problems.push(`${resource.name}.${name}: a set of ids needs a link table, and only it`);
      if (field.type.outputOnly && field.readOnly !== true) {
        problems.push(`${resource.name}.${name}: its type is only ever written by the service; declare the field readOnly, or use a type a request may set (types.dateTime() for a date)`);
      }
      if (field.link?.ownerDeletedColumn !== undefined && resource.deletion.mode !== 'soft') problems.push(`${resource.name}.${name}: only the links of a soft-deleted resource copy its flag`);
    }
    return problems;
  }
}

/** The registry of this service: the contract's resources. */
export const DEFAULT_REGISTRY = new Registry(RESOURCES);
