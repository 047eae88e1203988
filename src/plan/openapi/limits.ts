/**
 * Limits the service enforces (or applies) outside the JSON Schema its routes validate bodies
 * with, written into the document's body schemas so that clients see them:
 * - a password is refused past MAX_PASSWORD_BYTES = 1024 bytes of UTF-8 (lib/auth/passwords.ts).
 *   JSON Schema counts characters: 256 of them never take more than 1024 bytes, whatever they
 *   are, so `maxLength: 256` is a limit every password the document allows passes;
 * - a decimal is rounded to its scale when stored: `multipleOf` says how many digits it keeps
 *   (in bodies only: answers hold the rounded values, and a validator that divides in floating
 *   point finds 0.07 no multiple of 0.01);
 * - the username `self` (in any case, spaces around it ignored) is refused at registration:
 *   `/users/self` names the logged-in user (lib/auth/routes.ts).
 */
import type { Field, Model } from '../../ir/types.js';
import { isSecretField } from '../shared/field-types.js';
import type { Json, OpenApiContext } from './context.js';

/** The bytes lib/auth/passwords.ts allows, and the characters that always fit in them (4 bytes each at most). */
export const MAX_PASSWORD_BYTES = 1024;
export const MAX_PASSWORD_CHARACTERS = MAX_PASSWORD_BYTES / 4;

/** Matches the usernames lib/auth/routes.ts refuses (it compares them NFKC-normalised, trimmed, lower-cased). */
const RESERVED_USERNAME = '^\\s*[Ss][Ee][Ll][Ff]\\s*$';

/** A field's schema in a request body, with the limits the service applies besides it. */
export function withServiceLimits(ctx: OpenApiContext, model: Model, field: Field, schema: Json): Json {
  if (isSecretField(model, field)) return passwordSchema(schema);
  if (field.type === 'decimal' && field.scale !== null) return { ...schema, multipleOf: 10 ** -field.scale };
  if (ctx.ir.auth?.userModel === model.name && field.name === 'username')
    return { ...schema, not: { pattern: RESERVED_USERNAME } };
  return schema;
}

/** A password's schema: at most 256 characters (or the field's own, smaller, limit). */
export function passwordSchema(schema: Json = { type: 'string', minLength: 1 }): Json {
  const own = typeof schema['maxLength'] === 'number' ? schema['maxLength'] : Infinity;
  const limit = `At most ${MAX_PASSWORD_BYTES} bytes in UTF-8: ${MAX_PASSWORD_CHARACTERS} characters always fit.`;
  const help = typeof schema['description'] === 'string' ? `${schema['description'].replace(/\.?$/, '.')} ` : '';
  return { ...schema, maxLength: Math.min(own, MAX_PASSWORD_CHARACTERS), description: `${help}${limit}` };
}
