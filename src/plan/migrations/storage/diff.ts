/**
 * What changed between two storage models, and what that does to stored data. Tables and
 * columns are matched by name, or by an explicit `renamed_from` (renames are never guessed: a
 * drop and an add of the same shape is a drop and an add). Each change that loses data, or that
 * existing rows cannot follow without a value nobody gave, is a finding for the caller to refuse.
 */
import { uniquesChanged } from './uniques.js';
import { linkRenames } from './links.js';
import { sqliteRefusesUnconverted } from './sql.js';
import {
  convertible,
  decimalDigits,
  family,
  FRACTIONAL,
  INTEGER_DIGITS,
  temporalChange,
  widens,
} from './conversions.js';
import type { StorageModel, StoredColumn, StoredTable } from '../../../outdir/storage-model.js';
import type { Aspect, ColumnChange, TableChange } from './changes.js';
import { sameSearch, searchIndexChanged } from './search.js';

export interface Renames {
  /** New table → its name in the previous model. */
  readonly tables: ReadonlyMap<string, string>;
  /** `<new table>.<new column>` → the column's name in the previous model. */
  readonly columns: ReadonlyMap<string, string>;
}

export interface Finding {
  /** `dataLoss`: allowed with --allow-data-loss; the others are always refused. */
  readonly kind: 'dataLoss' | 'needsFill' | 'checkedFill' | 'checkedUnique' | 'computedFill' | 'unsupported' | 'rename';
  /** The model (and field) it is about, in the new model where it exists there. */
  readonly model: string;
  readonly field?: string;
  readonly message: string;
  readonly hint?: string;
  /** A finding that refuses nothing (a rename hint on a field the previous version had already). */
  readonly warning?: true;
  /**
   * A type narrowed whose migration fails on SQLite and PostgreSQL while a stored value does not fit
   * (a shorter `varchar`): stored values are checked, not kept outside the field (SVC3113 is not said).
   */
  readonly checked?: true;
}

export interface StorageDiff {
  readonly changes: readonly TableChange[];
  readonly findings: readonly Finding[];
}

export function diffStorage(previous: StorageModel, next: StorageModel, renames: Renames): StorageDiff {
  const findings: Finding[] = [];
  const before = new Map(previous.tables.map((t) => [t.name, t]));
  const after = new Map(next.tables.map((t) => [t.name, t]));
  const oldNameOf = appliedRenames(renames.tables, before, new Set(after.keys()), (name, from, existed) => {
    const m = after.get(name)!.model;
    findings.push({
      kind: 'rename',
      model: m,
      message: `"_renamed_from" of ${m} names no model of the previous version (${from})${existed ? NOTHING_RENAMED : ''}`,
      hint: `previous models: ${[...before.values()].map((t) => t.model).join(', ') || 'none'}`,
      ...(existed ? { warning: true as const } : {}),
    });
  });
  const sourceOf = (name: string) => matchedName(name, oldNameOf);
  /** Old table → its name now, for every table kept (renamed or not). */
  const kept = new Map(
    [...after.keys()].flatMap((name) => {
      const source = sourceOf(name);
      return source !== undefined && before.has(source) ? [[source, name] as const] : [];
    }),
  );
  // A reference to a renamed table is the same reference (the databases follow the rename); one
  // to a dropped table is not, even when another table takes its name.
  const currentTable = (name: string) => kept.get(name) ?? `${name} (dropped)`;
  const changes: TableChange[] = [];
  for (const table of next.tables) {
    const source = sourceOf(table.name);
    const old = source === undefined ? undefined : before.get(source);
    if (!old) changes.push({ kind: 'create', table });
    else {
      const columns = diffColumns(old, table, renames, currentTable, findings);
      if (
        columns.length ||
        old.name !== table.name ||
        !sameSearch(old, table) ||
        searchIndexChanged(old, table) ||
        uniquesChanged(old, table) ||
        linkRenames(old, table).length
      )
        changes.push({ kind: 'alter', before: old, after: table, columns });
    }
  }
  for (const table of previous.tables) {
    if (kept.has(table.name)) continue;
    changes.push({ kind: 'drop', table });
    findings.push({
      kind: 'dataLoss',
      model: table.model,
      message: `model ${table.model} is removed: table ${table.name} and every ${table.model} in it are dropped`,
      hint: renameHint(`"_renamed_from": "${table.model}"`, 'the schema of the model that replaces it'),
    });
  }
  return { changes, findings };
}

