// The managed API tokens (contract section 14) described in the registry's own terms — fields,
// types, a unique rule — so that a token body is checked, stored, listed and documented by the
// same code as any entry. Not a resource of the registry: no generic route serves it; the
// token routes (src/http/routes/tokens.ts) do, for admins, and the token itself is no field:
// only its keyed digest is stored, in a column of its own (token-store.ts).
import Type from 'typebox';
import { canonicalRange } from '../auth/address-ranges.js';
import { TOKEN_NAME_PATTERN, TOKEN_SCOPES } from '../auth/caller.js';
import { message } from '../messages/messages.js';
import { compileResource, type CompiledResource } from '../registry/compiled-resource.js';
import { fieldType, isInstant, oneOf, timestampOrNull, type FieldType } from '../registry/field-types.js';

/** Networks one token may list in `allowed_ips`. */
export const ALLOWED_IPS_MAX = 100;

function tokenName(): FieldType {
  return fieldType({
    input: Type.String({ pattern: TOKEN_NAME_PATTERN, minLength: 1, maxLength: 64 }),
    expectation: message('field.tokenName'),
    searchable: true,
  });
}

/** When a token stops working; stored as the service writes timestamps (UTC, milliseconds). */
function expiry(): FieldType {
  return fieldType({
    input: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    expectation: message('field.expiry'),
    // RFC 3339 allows a leap second (23:59:60), which Date cannot hold.
    accepts: (value) => value === null || isInstant(value),
    normalise: (value) => (value === null ? null : new Date(value as string).toISOString()),
  });
}


/** CIDR ranges, kept in canonical form as a JSON array in one column. */
function addressRanges(max: number): FieldType {
  const ranges = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: max });
  return fieldType({
    input: Type.Union([ranges, Type.Null()]),
    expectation: message('field.addressRanges', { max }),
    accepts: (value) => value === null || (value as string[]).every((range) => canonicalRange(range) !== undefined),
    normalise: (value) => (value === null ? null : [...new Set((value as string[]).map((range) => canonicalRange(range)!))]),
    toColumn: (value) => (value === null ? null : JSON.stringify(value)),
    fromColumn: (value) => (typeof value === 'string' ? (JSON.parse(value) as string[]) : null),
  });
}

// Kept outside the registry (its own routes and scope), so compiled here, once.
export const API_TOKENS: CompiledResource = compileResource({
  name: 'tokens',
  schemaName: 'Token',
  table: 'api_tokens',
  description: {
    en: 'Bearer tokens with a name, a scope, an optional expiry and optional client networks. The token itself is shown once, when it is created.',
    fr: 'Jetons porteurs avec un nom, une portée, une expiration et des réseaux clients facultatifs. Le jeton lui-même n’est montré qu’une fois, à sa création.',
  },
  fields: {
    name: {
      type: tokenName(),
      column: 'name',
      required: true,
      description: {
        en: 'Unique name, shown as the actor of the changes made with the token.',
        fr: 'Nom unique, montré comme auteur des modifications faites avec le jeton.',
      },
    },
    scope: {
      type: oneOf(TOKEN_SCOPES),
      column: 'scope',
      required: true,
      description: {
        en: 'read: GET only; write: every configuration operation; admin: write and the token endpoints.',
        fr: 'read : GET seulement ; write : toutes les opérations de configuration ; admin : write et les jetons.',
      },
    },
    expires_at: {
      type: expiry(),
      column: 'expires_at',
      default: null,
      description: {
        en: 'When the token stops working (then 401); null: never. Must be in the future.',
        fr: 'Quand le jeton cesse de fonctionner (puis 401) ; null : jamais. Doit être dans le futur.',
      },
    },
    allowed_ips: {
      type: addressRanges(ALLOWED_IPS_MAX),
      column: 'allowed_ips',
      default: null,
      description: {
        en: 'IPv4 and IPv6 networks (CIDR) the token may be used from (else 403); null: any address.',
        fr: 'Réseaux IPv4 et IPv6 (CIDR) depuis lesquels le jeton peut servir (sinon 403) ; null : toute adresse.',
      },
    },
    last_used_at: {
      type: timestampOrNull(),
      column: 'last_used_at',
      readOnly: true,
      default: null,
      description: {
        en: 'When a request last used the token, up to a minute late; null: never.',
        fr: 'Quand une requête a utilisé le jeton pour la dernière fois, avec jusqu’à une minute de retard ; null : jamais.',
      },
    },
  },
  unique: [{ fields: ['name'] }],
  deletion: { mode: 'hard' },
  example: { name: 'collector-paris', scope: 'read', expires_at: '2030-01-01T00:00:00.000Z', allowed_ips: ['10.20.0.0/16', '2001:db8:20::/48'] },
});
