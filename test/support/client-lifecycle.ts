// Writes, from the registry, a TypeScript program that drives the lifecycle of every resource
// through one generated client: create, read, a conditional read (304), HEAD, OPTIONS, a list
// filtered by id, "read, change a field, PUT it back", PATCH the entry as read, then delete.
// Each call is spelled the way that client spells it, with literal bodies, so that `tsc
// --strict` checks the client's types against the code a developer would write, before the
// program runs against the service. Key material never enters the program's text: write-only
// values are handed to it at run time.
import type { CompiledResource } from '../../src/registry/compiled-resource.js';
import type { Registry } from '../../src/registry/registry.js';
import { lifecycleBody, referencedFirst, referenceFields, releasingBody } from './registry-lifecycle.js';

/** What a call needs, as TypeScript expressions. */
export interface CallArguments {
  path: string;
  query?: string;
  headers?: string;
  body?: string;
  /** Straight to the service rather than through the proxy (HEAD: see generated-clients.test.ts). */
  direct?: boolean;
}

/** How one generated client is set up and called. */
export interface ClientDialect {
  /** Imports, relative to the program's folder. */
  readonly imports: string;
  /** Statements at the top of runLifecycle that make `options`' clients. */
  readonly setUp: string;
  /** A call as an expression, for the operation at `path` (the document's template) and `method`. */
  call(operation: { path: string; method: string; operationId: string }, args: CallArguments): string;
}

export interface LifecycleProgram {
  source: string;
  /** The write-only values the program is handed at run time, by resource and field. */
  secrets: Record<string, Record<string, string>>;
}

type Document = { paths: Record<string, Record<string, { operationId?: string }>> };

const literal = (value: unknown): string => JSON.stringify(value);

/** A field the PUT-back step can change to another valid value, found with the field's own check. */
function changeOf(resource: CompiledResource, body: Record<string, unknown>): [name: string, sent: unknown, shown: unknown] {
  for (const [name, field] of Object.entries(resource.fields)) {
    if (field.readOnly || field.writeOnly || field.type.references) continue;
    const current = name in body ? body[name] : field.default;
    const candidate = typeof current === 'string' ? `${current}x` : typeof current === 'number' ? current + 1 : typeof current === 'boolean' ? !current : undefined;
    if (candidate !== undefined && field.type.check(candidate)) return [name, candidate, field.type.normalise(candidate)];
  }
  throw new Error(`${resource.name}: no field of its example can be changed for "read, change a field, PUT it back"`);
}

function resourceSteps(registry: Registry, resource: CompiledResource, dialect: ClientDialect, document: Document, secrets: LifecycleProgram['secrets']): string {
  const collection = `/{lang}/api/config/${resource.name}`;
  const item = `${collection}/{id}`;
  const call = (path: string, method: string, args: CallArguments): string => {
    const operationId = document.paths[path]?.[method]?.operationId;
    if (operationId === undefined) throw new Error(`the document has no ${method.toUpperCase()} ${path}`);
    return dialect.call({ path, method, operationId }, args);
  };
  const body = lifecycleBody(resource);
  const targets = new Map(referenceFields(registry, resource));
  const members = Object.entries(body).map(([name, value]) => {
    const target = targets.get(name);
    // A set of ids (tags) points at the one entry made.
    if (target !== undefined) return resource.fields[name]?.type.references?.many ? `${literal(name)}: [ids[${literal(target.name)}]!]` : `${literal(name)}: ids[${literal(target.name)}]!`;
    if (resource.fields[name]?.writeOnly) {
      (secrets[resource.name] ??= {})[name] = String(value);
      return `${literal(name)}: secrets[${literal(resource.name)}]![${literal(name)}]!`;
    }
    return `${literal(name)}: ${literal(value)}`;
  });
  const [changed, sent, shown] = changeOf(resource, body);
  const step = (what: string): string => literal(`${resource.name}: ${what}`);
  return `
  {
    const created = createdOne(ok(await ${call(collection, 'post', { path: '{ lang }', body: `{ ${members.join(', ')} }` })}, 201, ${step('create')}), ${step('create')});
    const id = created.id;
    ids[${literal(resource.name)}] = id;
    const readResult = await ${call(item, 'get', { path: '{ lang, id }' })};
    const read = ok(readResult, 200, ${step('read')}).item;
    const etag = readResult.response.headers.get('etag') ?? '';
    status(await ${call(item, 'get', { path: '{ lang, id }', headers: "{ 'If-None-Match': etag }" })}, 304, ${step('read with If-None-Match')});
    status(await ${call(item, 'head', { path: '{ lang, id }', direct: true })}, 200, ${step('HEAD')});
    const allowed = await ${call(item, 'options', { path: '{ lang, id }' })};
    status(allowed, 204, ${step('OPTIONS')});
    same(allowed.response.headers.get('allow')?.includes('PUT'), true, ${step('OPTIONS names PUT in Allow')});
    const listed = ok(await ${call(collection, 'get', { path: '{ lang }', query: '{ id }' })}, 200, ${step('list filtered by id')});
    same(listed.items.map((entry) => entry.id), [id], ${step('list filtered by id')});
    // Read, change a field, PUT it back: the entry as read, read-only fields and all.
    const replaced = ok(await ${call(item, 'put', { path: '{ lang, id }', body: `{ ...read, ${literal(changed)}: ${literal(sent)} }` })}, 200, ${step('PUT back')});
    same(replaced.item[${literal(changed)}], ${literal(shown)}, ${step(`PUT back changed ${changed}`)});
    const patched = ok(await ${call(item, 'patch', { path: '{ lang, id }', body: 'replaced.item' })}, 200, ${step('PATCH with the entry as read')});
    same(patched.item[${literal(changed)}], ${literal(shown)}, ${step('PATCH with the entry as read')});
  }`;
}

