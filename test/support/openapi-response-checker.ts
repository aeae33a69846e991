// Holds every response the test suite sees to the OpenAPI document the server serves: the
// status must be declared for the operation, the content type must be one it declares, the
// required headers must be there, and the body must match the schema. So the document is
// tested by the whole suite, not by a handful of assertions about its shape.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse as parseYaml } from 'yaml';

type JsonObject = Record<string, any>;

export interface ObservedResponse {
  status: number;
  headers: Headers;
  text: string;
}

const DOCUMENT_ID = 'urn:config-api:openapi';
// Constants, because compiled validators are cached by schema object.
const PROBLEM: JsonObject = { $ref: '#/components/schemas/Problem' };
const METHOD_NOT_ALLOWED: JsonObject = { $ref: '#/components/responses/MethodNotAllowed' };
const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

// ajv-formats is CommonJS with a default export; under NodeNext it arrives one level down.
const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

interface PathTemplate {
  template: string;
  pattern: RegExp;
  /** Literal segments: a concrete path wins over a templated one (OpenAPI 3.1, Paths Object). */
  literals: number;
  item: JsonObject;
}

function mediaTypeOf(contentType: string | null): string {
  return (contentType ?? '').split(';', 1)[0]!.trim().toLowerCase();
}

function isJsonMediaType(mediaType: string): boolean {
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Local references (`#/components/...`) become references into the document added to ajv. */
function anchorRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(anchorRefs);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) => [
      key,
      key === '$ref' && typeof child === 'string' && child.startsWith('#') ? `${DOCUMENT_ID}${child}` : anchorRefs(child),
    ]),
  );
}

export class OpenApiResponseChecker {
  private readonly ajv: Ajv2020;
  private readonly templates: PathTemplate[];
  private readonly validators = new Map<unknown, ValidateFunction>();

