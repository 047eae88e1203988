/**
 * Schema evolution: the project keeps the storage model it was generated from
 * (`src/db/storage.json`) and one module per migration (`src/db/migrations/NNNN_<what>.ts`).
 * When the API's storage differs from the kept one, the next migration holds the difference
 * for SQLite, PostgreSQL and MongoDB. Migrations once written are passed through untouched: the
 * databases that ran them check their checksums at every start.
 */
import type { ServiceIR } from '../../ir/types.js';
import type { FieldTypes } from '../shared/field-types.js';
import { commentText, literal, quote, templateLiteral } from '../shared/literal.js';
import { initialSql, referentialAction, type MigrationSql } from './storage/ddl.js';
import type { Aspect, ColumnChange, TableChange } from './storage/changes.js';
import { diffStorage, type Finding, type Renames } from './storage/diff.js';
import type { MigrationHistory } from '../../outdir/history.js';
import { MIGRATION_NAME, MIGRATIONS_DIR, STORAGE_FILE } from '../../outdir/manifest.js';
import { uniquesOf, type StorageModel, type StoredColumn } from '../../outdir/storage-model.js';
import { storageModel } from './storage/model.js';
import { mongoSteps, type MongoStep } from './storage/mongo.js';
import { sameSearch, searchIndexChanged } from './storage/search.js';
import { migrationSql } from './storage/sql.js';
import { eventRenames, eventSql, eventSteps, type EventRenames } from './storage/events.js';
import { linkRenames } from './storage/links.js';
import type { Dialect } from './storage/identifiers.js';
import { indexNameClashes } from './storage/names.js';

export interface NewMigration {
  readonly name: string;
  readonly path: string;
  readonly view: MigrationView;
  /** What it changes, and the data it drops, as its doc comment says it (`generate` prints them). */
  readonly said: readonly string[];
}

export interface MigrationView {
  /** The doc comment: what changed, and what it drops. */
  readonly doc: string;
  /** The same lines, for `npm run migrate -- --dry-run`. */
  readonly summary: string;
  readonly name: string;
  readonly sqlite: string;
  readonly postgres: string;
  readonly mongodb: string;
}

export interface MigrationPlan {
  readonly storage: StorageModel;
  /** The modules `src/db/migrations.ts` lists, in order: the existing ones and the new one. */
  readonly names: readonly string[];
  readonly added: NewMigration | null;
  /** What the change does to stored data; `dataLoss` ones are refused unless allowed. */
  readonly findings: readonly Finding[];
  /** The fields (`Model.field`) this change renames: their stored values are another name's before. */
  readonly renamed: ReadonlySet<string>;
}

const NONE: ReadonlySet<string> = new Set();

export function planMigrations(
  ir: ServiceIR,
  types: FieldTypes,
  history: MigrationHistory,
  options: { allowDataLoss: boolean },
): MigrationPlan {
  const storage = storageModel(ir, types);
  const names = history.migrations.map((m) => m.name);
  const clashes = indexNameClashes(storage);
  if (clashes.length) return { storage, names, added: null, findings: clashes, renamed: NONE };
  if (history.storage === null) {
    // A new project, or one generated before svcgen kept its history: the first migration is
    // every table (the same SQL as then, so databases created by it accept it as applied).
    if (names.length)
      return {
        storage,
        names,
        added: null,
        renamed: NONE,
        findings: [
          {
            kind: 'unsupported',
            model: '',
            message: `${STORAGE_FILE} is missing, but the project has migrations: svcgen cannot tell what they leave`,
          },
        ],
      };
    const added = newMigration(1, 'initial', ['every table of the API'], [], initialSql(storage), []);
    return { storage, names: [added.name], added, findings: [], renamed: NONE };
  }
  const found = diffStorage(history.storage, storage, renamesOf(ir));
  const diff = { ...found, findings: [...found.findings, ...computedDefaults(ir, found.changes)] };
  if (diff.changes.length === 0) return { storage, names, added: null, findings: diff.findings, renamed: NONE };
  const drops = diff.findings.filter((f) => f.kind === 'dataLoss').map((f) => f.message);
  const number = Math.max(0, ...names.map((n) => Number(MIGRATION_NAME.exec(n)?.[1] ?? 0))) + 1;
  const events = eventRenames(diff.changes);
  const added = newMigration(
    number,
    slug(diff.changes),
    describe(diff.changes),
    options.allowDataLoss ? drops : [],
    withEventRenames(migrationSql(diff.changes), events),
    [...mongoSteps(diff.changes), ...eventSteps(events)],
  );
  return {
    storage,
    names: [...names, added.name],
    added,
    findings: diff.findings,
    renamed: renamedFields(diff.changes),
  };
}

