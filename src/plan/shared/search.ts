/**
 * Which fields full-text search (`q`) looks in: the text fields of a routed model,
 * never a password. The generated model spec lists them (`searchFields`), the storage model
 * indexes them, and the OpenAPI document names them: one rule for all three.
 */
import type { Field, Model } from '../../ir/types.js';
import { isSecretField } from './field-types.js';

const TEXT_TYPES: ReadonlySet<string> = new Set(['string', 'text', 'unicode', 'unicode_text']);

export function searchFields(model: Model): Field[] {
  if (model.internal) return [];
  return model.fields.filter((f) => TEXT_TYPES.has(f.type) && !isSecretField(model, f));
}
