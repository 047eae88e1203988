/**
 * A row as a record: values converted, to-one relationships kept in the row filled in.
 *
 * `interpretedRowRecord` reads the model for every row: `out[f.name] = …` with names known only
 * then, which V8 serves from its megamorphic caches. `rowRecord` runs, for each model, a function
 * written from it the first time it is needed, with its names as constants (an object literal:
 * every record of a model shares one shape). It gives the same object, key for key and in the same order, and
 * gives way to the interpreted one for a row that lacks one of the columns (a select of some
 * fields, an event's stored row). bench/RESULTS.md, "Rows and answers written per model".
 */
import type { FieldSpec, Model } from '../model.js';
import { fromDb, UNCONVERTED_FROM_DB } from '../values.js';

type Rec = Record<string, unknown>;

export function interpretedRowRecord(model: Model, row: Rec): Rec {
  const out: Rec = {};
  for (const f of model.columns) if (f.column! in row) out[f.name] = fromDb(row[f.column!], f);
  for (const r of model.relations) {
    if (!r.local || !(r.foreignKey in row)) continue;
    const fk = model.columns.find((c) => c.column === r.foreignKey)!;
    out[r.name] = fromDb(row[r.foreignKey], fk);
  }
  return out;
}

/** A model's rows as records, by its compiled function (the interpreted one where that gives way). */
export function rowRecord(model: Model, row: Rec): Rec {
  return compiledFor(model)?.(row) ?? interpretedRowRecord(model, row);
}

/** A row's record, or undefined when the row lacks a column the record needs. */
type Compiled = (row: Rec) => Rec | undefined;

const compiled = new WeakMap<Model, Compiled | null>();

function compiledFor(model: Model): Compiled | undefined {
  let found = compiled.get(model);
  if (found === undefined) compiled.set(model, (found = compile(model)));
  return found ?? undefined;
}

/** One entry of the record: its key, the column it comes from, and the field that says how to convert it. */
interface Entry {
  readonly key: string;
  readonly column: string;
  readonly field: FieldSpec;
}

/** `model`'s compiled function, or null where a name could not be a plain property of a literal. */
function compile(model: Model): Compiled | null {
  const entries: Entry[] = model.columns.map((field) => ({ key: field.name, column: field.column!, field }));
  for (const relation of model.relations) {
    if (!relation.local) continue;
    const field = model.columns.find((c) => c.column === relation.foreignKey);
    // The interpreted function would fail on such a row too: it stays the one that runs.
    if (!field) return null;
    entries.push({ key: relation.name, column: relation.foreignKey, field });
  }
  // A `__proto__` key in a literal would set the record's prototype.
  if (entries.some((e) => e.key === '__proto__')) return null;
  const columns = [...new Set(entries.map((e) => e.column))];
  const variable = new Map(columns.map((column, i) => [column, `v${i}`]));
  // Names are JSON string literals (quoted and escaped): nothing of them is code.
  const guard = columns.map((column) => `${JSON.stringify(column)} in row`).join(' && ');
  const reads = columns.map((column) => `${variable.get(column)!} = row[${JSON.stringify(column)}]`).join(', ');
  const values = entries.map((e, i) => `${JSON.stringify(e.key)}: ${converted(variable.get(e.column)!, e.field, i)}`);
  const body = `${guard ? `if (!(${guard})) return undefined;\n` : ''}${reads ? `const ${reads};\n` : ''}return { ${values.join(', ')} };`;
  // oxlint-disable-next-line typescript/no-implied-eval
  const make = new Function('fromDb', 'fields', `return function rowRecord(row) {\n${body}\n};`) as (
    convert: typeof fromDb,
    fields: readonly FieldSpec[],
  ) => Compiled;
  return make(
    fromDb,
    entries.map((e) => e.field),
  );
}

/** The value of `variable` as `fromDb` converts it for `field` (`fields[i]`), called only where it would convert. */
function converted(variable: string, field: FieldSpec, i: number): string {
  const call = `fromDb(${variable}, fields[${i}])`;
  const kept = UNCONVERTED_FROM_DB[field.storage];
  return kept ? `(typeof ${variable} === "${kept}" ? ${variable} : ${call})` : call;
}