function renamedFields(changes: readonly TableChange[]): ReadonlySet<string> {
  return new Set(
    changes.flatMap((c) =>
      c.kind === 'alter'
        ? c.columns.flatMap((col) =>
            col.kind === 'change' && col.aspects.has('name') ? [`${c.after.model}.${col.after.name}`] : [],
          )
        : [],
    ),
  );
}

/** The tables' SQL, then the retained events renamed as the tables were (./storage/events.ts). */
function withEventRenames(sql: MigrationSql, renames: EventRenames): MigrationSql {
  const script = (tables: string, dialect: Dialect) =>
    [tables, ...eventSql(renames, dialect)].filter((part) => part !== '').join('\n\n');
  return { sqlite: script(sql.sqlite, 'sqlite'), postgres: script(sql.postgres, 'postgres') };
}

function newMigration(
  number: number,
  what: string,
  summary: string[],
  drops: string[],
  sql: MigrationSql,
  mongodb: MongoStep[],
): NewMigration {
  const name = `${String(number).padStart(4, '0')}_${what}`;
  // The first migration's scripts keep the shape they always had: their checksums are recorded in databases.
  const script = (text: string) => (text === '' ? "''" : templateLiteral(`\n${text}\n`));
  return {
    name,
    path: `${MIGRATIONS_DIR}/${name}.ts`,
    said: changeLines(summary, drops),
    view: {
      name: quote(name),
      doc: docComment(summary, drops),
      summary: literal([...summary, ...drops.map((d) => `drops data: ${d}`)]),
      sqlite: script(sql.sqlite),
      postgres: script(sql.postgres),
      mongodb: mongodb.length ? `[\n${mongodb.map((s) => `    ${literal(s)},`).join('\n')}\n  ]` : '[]',
    },
  };
}

function docComment(summary: readonly string[], drops: readonly string[]): string {
  const lines = ['What changed:', ...changeLines(summary.map(commentText), drops.map(commentText))];
  return `/**\n${lines.map((l) => (l ? ` * ${l}` : ' *')).join('\n')}\n */`;
}

/** What a migration changes, then (after a blank line) the data it drops. */
function changeLines(summary: readonly string[], drops: readonly string[]): string[] {
  const lines = summary.map((s) => `- ${s}`);
  if (drops.length) lines.push('', 'It drops data (written with --allow-data-loss):', ...drops.map((d) => `- ${d}`));
  return lines;
}

/** The `src/db/migrations.ts` view: every migration module, in order. */
export function migrationsIndexView(names: readonly string[]) {
  return { migrations: names.map((name) => ({ name, variable: `m${name.replace(/[^A-Za-z0-9]/g, '_')}` })) };
}

/**
 * Optional fields added with a default computed per object (`{{invite_code}}`, a function of the
 * project's): a migration cannot run it, so the objects stored before get none. A probe's existing
 * trips were left without an invite code, silently.
 */
