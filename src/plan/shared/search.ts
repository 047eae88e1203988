/**
 * Which fields full-text search (`q`) looks in: the text fields of a routed model (`Field.search`:
 * unless `_db_settings.search` is false), never a password. The generated model spec lists them
 * (`searchFields`), the storage model indexes them, and the OpenAPI document names them: one rule
 * for all three.
 */
import type { Field, Model } from '../../ir/types.js';
import { isSecretField } from './field-types.js';

export function searchFields(model: Model): Field[] {
  if (model.internal) return [];
  return model.fields.filter((f) => f.search && !isSecretField(model, f));
}
