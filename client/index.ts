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