  constructor(private readonly document: JsonObject) {
    // strict: false, because OpenAPI adds keywords of its own (example, discriminator …).
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: DOCUMENT_ID, components: document.components ?? {} });
    this.templates = Object.entries(document.paths as JsonObject).map(([template, item]) => {
      const segments = template.split('/');
      const source = segments.map((segment) => (/^\{[^}]+\}$/.test(segment) ? '[^/]+' : escapeRegExp(segment))).join('/');
      return { template, pattern: new RegExp(`^${source}$`), literals: segments.filter((s) => s !== '' && !s.startsWith('{')).length, item };
    });
  }

  /** Throws an Error that says what disagrees with the document. */
  check(method: string, path: string, response: ObservedResponse): void {
    const problems = this.problems(method.toUpperCase(), path, response);
    if (problems.length > 0) {
      const shown = response.text.length > 600 ? `${response.text.slice(0, 600)}…` : response.text;
      throw new Error(
        `response to ${method.toUpperCase()} ${path} disagrees with the OpenAPI document:\n  - ${problems.join('\n  - ')}\n` +
          `status ${response.status}, content-type ${response.headers.get('content-type')}, body: ${shown}`,
      );
    }
  }

  private problems(method: string, path: string, response: ObservedResponse): string[] {
    // The path as fetch sends it (dot segments resolved), without query; a trailing slash is ignored.
    let pathname = new URL(path, 'http://service.invalid').pathname;
    if (pathname.length > 1 && pathname.endsWith('/')) pathname = pathname.slice(0, -1);
    const template = this.findTemplate(pathname);
    if (template === undefined) {
      // No operation lives here, so the only promise is the error format of every response.
      return this.checkProblem(response, 'no path of the document matches');
    }

    const operationKey = method.toLowerCase();
    const operation = METHODS.has(operationKey) ? (template.item[operationKey] as JsonObject | undefined) : undefined;
    if (operation === undefined) return this.checkUndeclaredMethod(method, template, response);

    const responses = operation.responses as JsonObject;
    const status = String(response.status);
    const declared = responses[status] ?? responses[`${status[0]}XX`] ?? responses.default;
    if (declared === undefined) {
      return [`status ${status} is not declared for ${method} ${template.template} (declared: ${Object.keys(responses).join(', ')})`];
    }
    return this.checkAgainst(this.resolve(declared), response);
  }

  private findTemplate(pathname: string): PathTemplate | undefined {
    const matching = this.templates.filter((template) => template.pattern.test(pathname));
    return matching.sort((a, b) => b.literals - a.literals)[0];
  }

  /** A method the path does not declare must be refused: 405 with Allow. */
  private checkUndeclaredMethod(method: string, template: PathTemplate, response: ObservedResponse): string[] {
    if (response.status === 405) return this.checkAgainst(this.resolve(METHOD_NOT_ALLOWED), response);
    return this.checkProblem(response, `${method} is not an operation of ${template.template}`);
  }

  private checkProblem(response: ObservedResponse, why: string): string[] {
    if (response.status < 400) return [`${why}, yet the status is ${response.status}`];
    if (mediaTypeOf(response.headers.get('content-type')) !== 'application/problem+json') {
      return [`${why}: expected an application/problem+json error, got ${response.headers.get('content-type')}`];
    }
    return this.checkBody(PROBLEM, response, 'application/problem+json');
  }

  /** HEAD and 304 responses are declared without content: they must come without a body. */
  private checkAgainst(declared: JsonObject, response: ObservedResponse): string[] {
    const problems: string[] = [];
    for (const [name, header] of Object.entries((declared.headers ?? {}) as JsonObject)) {
      problems.push(...this.checkHeader(name, this.resolve(header), response.headers.get(name)));
    }
    const content = declared.content as JsonObject | undefined;
    if (content === undefined) {
      if (response.text !== '') problems.push('a response declared without content has a body');
      return problems;
    }
    const mediaType = mediaTypeOf(response.headers.get('content-type'));
    const media = content[mediaType] as JsonObject | undefined;
    if (media === undefined) {
      problems.push(`content type ${mediaType || '(none)'} is not declared (declared: ${Object.keys(content).join(', ')})`);
      return problems;
    }
    if (media.schema !== undefined) problems.push(...this.checkBody(media.schema, response, mediaType));
    return problems;
  }

  private checkHeader(name: string, header: JsonObject, value: string | null): string[] {
    if (value === null) return header.required === true ? [`required header ${name} is missing`] : [];
    const schema = header.schema as JsonObject | undefined;
    if (schema === undefined) return [];
    const typed = schema.type === 'integer' || schema.type === 'number' ? Number(value) : value;
    const validate = this.validator(schema);
    return validate(typed) ? [] : [`header ${name}: ${this.ajv.errorsText(validate.errors)}`];
  }

  private checkBody(schema: JsonObject, response: ObservedResponse, mediaType: string): string[] {
    let body: unknown = response.text;
    if (isJsonMediaType(mediaType)) {
      try {
        body = JSON.parse(response.text);
      } catch {
        return [`the ${mediaType} body is not JSON`];
      }
    } else if (mediaType === 'application/yaml') {
      // Declared as text (a string: the OpenAPI document), it must also be YAML that a reader
      // can parse; declared as a structure (the configuration document), what it reads as is
      // held to it.
      let parsed: unknown;
      try {
        parsed = parseYaml(response.text);
      } catch {
        return ['the application/yaml body is not YAML'];
      }
      if ((schema as { type?: unknown }).type !== 'string') body = parsed;
    }
    // Anything else is text held to its string schema (binary files are checked as text '').
    const validate = this.validator(schema);
    if (validate(body)) return [];
    return (validate.errors ?? []).map((error) => `body${error.instancePath} ${error.message ?? 'is invalid'} ${JSON.stringify(error.params)}`);
  }

  private validator(schema: JsonObject): ValidateFunction {
    let validate = this.validators.get(schema);
    if (validate === undefined) {
      validate = this.ajv.compile(anchorRefs(schema) as JsonObject);
      this.validators.set(schema, validate);
    }
    return validate;
  }

  /** Follows a local `$ref` (responses and headers are often shared components). */
  private resolve(value: JsonObject): JsonObject {
    let current = value;
    for (let hops = 0; typeof current.$ref === 'string' && hops < 10; hops++) {
      const pointer = (current.$ref as string).replace(/^#\//, '').split('/');
      current = pointer.reduce<any>((node, segment) => node?.[segment.replace(/~1/g, '/').replace(/~0/g, '~')], this.document);
      if (current === undefined) throw new Error(`unresolved reference ${value.$ref}`);
    }
    return current;
  }
}

const checkers = new Map<string, OpenApiResponseChecker>();

/** One checker per distinct document: servers of one test run share the compiled schemas. */
export function checkerFor(documentText: string): OpenApiResponseChecker {
  let checker = checkers.get(documentText);
  if (checker === undefined) {
    checker = new OpenApiResponseChecker(JSON.parse(documentText) as JsonObject);
    checkers.set(documentText, checker);
  }
  return checker;
}
