// The typed client of the configuration API: openapi-fetch over the types openapi-typescript
// generates from the OpenAPI document (`npm run client:generate` rewrites schema.d.ts).
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, paths } from './schema.js';

export type { components, paths };

export type ConfigApiClient = Client<paths>;

/** `baseUrl` is the service's address, e.g. `http://127.0.0.1:8080`; paths carry the language. */
export function createConfigApiClient(options: ClientOptions = {}): ConfigApiClient {
  return createClient<paths>(options);
}

/** The answer to a POST of one entry, from the answers a POST of a collection may give (one
 * entry, a dry run, a bulk array): the one a client that sent one object without `dry_run`
 * gets. Throws on the others. */
export function createdEntry<T extends { resource: string }>(answer: T): Extract<T, { id: number; item: unknown }> {
  if ('item' in answer && 'id' in answer && typeof answer.id === 'number') return answer as Extract<T, { id: number; item: unknown }>;
  throw new Error('not the answer to a POST of one entry');
}
