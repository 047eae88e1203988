/**
 * What a PUT's body may leave out and a create's may not (runtime lib/http/writes.ts
 * `replacement`): a replacement keeps, as they are, the write-once fields, the password, the fields
 * whose default is computed at creation (`created_at`) and the links kept in the other objects' rows,
 * when it does not give them.
 */
import { holdsKey } from '../../ir/links.js';
import type { Field, Literal, Model } from '../../ir/types.js';
import { isSecretField } from './field-types.js';

/** The fields a PUT keeps when it leaves them out. */
export function keptByReplace(model: Model): readonly Field[] {
  return model.fields.filter(
    (f) =>
      f.type !== 'foreign_key' &&
      (f.writeOnce ||
        isSecretField(model, f) ||
        (f.default !== null && f.default.kind !== 'literal') ||
        keptByOthers(model, f)),
  );
}

/** Whether a PUT's body differs from a create's: it need not give a field the create requires, or has no default for one. */
export function replaceDiffers(model: Model): boolean {
  return keptByReplace(model).some((f) => f.requiredOnCreate || literalDefault(f) !== undefined);
}

/** What a create stores for a field it leaves out, where the document can say it: the schema's literal default. */
export function literalDefault(field: Field): Literal | undefined {
  return field.default?.kind === 'literal' && field.default.value !== null ? field.default.value : undefined;
}

function keptByOthers(model: Model, field: Field): boolean {
  const link = model.relationships.find((r) => r.name === field.name);
  return link !== undefined && !holdsKey(model, link);
}