/**
 * The renames to apply, new name → old name, from the hints (`new → old`). A hint the previous
 * version was generated with too has been applied (the storage model keeps it). Otherwise it
 * applies when the previous version has the old name, and the old data follows it, even where the
 * new version has a field of the old name too (a new one) or renames another onto it (a swap). A
 * hint whose old name the previous version lacks names nothing (reported: a warning where the
 * previous version has the new name already, since nothing is renamed).
 */
function appliedRenames(
  hints: ReadonlyMap<string, string>,
  before: ReadonlyMap<string, { readonly renamedFrom: string | null }>,
  after: ReadonlySet<string>,
  reportNothing: (name: string, from: string, existed: boolean) => void,
): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, from] of hints) {
    if (!after.has(name) || before.get(name)?.renamedFrom === from) continue;
    if (before.has(from)) out.set(name, from);
    else reportNothing(name, from, before.has(name));
  }
  return out;
}

/**
 * Said of a hint on a name the previous version had already: nothing is renamed (a typo, or a
 * rename made before svcgen recorded its hints), so it refuses nothing; it is recorded once written.
 */
const NOTHING_RENAMED = ', and the previous version has this one already: nothing is renamed';

/** The previous name of `name`: its rename's source, or itself unless it was renamed away. */
function matchedName(name: string, oldNameOf: ReadonlyMap<string, string>): string | undefined {
  const renamed = oldNameOf.get(name);
  if (renamed !== undefined) return renamed;
  return [...oldNameOf.values()].includes(name) ? undefined : name;
}

function diffColumns(
  before: StoredTable,
  after: StoredTable,
  renames: Renames,
  currentTable: (name: string) => string,
  findings: Finding[],
): ColumnChange[] {
  const old = new Map(before.columns.map((c) => [c.name, c]));
  const hints = new Map(
    [...renames.columns].flatMap(([key, from]) =>
      key.startsWith(`${after.name}.`) ? [[key.slice(after.name.length + 1), from] as const] : [],
    ),
  );
  const oldNameOf = appliedRenames(hints, old, new Set(after.columns.map((c) => c.name)), (name, from, existed) =>
    findings.push({
      kind: 'rename',
      model: after.model,
      field: name,
      message: `"renamed_from" of ${after.model}.${name} names no field of the previous version (${from})${existed ? NOTHING_RENAMED : ''}`,
      hint: `previous fields: ${before.columns.map((c) => c.name).join(', ')}`,
      ...(existed ? { warning: true as const } : {}),
    }),
  );
  const changes: ColumnChange[] = [];
  const kept = new Set<string>();
  for (const column of after.columns) {
    const source = matchedName(column.name, oldNameOf);
    const previous = source === undefined ? undefined : old.get(source);
    if (!previous) {
      changes.push({ kind: 'add', column });
      if (column.primaryKey) {
        findings.push({
          kind: 'unsupported',
          model: after.model,
          field: column.name,
          message: `${after.model}.${column.name} is a new primary key, which a migration cannot give stored rows`,
          hint: 'keep the primary key; add a new model for data keyed differently',
        });
      } else if (column.unique && column.fill.kind !== 'none') {
        findings.push({
          kind: 'needsFill',
          model: after.model,
          field: column.name,
          message: `unique field ${after.model}.${column.name} is added with a default, which every stored row would share`,
          hint: 'add it without a default (stored rows get no value), then fill in unique values',
        });
      } else if (column.notNull && column.fill.kind === 'none' && !column.generated) {
        findings.push({
          kind: 'needsFill',
          model: after.model,
          field: column.name,
          message: `required field ${after.model}.${column.name} is added, and the rows already stored have no value for it`,
          hint: 'give it a literal "default" (existing rows get it), or add it as optional first',
        });
      }
      continue;
    }
    kept.add(previous.name);
    const aspects = columnAspects(previous, column, currentTable);
    if (aspects.size) changes.push({ kind: 'change', before: previous, after: column, aspects });
    checkChange(after.model, previous, column, aspects, findings);
  }
  for (const column of before.columns) {
    if (kept.has(column.name)) continue;
    changes.push({ kind: 'drop', column });
    findings.push({
      kind: 'dataLoss',
      model: after.model,
      field: column.name,
      message: `field ${after.model}.${column.name} is removed: its values are dropped`,
      hint: renameHint(`"renamed_from": "${column.name}"`, "the new field's _db_settings"),
    });
  }
  return changes;
}

