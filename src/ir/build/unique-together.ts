/**
 * `_unique_together` resolved to stored fields: a field by its name, a link to one object by its
 * foreign key field (`team` → `team_id`). Read once the relationships are known (a backref names
 * a link the schema does not declare).
 */
import type { DiagnosticBag } from '../../diagnostics/diagnostic.js';
import { withArticle } from '../../util/article.js';
import { didYouMean } from '../../util/suggest.js';
import type { FieldType } from '../types.js';
import type { ModelDraft } from './models.js';
import type { Poisoned } from './poisoned.js';

/** Values a unique index compares as the client sees them; lists, objects and files it does not. */
const UNCOMPARABLE: readonly FieldType[] = ['list', 'dict', 'pickle', 'file', 'relationship'];

export function resolveUniqueTogether(
  diagnostics: DiagnosticBag,
  model: ModelDraft,
  poisoned: Poisoned,
): (readonly string[])[] {
  const sets: string[][] = [];
  for (const list of model.uniqueTogether) {
    const fields = list.names.map((name, i) => {
      const field = storedField(model, name);
      if (typeof field === 'string') return field;
      if (field.problem === 'unknown' && poisoned.mayBeBackref(model.name, name)) return undefined;
      diagnostics.report('SVC2089', `"${name}" in _unique_together ${field.message}`, {
        span: list.spans[i]!,
        hint: field.hint,
      });
      return undefined;
    });
    if (fields.some((f) => f === undefined)) continue;
    const set = [...new Set(fields as string[])];
    if (set.length < 2) {
      diagnostics.report('SVC2088', `${list.names.join(' and ')} in _unique_together are one field`, {
        span: list.span,
        hint: 'a field unique alone says "unique": true in its "_db_settings"',
      });
      continue;
    }
    // The same set twice (in any order) is one index.
    if (!sets.some((s) => s.length === set.length && s.every((f) => set.includes(f)))) sets.push(set);
  }
  return sets;
}

type Unresolved = { readonly problem: 'unknown' | 'unsuitable'; readonly message: string; readonly hint?: string };

function storedField(model: ModelDraft, name: string): string | Unresolved {
  const link = model.relationships.find((r) => r.name === name);
  if (link) {
    if (link.cardinality === 'one' && link.foreignKey.model === model.name) return link.foreignKey.field;
    return {
      problem: 'unsuitable',
      message: `links ${link.cardinality === 'many' ? 'many objects' : 'an object whose own foreign key holds the link'}: only a link to one object, kept in ${model.name}, has a value to compare`,
      // The usual slip: a list declared on this model where the other model's list was meant.
      ...(link.cardinality === 'many'
        ? {
            hint: `to link each ${model.name} to one ${link.target}, declare the relationship on ${link.target} instead (a list of ${model.name} objects, "backref_name": "${name}"): then ${model.name} keeps the ${link.target}'s key, which _unique_together can compare`,
          }
        : {}),
    };
  }
  const field = model.fields.find((f) => f.field.name === name)?.field;
  if (!field) {
    const names = [...new Set([...model.fields.map((f) => f.field.name), ...model.relationships.map((r) => r.name)])];
    return {
      problem: 'unknown',
      message: `is not a field of ${model.name}`,
      hint: didYouMean(name, names) ?? `fields of ${model.name}: ${names.join(', ')}`,
    };
  }
  if (UNCOMPARABLE.includes(field.type))
    return {
      problem: 'unsuitable',
      message: `is ${withArticle(field.type)} field: only fields with one plain value (text, numbers, dates, choices, links to one object) can be unique together`,
    };
  return field.name;
}
