/**
 * An object as the API shows it to a caller who may see all of it and named no `_fields`, by a
 * function written once per model at start-up: its fields in schema order, then `_type`, `_pk` and
 * `_self`, with the model's names as constants (an object literal: every answer of a model shares
 * one shape). serialize.ts's interpreted `object` reads the model for every object instead, with
 * names V8 looks up in its megamorphic caches; the two give the same object, key for key and in
 * the same order. The compiled one gives way (undefined) for a record that lacks one of the fields
 * (a repository read of some fields): the interpreted one leaves those out.
 * bench/RESULTS.md, "Rows and answers written per model".
 */
import type { Model } from '../model.js';
import { text } from '../text.js';

type Rec = Record<string, unknown>;

/** A related object (or list) embedded as serialize.ts embeds it. */
export type Embed = (target: string, value: unknown) => unknown;

/** The answer for `record`, or undefined when the record lacks a field. */
export type Presenter = (record: Rec, embed: Embed, baseUrl: string, requestUrl: string) => Rec | undefined;

const presenters = new WeakMap<Model, Presenter | null>();

/** `model`'s compiled presenter, or undefined where a name could not be a plain property of a literal. */
export function presenterOf(model: Model): Presenter | undefined {
  let found = presenters.get(model);
  if (found === undefined) presenters.set(model, (found = compile(model)));
  return found ?? undefined;
}

function compile(model: Model): Presenter | null {
  const shown = model.fields.filter((field) => !field.secret);
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
      '_self: path === null ? requestUrl : baseUrl + path',
    ].join(', ')} };`,
  ];
  // oxlint-disable-next-line typescript/no-implied-eval
  const make = new Function(
    'model',
    'text',
    `return function present(record, embed, baseUrl, requestUrl) {\n${body.filter(Boolean).join('\n')}\n};`,
  ) as (model: Model, convert: typeof text) => Presenter;
  return make(model, text);
}