function renameHint(setting: string, where: string): string {
  return `if it was renamed, say so with ${setting} in ${where}; to drop it, run generate with --allow-data-loss`;
}

function columnAspects(a: StoredColumn, b: StoredColumn, currentTable: (name: string) => string): Set<Aspect> {
  const aspects = new Set<Aspect>();
  if (a.name !== b.name) aspects.add('name');
  if (a.sqlite !== b.sqlite || a.postgres !== b.postgres || (a.type === 'boolean') !== (b.type === 'boolean'))
    aspects.add('type');
  if (!a.notNull && b.notNull) aspects.add('notNull');
  if (a.notNull && !b.notNull) aspects.add('nullable');
  if (!a.unique && b.unique) aspects.add('unique');
  if (a.unique && !b.unique) aspects.add('notUnique');
  if (!a.indexed && b.indexed) aspects.add('indexed');
  if (a.indexed && !b.indexed) aspects.add('notIndexed');
  const reference = a.references && { ...a.references, table: currentTable(a.references.table) };
  if (JSON.stringify(reference) !== JSON.stringify(b.references)) aspects.add('reference');
  if (a.documentPath !== b.documentPath) aspects.add('documentPath');
  return aspects;
}

function checkChange(
  model: string,
  a: StoredColumn,
  b: StoredColumn,
  aspects: ReadonlySet<Aspect>,
  findings: Finding[],
): void {
  const field = b.name;
  if (a.primaryKey !== b.primaryKey || a.generated !== b.generated || (a.primaryKey && aspects.has('type'))) {
    findings.push({
      kind: 'unsupported',
      model,
      field,
      message: `${model}.${field} changes as a primary key (whether it is one, or its type), which a migration cannot do`,
      hint: 'keep the primary key; add a new model for data keyed differently',
    });
    return;
  }
  // Stored lists keep their items as they were written: a probe's photo URLs were served where the
  // contract now said integers. No migration converts the items of a list.
  if (a.items !== undefined && b.items !== undefined && a.items !== b.items) {
    findings.push({
      kind: 'unsupported',
      model,
      field,
      message: `field ${model}.${field} changes the type of its items from ${a.items} to ${b.items}, which no migration converts: stored lists would keep their ${a.items} items`,
      hint: `keep the item type; or add a new list of ${b.items} beside it, give it values, then remove this one (the generated README's "Moving data between fields")`,
    });
    return;
  }
  if (aspects.has('type') && !convertible(a, b)) {
    findings.push({
      kind: 'unsupported',
      model,
      field,
      message: `field ${model}.${field} changes from ${a.type} to ${b.type}, which no stored value can be converted to (PostgreSQL has no cast from ${a.postgres} to ${b.postgres}, even for an empty table)`,
      hint: `keep the type; or add a new ${b.type} field beside it, give it values, then remove this one (the generated README's "Moving data between fields")`,
    });
    return;
  }
  if (aspects.has('type') && !widens(a, b)) {
    const checked = !temporalChange(a, b) && sqliteRefusesUnconverted(a, b);
    findings.push({
      kind: 'dataLoss',
      model,
      field,
      ...(checked ? { checked: true as const } : {}),
      message: `field ${model}.${field} narrows from ${columnWords(a)} to ${columnWords(b)}: stored values are converted (${
        temporalChange(a, b)
          ? 'on every engine: a datetime keeps its date or time of day in UTC, a date becomes its midnight'
          : checked
            ? 'on SQLite and PostgreSQL a value that does not fit makes the migration fail, and nothing of it is applied; MongoDB keeps it as it is'
            : 'on PostgreSQL a value that does not fit makes the migration fail; SQLite and MongoDB keep it as it is'
      })${checked ? fewerDecimals(a, b) : ''}`,
      hint: narrowingHint(a, b),
    });
  }
  // The unique index is made by the migration, which fails on the first two rows that share a value
  // (and applies nothing): said here, as a field made required is (a probe learnt it at start).
  if (aspects.has('unique')) {
    findings.push({
      kind: 'checkedUnique',
      model,
      field,
      message: `field ${model}.${field} becomes unique: its migration fails, and changes nothing, while two stored rows share a value`,
      hint: 'give those rows values of their own before the migration runs (an admin, a script)',
    });
  }
  // Checked when the migration runs (sql.ts `requiredGuard`, the MongoDB `requireValues` step): a
  // link made required needs no default that would mean nothing (README: make a link a handler needs required).
  if (aspects.has('notNull') && b.fill.kind === 'none') {
    findings.push({
      kind: 'checkedFill',
      model,
      field,
      message: `field ${model}.${field} becomes required: its migration fails, and changes nothing, while a stored row has no value for it`,
      hint: 'give those rows a value before the migration runs, or give the field a literal "default" now, before this is generated (rows without a value then get it): a default given in a later generate reaches no stored row, as this migration is written',
    });
  }
}

