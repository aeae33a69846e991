// The types of value a field can hold. Each type owns its TypeBox schema (the one source for
// request validation and for the OpenAPI document), the sentence that explains a refusal,
// its canonical form, and how it is written to and read from a database column.
import { isIPv6 } from 'node:net';
import Type, { type TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { message, type Message } from '../messages/messages.js';

export interface FieldType {
  /** A value a request may send. */
  readonly input: TSchema;
  /** The value as responses show it. */
  readonly output: TSchema;
  /** Why a value was refused, in the words of the field's rule. */
  readonly expectation: Message;
  readonly check: (value: unknown) => boolean;
  /** The canonical form of a value that passed `check`. */
  readonly normalise: (value: unknown) => unknown;
  readonly toColumn: (value: unknown) => unknown;
  readonly fromColumn: (value: unknown) => unknown;
  /** Free text that the list search `q` looks into. */
  readonly searchable: boolean;
  /** Set on the type of a field that holds the id of another resource's entry. */
  readonly references?: Reference;
  /** Only the service writes values of this type (ids, the timestamps it keeps): a field of
   * it must be `readOnly`, which the Registry checks. Its `input` serves list filters alone. */
  readonly outputOnly: boolean;
}

export interface Reference {
  /** The `name` of the resource pointed at. */
  readonly resource: string;
  /** The entry pointed at must not be soft-deleted. */
  readonly mustBeLive: boolean;
  /** The field holds a set of ids (stored in a link table) rather than one. */
  readonly many: boolean;
}

/** Largest id a reference or a path may name: every backend stores ids as 32-bit integers. */
export const MAX_ID = 2_147_483_647;

// C0 and C1 control characters, and DEL.
const NO_CONTROL = '^[^\\u0000-\\u001f\\u007f-\\u009f]*$';
// The same, but line breaks are allowed: key material spans several lines.
const NO_CONTROL_BUT_LINE_BREAKS = '^[^\\u0000-\\u0009\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f]*$';

const identity = (value: unknown): unknown => value;

export interface FieldTypeOptions {
  input: TSchema;
  output?: TSchema;
  expectation: Message;
  normalise?: (value: unknown) => unknown;
  toColumn?: (value: unknown) => unknown;
  fromColumn?: (value: unknown) => unknown;
  searchable?: boolean;
  references?: Reference;
  /** A check beyond the schema's, on a value the schema accepts. */
  accepts?: (value: unknown) => boolean;
  /** See FieldType.outputOnly; false unless set. */
  outputOnly?: boolean;
}

/** A field type from its schema and words; for the types below, and for descriptions made
 * elsewhere in the registry's terms (the API tokens). */
export function fieldType(options: FieldTypeOptions): FieldType {
  const validator = Compile(options.input);
  const accepts = options.accepts;
  return {
    input: options.input,
    output: options.output ?? options.input,
    expectation: options.expectation,
    check: accepts === undefined ? (value) => validator.Check(value) : (value) => validator.Check(value) && accepts(value),
    normalise: options.normalise ?? identity,
    toColumn: options.toColumn ?? identity,
    fromColumn: options.fromColumn ?? identity,
    searchable: options.searchable ?? false,
    outputOnly: options.outputOnly ?? false,
    ...(options.references === undefined ? {} : { references: options.references }),
  };
}

export function text(min: number, max: number): FieldType {
  return fieldType({
    input: Type.String({ minLength: min, maxLength: max, pattern: NO_CONTROL }),
    expectation: message('field.text', { min, max }),
    searchable: true,
  });
}

export function textOrNull(min: number, max: number): FieldType {
  return fieldType({
    input: Type.Union([Type.String({ minLength: min, maxLength: max, pattern: NO_CONTROL }), Type.Null()]),
    expectation: message('field.textOrNull', { min, max }),
    searchable: true,
  });
}

export function hexColor(): FieldType {
  return fieldType({
    input: Type.String({ pattern: '^#[0-9a-fA-F]{6}$', minLength: 7, maxLength: 7 }),
    expectation: message('field.hexColor'),
  });
}

/** Lower-case letters, digits, `_` and `-`: values that end up in scripts and file names. */
export function slug(min: number, max: number): FieldType {
  return fieldType({
    input: Type.String({ pattern: `^[a-z0-9_-]{${min},${max}}$`, minLength: min, maxLength: max }),
    expectation: message('field.slug', { min, max }),
    searchable: true,
  });
}

export function oneOf(values: readonly string[]): FieldType {
  return fieldType({
    // A plain `enum` of strings, which validates exactly as a union of string literals would:
    // client generators that read `anyOf` of `const` lose the values and type the field `string`.
    input: Type.Enum(values, { type: 'string' }),
    expectation: message('field.oneOf', { values: values.join(', ') }),
  });
}

export function character(): FieldType {
  return fieldType({
    // One code point (patterns are Unicode-aware), neither blank nor a control character.
    input: Type.String({ pattern: '^[^\\s\\u0000-\\u001f\\u007f-\\u009f]$', minLength: 1, maxLength: 2 }),
    expectation: message('field.character'),
    searchable: true,
  });
}

export function integer(min: number, max: number): FieldType {
  return fieldType({
    input: Type.Integer({ minimum: min, maximum: max }),
    expectation: message('field.integer', { min, max }),
    fromColumn: (value) => Number(value),
  });
}

export function port(): FieldType {
  return integer(1, 65535);
}

/** A JSON boolean; requests may also send 1 and 0, as the older API's clients do. */
export function boolean(): FieldType {
  return fieldType({
    // 0 and 1 as an integer enum, which reads as "boolean | integer" in documentation and in
    // generated types, where two number constants read as "boolean | number | number".
    input: Type.Union([Type.Boolean(), Type.Enum([0, 1], { type: 'integer' })]),
    output: Type.Boolean(),
    expectation: message('field.boolean'),
    normalise: (value) => value === true || value === 1,
    toColumn: (value) => (value ? 1 : 0),
    fromColumn: (value) => Number(value) === 1,
  });
}

/** The 0/1 marker the older API exposes for soft-deleted servers. */
export function zeroOrOne(): FieldType {
  return fieldType({
    // A plain enum, as oneOf() makes, for the same client generators.
    input: Type.Enum([0, 1], { type: 'integer' }),
    expectation: message('field.integer', { min: 0, max: 1 }),
    fromColumn: (value) => Number(value),
  });
}

/** The id of an entry of `resource`; `mustBeLive`: of one that is not soft-deleted;
 * `nullable`: or null, for no entry. */
export function reference(resource: string, options: { mustBeLive?: boolean; nullable?: boolean } = {}): FieldType {
  const id = Type.Integer({ minimum: 1, maximum: MAX_ID });
  return fieldType({
    input: options.nullable ? Type.Union([id, Type.Null()]) : id,
    expectation: message(options.nullable ? 'field.referenceOrNull' : 'field.reference', { resource }),
    fromColumn: (value) => (value === null ? null : Number(value)),
    references: { resource, mustBeLive: options.mustBeLive ?? false, many: false },
  });
}

/** The ids of entries of `resource`, at most `max`, no id twice; shown in ascending order.
 * The field is stored in a link table (its definition's `link`); its column form is the ids
 * joined by commas, as the dialect's aggregate gives them. */
export function referenceSet(resource: string, max: number): FieldType {
  return fieldType({
    input: Type.Array(Type.Integer({ minimum: 1, maximum: MAX_ID }), { maxItems: max, uniqueItems: true }),
    expectation: message('field.referenceSet', { resource, max }),
    normalise: (value) => [...(value as number[])].sort((a, b) => a - b),
    fromColumn: (value) =>
      value === null || value === undefined || value === ''
        ? []
        : String(value)
            .split(',')
            .map(Number)
            .sort((a, b) => a - b),
    references: { resource, mustBeLive: false, many: true },
  });
}

/** An entry's own id, assigned by the database. */
export function id(): FieldType {
  return fieldType({
    input: Type.Integer({ minimum: 1, maximum: MAX_ID }),
    expectation: message('field.integer', { min: 1, max: MAX_ID }),
    fromColumn: (value) => Number(value),
    outputOnly: true,
  });
}

/** An ISO 8601 date-time (RFC 3339: date, time, offset) that names an instant JavaScript can
 * represent (RFC 3339 allows a leap second, 23:59:60, which Date does not), in years 0000 to
 * 9999 once in UTC: stored as toISOString writes it, the text then sorts as time does (a year
 * beyond would be written +010000 and sort wrong). */
const DATE_TIME = Type.String({ format: 'date-time', maxLength: 64 });
/** Whether a text the DATE_TIME schema accepts names such an instant. */
export const isInstant = (value: unknown): boolean => {
  if (typeof value !== 'string') return false;
  const time = Date.parse(value);
  return !Number.isNaN(time) && new Date(time).toISOString().length === 24;
};
const toUtc = (value: unknown): unknown => (value === null ? null : new Date(value as string).toISOString());

/** A date-time, or null where `nullable`: checked, and kept as the UTC instant to the
 * millisecond (so that equal instants compare equal, and the text sorts as time does). */
function dateTimeType(nullable: boolean, outputOnly: boolean): FieldType {
  return fieldType({
    input: nullable ? Type.Union([DATE_TIME, Type.Null()]) : DATE_TIME,
    output: nullable ? Type.Union([Type.String({ format: 'date-time' }), Type.Null()]) : Type.String({ format: 'date-time' }),
    expectation: message('field.timestamp'),
    accepts: nullable ? (value) => value === null || isInstant(value) : isInstant,
    normalise: toUtc,
    outputOnly,
  });
}

/** A date and time a request sets (a field of a resource: when a maintenance starts). */
export function dateTime(): FieldType {
  return dateTimeType(false, false);
}

/** The same, or null. */
export function dateTimeOrNull(): FieldType {
  return dateTimeType(true, false);
}

/** When an entry was created or changed, written by the service: only a `readOnly` field may
 * be of this type. As a list filter it must be a date-time, compared as the service stores it. */
export function timestamp(): FieldType {
  return dateTimeType(false, true);
}

/** The same, or null: for a timestamp the service writes later, if ever. */
export function timestampOrNull(): FieldType {
  return dateTimeType(true, true);
}

// IPv6 addresses have many spellings; store one so that uniqueness compares like with like.
function canonicalAddress(value: string): string {
  if (!isIPv6(value)) return value.toLowerCase();
  return new URL(`http://[${value}]/`).hostname.slice(1, -1);
}

export function ipAddress(): FieldType {
  return fieldType({
    input: Type.Union([Type.String({ format: 'ipv4', maxLength: 15 }), Type.String({ format: 'ipv6', maxLength: 45 })]),
    output: Type.String({ maxLength: 45 }),
    expectation: message('field.ipAddress'),
    normalise: (value) => canonicalAddress(value as string),
    searchable: true,
  });
}

/** Where a monitored server answers: an address or a DNS name. */
export function host(max: number): FieldType {
  return fieldType({
    input: Type.Union([
      Type.String({ format: 'ipv4', maxLength: 15 }),
      Type.String({ format: 'ipv6', maxLength: 45 }),
      Type.String({ format: 'hostname', minLength: 1, maxLength: max }),
    ]),
    output: Type.String({ minLength: 1, maxLength: max }),
    expectation: message('field.host', { max }),
    normalise: (value) => canonicalAddress(value as string),
    searchable: true,
  });
}

/** DNS names compare case-insensitively, so they are kept in lower case. */
export function dnsName(max: number): FieldType {
  return fieldType({
    input: Type.String({ format: 'hostname', minLength: 1, maxLength: max }),
    expectation: message('field.dnsName', { max }),
    normalise: (value) => (value as string).toLowerCase(),
    searchable: true,
  });
}

export function absolutePath(max: number): FieldType {
  return fieldType({
    input: Type.String({ pattern: '^/[^\\u0000-\\u001f\\u007f-\\u009f]*$', minLength: 1, maxLength: max }),
    expectation: message('field.absolutePath', { max }),
    searchable: true,
  });
}

export function sshPublicKey(max: number): FieldType {
  return fieldType({
    input: Type.String({
      pattern: '^(ssh-ed25519|ssh-rsa) [A-Za-z0-9+/]+={0,3}( [^\\u0000-\\u001f\\u007f-\\u009f]*)?$',
      maxLength: max,
    }),
    expectation: message('field.sshPublicKey'),
    searchable: true,
  });
}

export function sshFingerprint(): FieldType {
  return fieldType({
    input: Type.String({ pattern: '^SHA256:[A-Za-z0-9+/]{43}$' }),
    expectation: message('field.fingerprint'),
    searchable: true,
  });
}

/** Key material: checked here for form only; the ssh-keys rule checks it is the right key. */
export function privateKeyMaterial(max: number): FieldType {
  return fieldType({
    input: Type.String({ minLength: 1, maxLength: max, pattern: NO_CONTROL_BUT_LINE_BREAKS }),
    expectation: message('field.sshPrivateKey'),
  });
}
