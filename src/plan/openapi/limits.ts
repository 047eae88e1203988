/**
 * Limits the service enforces (or applies) outside the JSON Schema its routes validate bodies
 * with, written into the document's body schemas so that clients see them:
 * - a password is refused past MAX_PASSWORD_BYTES = 1024 bytes of UTF-8 (lib/auth/passwords.ts).
 *   JSON Schema counts characters: 256 of them never take more than 1024 bytes, whatever they
 *   are, so `maxLength: 256` is a limit every password the document allows passes;
 * - a decimal is rounded to its scale when stored, which its description says: not `multipleOf`,
 *   which means "refused otherwise", and which validators test by dividing in floating point (ajv
 *   finds 19.99 no multiple of 0.01, and would refuse prices the service takes);
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

/** Marks a request body's read-only field (src/apidiff/schema-diff.ts reads it). */
export const READ_ONLY_MARK = 'x-svcgen-read-only';

/** Marks a request body's write-once field (src/apidiff/schema-diff.ts reads it). */
export const WRITE_ONCE_MARK = 'x-svcgen-write-once';

/** Says who sees an answer's field, where not every caller does (schemas.ts, src/apidiff/schema-diff.ts). */
export const VISIBLE_TO_MARK = 'x-svcgen-visible-to';

/** The callers it names (a user's own record shows them every field but the hidden ones). */
export const FIELD_AUDIENCES: readonly string[] = ['anonymous', 'member', 'admin'];

/**
 * At the document's root, the callers its fields' `x-svcgen-visible-to` name: a document that says
 * who sees each field (one of an older svcgen does not, and a field without the mark there is not
 * one every caller saw).
 */
export const FIELD_AUDIENCES_MARK = 'x-svcgen-field-audiences';

/** A field's schema in a request body, with the limits the service applies besides it. */
export function withServiceLimits(ctx: OpenApiContext, model: Model, field: Field, schema: Json): Json {
  const limited = bodyLimits(ctx, model, field, schema);
  // Said in words: `readOnly` itself would tell tools never to send it, which admins may. The
  // extension is for `svcgen diff`: a field clients wrote that becomes read-only breaks them.
  if (!field.readOnly)
    return field.writeOnce ? withNote({ ...limited, [WRITE_ONCE_MARK]: true }, writeOnceNote(ctx)) : limited;
  return withNote(
    { ...limited, [READ_ONLY_MARK]: true },
    ctx.ir.auth
      ? 'Read-only: only admins may send it (403 for anyone else); the service sets it otherwise.'
      : 'Read-only: the service sets it; a request that sends it is refused (403).',
  );
}

/** Said on both bodies: a create (and a PUT, which names it unchanged) sends it; a change of it is refused. */
function writeOnceNote(ctx: OpenApiContext): string {
  return ctx.ir.auth
    ? 'Write-once: set when the object is created; afterwards only admins may change it (403 for anyone else).'
    : 'Write-once: set when the object is created; a change to another value is refused (403).';
}

function bodyLimits(ctx: OpenApiContext, model: Model, field: Field, schema: Json): Json {
  if (isSecretField(model, field)) return passwordSchema(schema);
  if (field.type === 'decimal' && field.scale !== null) return decimalSchema(schema, field.scale);
  if (ctx.ir.auth?.userModel === model.name && field.name === 'username')
    return { ...schema, not: { pattern: RESERVED_USERNAME } };
  return schema;
}

/**
 * A decimal's schema in a body: any number in its range, said to be rounded to `scale` digits, and
 * to keep 15 (lib/http/writes.ts `inexactDecimals`; not as a bound here, which would tighten the
 * range of every decimal an older svcgen wrote, and make `svcgen diff` call it a break).
 */
function decimalSchema(schema: Json, scale: number): Json {
  const digits = scale === 1 ? '1 digit' : `${scale} digits`;
  return withNote(
    schema,
    `Stored rounded to ${digits} after the point (half away from zero). At most 15 significant digits, below 10^15 (what a JSON number carries exactly): more are refused.`,
  );
}

/** `schema` with `note` after its description. */
function withNote(schema: Json, note: string): Json {
  const help = typeof schema['description'] === 'string' ? `${schema['description'].replace(/\.?$/, '.')} ` : '';
  return { ...schema, description: `${help}${note}` };
}

/** A password's schema: at most 256 characters (or the field's own, smaller, limit). */
export function passwordSchema(schema: Json = { type: 'string', minLength: 1 }): Json {
  const own = typeof schema['maxLength'] === 'number' ? schema['maxLength'] : Infinity;
  const limit = `At most ${MAX_PASSWORD_BYTES} bytes in UTF-8: ${MAX_PASSWORD_CHARACTERS} characters always fit.`;
  return withNote({ ...schema, maxLength: Math.min(own, MAX_PASSWORD_CHARACTERS) }, limit);
}