function computedDefaults(ir: ServiceIR, changes: readonly TableChange[]): Finding[] {
  return changes.flatMap((change) => {
    if (change.kind !== 'alter') return [];
    const model = ir.models.find((m) => m.name === change.after.model);
    return change.columns.flatMap((c) => {
      const field =
        c.kind === 'add' && !c.column.notNull ? model?.fields.find((f) => f.name === c.column.name) : undefined;
      if (field?.default?.kind !== 'callable') return [];
      const name = field.default.name;
      return [
        {
          kind: 'computedFill' as const,
          model: change.after.model,
          field: field.name,
          message: `${change.after.model}.${field.name} is added with a default computed for each new object ({{${name}}}), which a migration cannot run: the objects stored before get none`,
          hint: `give them values once the migration has run (a script of your own, or an \`update\` added to the migration before it runs anywhere: the README's "Moving data between fields"); where none is meant, "_svcgen_ignore": ["SVC3116"] in the schema silences this`,
          warning: true as const,
        },
      ];
    });
  });
}

export function renamesOf(ir: ServiceIR): Renames {
  const tables = new Map<string, string>();
  const columns = new Map<string, string>();
  for (const model of ir.models) {
    if (model.renamedFrom) tables.set(model.table, model.renamedFrom.toLowerCase());
    for (const field of model.fields)
      if (field.renamedFrom) columns.set(`${model.table}.${field.name}`, field.renamedFrom);
  }
  return { tables, columns };
}

/** One line per change, for the migration's comment. */
function describe(changes: readonly TableChange[]): string[] {
  const lines: string[] = [];
  for (const c of changes) {
    if (c.kind === 'create') lines.push(`new model ${c.table.model} (table ${c.table.name})`);
    else if (c.kind === 'drop') lines.push(`model ${c.table.model} removed (table ${c.table.name} dropped)`);
    else {
      if (c.before.name !== c.after.name)
        lines.push(`model ${c.before.model} renamed to ${c.after.model} (table ${c.before.name} to ${c.after.name})`);
      for (const col of c.columns) lines.push(`${c.after.model}.${columnChangeText(col)}`);
      if (!sameSearch(c.before, c.after))
        lines.push(
          c.after.search.length
            ? `${c.after.model}: full-text search on ${c.after.search.join(', ')}`
            : `${c.after.model}: no full-text search`,
        );
      else if (searchIndexChanged(c.before, c.after))
        lines.push(
          `${c.after.model}: SQLite's search index rebuilt, to be caught up in batches instead of on every write`,
        );
      lines.push(...uniqueSetChanges(c));
      for (const [from, to] of linkRenames(c.before, c.after))
        lines.push(`${c.after.model}.${from} renamed to ${to} (kept in other rows: renamed in the kept events only)`);
    }
  }
  return lines;
}

/** The `_unique_together` sets a kept table gains and loses, by the columns' names now. */
function uniqueSetChanges(change: TableChange & { kind: 'alter' }): string[] {
  const renamed = new Map(
    change.columns.flatMap((c) =>
      c.kind === 'change' && c.aspects.has('name') ? [[c.before.name, c.after.name]] : [],
    ),
  );
  const key = (set: readonly string[]) => [...set].sort().join(', ');
  const before = new Set(uniquesOf(change.before).map((set) => key(set.map((c) => renamed.get(c) ?? c))));
  const after = new Set(uniquesOf(change.after).map(key));
  const model = change.after.model;
  return [
    ...[...after].filter((set) => !before.has(set)).map((set) => `${model}: ${set} now unique together`),
    ...[...before].filter((set) => !after.has(set)).map((set) => `${model}: ${set} no longer unique together`),
  ];
}

const ASPECTS: Readonly<Record<Aspect, string>> = {
  name: '',
  type: 'type',
  notNull: 'now required',
  nullable: 'now optional',
  unique: 'now unique',
  notUnique: 'no longer unique',
  indexed: 'indexed',
  notIndexed: 'no longer indexed',
  reference: 'foreign key',
  documentPath: 'MongoDB field',
};