/**
 * A column's type as the schema says it (`string of at most 120 characters`, `decimal of 10 digits,
 * 2 after the point`), not as PostgreSQL does (`varchar(120)`, `numeric(10, 2)`): a new user read
 * the latter as types of svcgen's own.
 */
function columnWords(column: StoredColumn): string {
  const characters = /^varchar\((\d+)\)$/.exec(column.postgres);
  if (characters) return `${column.type} of at most ${characters[1]} characters`;
  const digits = decimalDigits(column.postgres);
  if (digits) return `${column.type} of ${digits.precision} digits, ${digits.scale} after the point`;
  return column.type;
}

/**
 * Of a decimal given fewer decimals: that a stored value with more is not rounded, as a new write
 * is, but stops the migration (a probe read "converted" and expected rounding), and how to round them.
 */
function fewerDecimals(a: StoredColumn, b: StoredColumn): string {
  const [had, has] = [decimalDigits(a.postgres), decimalDigits(b.postgres)];
  if (has === undefined || !FRACTIONAL.has(family(a.postgres)) || (had && had.scale <= has.scale)) return '';
  const decimals = `${has.scale} decimal${has.scale === 1 ? '' : 's'}`;
  return `; a stored value with more than ${decimals} is not rounded, as a new write is: it stops the migration (round them first, to ${decimals})`;
}

/** How to keep the values a narrowing would not hold: for an integer into a decimal, the precision that holds them all. */
function narrowingHint(a: StoredColumn, b: StoredColumn): string {
  const otherwise = 'keep the type, or run generate with --allow-data-loss to convert';
  const intDigits = INTEGER_DIGITS[a.postgres];
  const digits = decimalDigits(b.postgres);
  if (intDigits === undefined || !digits) return otherwise;
  const { precision, scale } = digits;
  return `a decimal of ${precision} digits, ${scale} after the point, holds integers of at most ${precision - scale} digits, and ${a.type} values may have ${intDigits}: give it a "precision" of ${scale + intDigits} or more; or, where every stored value fits, run generate with --allow-data-loss`;
}
