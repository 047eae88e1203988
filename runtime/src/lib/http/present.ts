/**
 * An object as the API shows it to a caller who named no `_fields`, by a function written once
 * per model and set of fields the caller may see (field privacy), the first time it is needed:
 * the fields in schema order, then `_type`, `_pk` and `_self`, with the model's names as constants
 * (an object literal: every answer of a model to one audience shares one shape). serialize.ts's
 * interpreted `object` reads the model for every object instead, with names V8 looks up in its
 * megamorphic caches; the two give the same object, key for key and in the same order. The
 * compiled one gives way (undefined) for a record that lacks one of the fields (a repository read
 * of some fields): the interpreted one leaves those out. bench/RESULTS.md, "Rows and answers
 * written per model".
 */
import type { Model } from '../model.js';
import { text } from '../text.js';

type Rec = Record<string, unknown>;

/** A related object (or list) embedded as serialize.ts embeds it. */
export type Embed = (target: string, value: unknown) => unknown;

/** The answer for `record`, or undefined when the record lacks a field. */
export type Presenter = (record: Rec, embed: Embed, baseUrl: string, unnamed: Unnamed) => Rec | undefined;

/** `_self` of an object its model names no URL for (`Model.selfPath` null): serialize.ts's `SerializeOptions.ownUrl`. */
export type Unnamed = (record: Rec) => string;

/**
 * Each model's presenters, by the set of fields the caller may see (null: all). Field privacy gives
 * a few sets per model, made once each and never changed (auth/policy.ts, `visibility`): a presenter
 * is compiled for each of the first MAX_SETS it meets, and the interpreted `object` serves any other.
 */
const presenters = new WeakMap<Model, Map<ReadonlySet<string> | null, Presenter | null>>();
const MAX_SETS = 8;

/** `model`'s compiled presenter for a caller who sees `visible`, or undefined where there is none. */
export function presenterOf(model: Model, visible: ReadonlySet<string> | null): Presenter | undefined {
  let bySet = presenters.get(model);
  if (!bySet) presenters.set(model, (bySet = new Map()));
  let found = bySet.get(visible);
  if (found === undefined && bySet.size < MAX_SETS) bySet.set(visible, (found = compile(model, visible)));
  return found ?? undefined;
}

function compile(model: Model, visible: ReadonlySet<string> | null): Presenter | null {
  const shown = model.fields.filter((field) => !field.secret && (visible === null || visible.has(field.name)));
  // A `__proto__` key in a literal would set the answer's prototype.
  if (shown.some((field) => field.name === '__proto__')) return null;
  // Names are JSON string literals (quoted and escaped): nothing of them is code.
  const name = (field: { name: string }) => JSON.stringify(field.name);
  const guard = shown.map((field) => `${name(field)} in record`).join(' && ');
  const reads = shown.map((field, i) => `v${i} = record[${name(field)}]`);
  const values = shown.map((field, i) => {
    const relation = field.type === 'relationship' ? model.relation(field.name) : undefined;
    const value = `v${i}`;
    return `${name(field)}: ${relation ? `(${value} !== null && typeof ${value} === "object" ? embed(${JSON.stringify(relation.target)}, ${value}) : ${value})` : value}`;
  });
  const body = [
    guard ? `if (!(${guard})) return undefined;` : '',
    reads.length ? `const ${reads.join(', ')};` : '',
    `const pk = record[${JSON.stringify(model.primaryKey)}];`,
    'const path = model.selfPath(record);',
    `return { ${[
      ...values,
      `_type: ${JSON.stringify(model.name)}`,
      '_pk: pk === null || pk === undefined ? null : text(pk)',
      '_self: path === null ? unnamed(record) : baseUrl + path',
    ].join(', ')} };`,
  ];
  // oxlint-disable-next-line typescript/no-implied-eval
  const make = new Function(
    'model',
    'text',
    `return function present(record, embed, baseUrl, unnamed) {\n${body.filter(Boolean).join('\n')}\n};`,
  ) as (model: Model, convert: typeof text) => Presenter;
  return make(model, text);
}