function columnChangeText(change: ColumnChange): string {
  if (change.kind === 'add') return `${change.column.name} added`;
  if (change.kind === 'drop') return `${change.column.name} removed`;
  const { before, after, aspects } = change;
  const what = [...aspects]
    .filter((a) => a !== 'name' && !(a === 'documentPath' && aspects.has('name')))
    .map((a) => {
      if (a === 'type') return typeChangeText(before, after);
      if (a === 'reference')
        return after.references
          ? `foreign key to ${after.references.table} (on delete ${referentialAction(after.references.onDelete)})`
          : 'no longer a foreign key';
      if (a === 'documentPath') return `MongoDB field ${before.documentPath} to ${after.documentPath}`;
      return ASPECTS[a];
    });
  const name = aspects.has('name') ? `${before.name} renamed to ${after.name}` : after.name;
  return what.length ? `${name}: ${what.join(', ')}` : name;
}

/**
 * A column's new type, by the API's field types and then each engine's own (one summary serves
 * both: a probe's SQLite migration read "integer to double precision", PostgreSQL's words).
 */
function typeChangeText(before: StoredColumn, after: StoredColumn): string {
  const engines = [
    before.sqlite !== after.sqlite ? `${before.sqlite} to ${after.sqlite} on SQLite` : '',
    before.postgres !== after.postgres ? `${before.postgres} to ${after.postgres} on PostgreSQL` : '',
  ].filter((text) => text !== '');
  const sql = engines.length ? ` (${engines.join(', ')})` : '';
  return before.type === after.type ? `${before.type}${sql}` : `${before.type} to ${after.type}${sql}`;
}

/**
 * A name for the migration: what one change does (`add_story_subtitle`, `create_comment`), else
 * the tables it changes (`story_comment`), at most 50 characters.
 */
function slug(changes: readonly TableChange[]): string {
  const single = changes.length === 1 ? singleSlug(changes[0]!) : undefined;
  const words = single ? [single] : changes.map((c) => (c.kind === 'alter' ? c.after.name : c.table.name));
  const clean = [...new Set(words.map((w) => w.toLowerCase().replace(/[^a-z0-9_]+/g, '_')))];
  return joinedWithin(clean[0]!.slice(0, 50), clean.slice(1));
}

function singleSlug(change: TableChange): string | undefined {
  if (change.kind === 'create') return `create_${change.table.name}`;
  if (change.kind === 'drop') return `drop_${change.table.name}`;
  if (change.before.name !== change.after.name)
    return change.columns.length ? undefined : `rename_${change.before.name}_to_${change.after.name}`;
  const [renamedLink] = linkRenames(change.before, change.after);
  if (change.columns.length === 0 && renamedLink)
    return `rename_${change.after.name}_${renamedLink[0]}_to_${renamedLink[1]}`;
  if (change.columns.length === 0)
    return sameSearch(change.before, change.after) && !searchIndexChanged(change.before, change.after)
      ? `unique_${change.after.name}`
      : `search_${change.after.name}`;
  const kinds = new Set(change.columns.map((c) => c.kind));
  // Fields added (or dropped) together: `add_member_given_name_family_name`.
  if (change.columns.length > 1 && kinds.size === 1 && !kinds.has('change')) {
    const names = change.columns.map((c) => (c.kind === 'change' ? c.after.name : c.column.name));
    return joinedWithin(`${[...kinds][0]}_${change.after.name}`, names);
  }
  if (change.columns.length !== 1) return undefined;
  const col = change.columns[0]!;
  if (col.kind === 'add') return `add_${change.after.name}_${col.column.name}`;
  if (col.kind === 'drop') return `drop_${change.after.name}_${col.column.name}`;
  return col.aspects.has('name')
    ? `rename_${change.after.name}_${col.before.name}_to_${col.after.name}`
    : `alter_${change.after.name}_${col.after.name}`;
}

/**
 * `head` and as many of `names` as fit in a migration's name (50 characters, which `slug` cuts a
 * longer one to), then `_and_more`, for which room is kept.
 */
function joinedWithin(head: string, names: readonly string[]): string {
  let out = head;
  for (const [i, name] of names.entries()) {
    const rest = i < names.length - 1 ? '_and_more'.length : 0;
    if (out.length + name.length + 1 + rest > 50) return `${out}_and_more`;
    out += `_${name}`;
  }
  return out;
}

export function storageJson(storage: StorageModel): string {
  return `${JSON.stringify(storage, null, 2)}\n`;
}