function deleteSteps(resource: CompiledResource, dialect: ClientDialect, document: Document): string {
  const item = `/{lang}/api/config/${resource.name}/{id}`;
  const call = (method: string): string => dialect.call({ path: item, method, operationId: document.paths[item]![method]!.operationId! }, { path: 'path' });
  const soft = resource.deletion.mode === 'soft';
  const release = releasingBody(resource);
  // A soft-deleted entry keeps blocking the delete of what it points at: let go of it first.
  const releaseStep =
    Object.keys(release).length === 0
      ? ''
      : `status(await ${dialect.call({ path: item, method: 'patch', operationId: document.paths[item]!.patch!.operationId! }, { path: 'path', body: literal(release) })}, 200, ${literal(`${resource.name}: release`)});`;
  return `
  {
    const path = { lang, id: ids[${literal(resource.name)}]! };
    ${releaseStep}
    same(ok(await ${call('delete')}, 200, ${literal(`${resource.name}: delete`)}).mode, ${literal(resource.deletion.mode)}, ${literal(`${resource.name}: delete mode`)});
    status(await ${call('get')}, ${soft ? 200 : 404}, ${literal(`${resource.name}: read after delete`)});
  }`;
}

/** The program: `runLifecycle(options)` drives every resource and resolves when all went well. */
export function lifecycleProgram(registry: Registry, document: Document, dialect: ClientDialect): LifecycleProgram {
  const secrets: LifecycleProgram['secrets'] = {};
  const order = referencedFirst(registry);
  const steps = order.map((resource) => resourceSteps(registry, resource, dialect, document, secrets));
  const deletes = [...order].reverse().map((resource) => deleteSteps(resource, dialect, document));
  const source = `// Generated by test/support/client-lifecycle.ts from the registry; compiled with tsc --strict, then run.
${dialect.imports}

export interface LifecycleOptions {
  baseUrl: string;
  directUrl: string;
  fetch: typeof globalThis.fetch;
  secrets: Record<string, Record<string, string>>;
}

function ok<T>(result: { data?: T | undefined; error?: unknown; response: Response }, expected: number, step: string): T {
  if (result.response.status !== expected || result.data === undefined) {
    throw new Error(\`\${step}: expected \${expected}, got \${result.response.status} \${JSON.stringify(result.error)}\`);
  }
  return result.data;
}

/** A POST of a collection may answer one entry, a dry run or a bulk array: this is one entry. */
function createdOne<T>(answer: T, step: string): Extract<T, { id: number; item: unknown }> {
  const one = answer as { id?: unknown; item?: unknown };
  if (typeof one.id !== 'number' || one.item === undefined) throw new Error(\`\${step}: not the answer to a POST of one entry\`);
  return answer as Extract<T, { id: number; item: unknown }>;
}

function status(result: { response: Response }, expected: number, step: string): void {
  if (result.response.status !== expected) throw new Error(\`\${step}: expected \${expected}, got \${result.response.status}\`);
}

function same(actual: unknown, expected: unknown, step: string): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) throw new Error(\`\${step}: got \${JSON.stringify(actual)}, expected \${JSON.stringify(expected)}\`);
}

export async function runLifecycle(options: LifecycleOptions): Promise<void> {
  const lang = 'en' as const;
  const secrets = options.secrets;
  const ids: Record<string, number> = {};
${dialect.setUp}
${steps.join('\n')}
${deletes.join('\n')}
}
`;
  return { source, secrets };
}

/** openapi-typescript's types with openapi-fetch: the committed client of client/. */
export function openapiFetchDialect(clientFolder: string): ClientDialect {
  return {
    imports: `import { createConfigApiClient } from '${clientFolder}/index.js';`,
    setUp: `  const api = createConfigApiClient({ baseUrl: options.baseUrl, fetch: options.fetch });
  const direct = createConfigApiClient({ baseUrl: options.directUrl, fetch: options.fetch });`,
    call: ({ path, method }, args) => {
      const params = [`path: ${args.path}`, ...(args.query ? [`query: ${args.query}`] : []), ...(args.headers ? [`header: ${args.headers}`] : [])];
      const init = [`params: { ${params.join(', ')} }`, ...(args.body ? [`body: ${args.body}`] : [])];
      return `${args.direct ? 'direct' : 'api'}.${method.toUpperCase()}(${literal(path)}, { ${init.join(', ')} })`;
    },
  };
}

/** @hey-api/openapi-ts's SDK: one function per operationId, and its own fetch client. */
export function heyApiDialect(outputFolder: string): ClientDialect {
  return {
    imports: `import { client } from '${outputFolder}/client.gen.js';
import { createClient, createConfig } from '${outputFolder}/client/index.js';
import * as sdk from '${outputFolder}/sdk.gen.js';`,
    setUp: `  client.setConfig({ baseUrl: options.baseUrl, fetch: options.fetch });
  const direct = createClient(createConfig({ baseUrl: options.directUrl, fetch: options.fetch }));`,
    call: ({ operationId }, args) => {
      const members = [
        ...(args.direct ? ['client: direct'] : []),
        `path: ${args.path}`,
        ...(args.query ? [`query: ${args.query}`] : []),
        ...(args.headers ? [`headers: ${args.headers}`] : []),
        ...(args.body ? [`body: ${args.body}`] : []),
      ];
      return `sdk.${operationId}({ ${members.join(', ')} })`;
    },
  };
}
