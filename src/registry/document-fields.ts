// The fields of an entry that a configuration document carries (contract section 18): those a
// request may set and a response shows, so neither the service's own (id, timestamps, a
// server's is_deleted) nor the write-only ones (an SSH key's private key). Stated once, for the
// export, its schema in the OpenAPI document, and whatever reads the document back.
import type { FieldDefinition, ResourceDefinition } from './resource-definition.js';

const byResource = new WeakMap<ResourceDefinition, readonly [string, FieldDefinition][]>();

/** The document fields of `resource`, in the resource's order. */
export function documentFields(resource: ResourceDefinition): readonly [string, FieldDefinition][] {
  let fields = byResource.get(resource);
  if (fields === undefined) {
    fields = Object.entries(resource.fields).filter(([, field]) => field.readOnly !== true && field.writeOnly !== true);
    byResource.set(resource, fields);
  }
  return fields;
}
