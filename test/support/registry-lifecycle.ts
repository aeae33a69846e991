// What a registry-driven lifecycle needs to know beyond the registry: the order in which
// resources can be created (every reference pointing at one made before), and a valid body
// for each. The body is the registry's example, unless the resource's rule needs material no
// example may show (key material): then a fixture below makes one, and a resource added
// without either says so in the test that drives it.
import type { CompiledResource } from '../../src/registry/compiled-resource.js';
import type { Registry } from '../../src/registry/registry.js';
import { makeKeyPair } from './ssh-keys.js';

/** Bodies for resources whose valid entries cannot be written in the registry's example. */
const FIXTURES: Record<string, () => Record<string, unknown>> = {
  'ssh-keys': () => {
    const pair = makeKeyPair('ED25519', 'lifecycle@test');
    return { type: pair.type, pub: pair.pub, 'privée': pair.openssh };
  },
};

/** A valid POST body for the resource; its references still name the example's ids. */
export function lifecycleBody(resource: CompiledResource): Record<string, unknown> {
  return FIXTURES[resource.name]?.() ?? { ...resource.example };
}

/** The fields of the resource that point at another resource, with the resource they point at. */
export function referenceFields(registry: Registry, resource: CompiledResource): [field: string, target: CompiledResource][] {
  return Object.entries(resource.fields).flatMap(([name, field]) => {
    const target = field.type.references && registry.target(field.type.references);
    return target === undefined ? [] : [[name, target] as [string, CompiledResource]];
  });
}

/** Resources in an order where every reference points at one that comes before it. */
export function referencedFirst(registry: Registry): CompiledResource[] {
  const ordered: CompiledResource[] = [];
  const visit = (resource: CompiledResource): void => {
    if (ordered.includes(resource)) return;
    for (const [, target] of referenceFields(registry, resource)) if (target !== resource) visit(target);
    ordered.push(resource);
  };
  registry.resources.forEach(visit);
  return ordered;
}

/** The value a body gives a reference field to point at entry `id`: the id, or for a set of
 * ids (tags) a set holding it. */
export function pointingAt(resource: CompiledResource, field: string, id: number): number | number[] {
  return resource.fields[field]?.type.references?.many ? [id] : id;
}

/** What a PATCH sends to let go of every reference that may be let go of (nullable ones to
 * null, sets to []): a soft-deleted entry keeps blocking the delete of what it points at. */
export function releasingBody(resource: CompiledResource): Record<string, unknown> {
  const release: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(resource.fields)) {
    if (field.type.references?.many) release[name] = [];
    else if (field.type.references !== undefined && field.type.check(null)) release[name] = null;
  }
  return release;
}
