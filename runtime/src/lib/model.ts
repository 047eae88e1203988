/**
 * What the service knows about each model: its fields, how they are stored, its relationships.
 * Each `src/models/<model>.ts` defines one with `defineModel`; the repositories, the query
 * language, validation and serialization all read it.
 */
import { text } from './text.js';
export type FieldType =
  | 'string'
  | 'text'
  | 'unicode'
  | 'unicode_text'
  | 'integer'
  | 'big_integer'
  | 'small_integer'
  | 'float'
  | 'decimal'
  | 'boolean'
  | 'datetime'
  | 'date'
  | 'time'
  | 'interval'
  | 'choice'
  | 'list'
  | 'dict'
  | 'id_field'
  | 'file'
  | 'pickle'
  | 'foreign_key'
  | 'relationship';

/** The types whose values full-text search finds by their words (unless a field's `_db_settings.search` is false). */
export const TEXT_FIELD_TYPES: ReadonlySet<FieldType> = new Set<FieldType>([
  'string',
  'text',
  'unicode',
  'unicode_text',
]);

/** How a value is kept in the databases (see values.ts). */
export type Storage = 'text' | 'integer' | 'real' | 'boolean' | 'json' | 'datetime' | 'date' | 'time' | 'blob';

export interface FieldSpec {
  readonly name: string;
  readonly type: FieldType;
  readonly storage: Storage;
  /** The column, or null for a relationship kept in another table's foreign key. */
  readonly column: string | null;
  readonly primaryKey: boolean;
  /** Set by the database (an auto-increment id); never written by clients. */
  readonly generated: boolean;
  readonly required: boolean;
  readonly requiredOnCreate: boolean;
  /** Clients may send it (not generated, not a foreign key). */
  readonly writable: boolean;
  /**
   * `readOnly: true` in its schema (or on its link): only admins send it; the service's own code
   * (handlers, processors, defaults) sets it for everyone else.
   */
  readonly readOnly?: boolean;
  /**
   * `"_write_once": true` in its schema (or on its link): sent in a create by whoever may create;
   * afterwards only admins change it (and the service's own code). A PUT that leaves it out keeps it.
   */
  readonly writeOnce?: boolean;
  /** Its name before this version of the API (`_db_settings.renamed_from`): a query by that name is told this one. */
  readonly renamedFrom?: string;
  readonly default?: () => unknown;
  /**
   * The default is computed when the object is created (`{{now}}`, a callable of the API), not a
   * constant: a PUT that leaves the field out keeps the value it got then (Ramses set it to null).
   */
  readonly defaultIsComputed?: boolean;
  readonly onUpdate?: () => unknown;
  /** The relationship this field is (for `relationship` fields) or stores (for `foreign_key` fields). */
  readonly relation?: string;
  /** For `list` fields: the type of the items. */
  readonly itemType?: FieldType;
  readonly choices?: readonly unknown[];
  /** For `decimal` fields: the digits kept after the point. */
  readonly scale?: number;
  /** For integer columns (and links to integer keys): the whole numbers the column holds. */
  readonly range?: readonly [number, number];
  /** A password: stored as a hash, never returned, never filtered or sorted on. */
  readonly secret?: boolean;
  /** No two objects share a value (null excepted): a unique column, or a unique index on MongoDB. */
  readonly unique?: boolean;
  /** `_db_settings.index`: an index of its own (SQL migrations make it; MongoDB's start-up, `<field>_svc_index`). */
  readonly index?: boolean;
}

/** A whole number the field's column can hold, or undefined. */
export function wholeNumber(field: FieldSpec, value: unknown): number | undefined {
  const n =
    typeof value === 'number' ? value : typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n)) return undefined;
  return field.range && (n < field.range[0] || n > field.range[1]) ? undefined : n;
}

/**
 * A key as the databases compare it; undefined when it cannot be one (e.g. "abc" for an integer
 * key). An integer key written as text must be written as the service writes it: `01` or `-0`
 * names no object, so that one object has one URL (for caches, logs and what a client compares).
 */
export function keyValue(model: Model, key: unknown): unknown {
  const field = model.field(model.primaryKey)!;
  if (field.storage === 'integer') {
    if (typeof key === 'string' && !/^(0|-?[1-9]\d*)$/.test(key)) return undefined;
    return wholeNumber(field, key);
  }
  return key === null || key === undefined ? undefined : text(key);
}

/** The key in `{ where: { <primary key>: key } }`, the only `where` that update and delete take. */
export function keyOfWhere(model: Model, where: Record<string, unknown>): unknown {
  const key = where[model.primaryKey];
  if (key === undefined || Object.keys(where).length !== 1)
    throw new Error(`${model.name}: update and delete take { where: { ${model.primaryKey} } }`);
  return key;
}

export interface RelationSpec {
  readonly name: string;
  readonly target: string;
  readonly cardinality: 'one' | 'many';
  /** The name of the other side on the target. */
  readonly inverse: string;
  /** The foreign key column that links the two sides: in this model's table when `local`, else in the target's. */
  readonly foreignKey: string;
  /** This side holds the related key in its own table (a to-one link). */
  readonly local: boolean;
  /** What deleting an object of this model does to the related objects: delete them, unlink them, or refuse (409). */
  readonly onDelete: 'cascade' | 'nullify' | 'restrict';
  /**
   * A local link: the nested routes that create objects of this model below the link's target
   * (`/spaces/{id}/memberships` for a membership's `space`). Their collection rules say who may put
   * an object below a target, so a write that links one there asks them too (http/relinks.ts).
   */
  readonly createdBelow?: readonly CreatedBelow[];
}

/** A nested route that creates objects below a parent: its kind and its x-ACL (null: admins only). */
export interface CreatedBelow {
  readonly kind: 'collection' | 'singular';
  readonly acl: string | null;
}

export interface ModelSpec<T = Record<string, unknown>> {
  readonly name: string;
  readonly table: string;
  readonly primaryKey: keyof T & string;
  readonly fields: readonly FieldSpec[];
  readonly relations: readonly RelationSpec[];
  /** Relationships embedded as objects in responses (`_nested_relationships`), and how deep. */
  readonly nestedRelationships: readonly string[];
  readonly nestingDepth: number;
  /** Field visibility (auth on): null means every field. */
  readonly publicFields: readonly string[] | null;
  readonly authFields: readonly string[] | null;
  readonly hiddenFields: readonly string[];
  /** `_group_fields`: per group (named without `g:`), the fields its members see besides `authFields`. */
  readonly groupFields?: Readonly<Record<string, readonly string[]>>;
  /** The fields full-text search (`q`) looks in, in the schema's order (lib/search.ts). */
  readonly searchFields: readonly string[];
  /**
   * `_unique_together`: sets of stored fields (a link by its foreign key) no two objects share all
   * values of; an object with any of them null is in no set. SQL keeps them by the migrations'
   * unique indexes, MongoDB by partial ones made at start-up (lib/mongo/indexes.ts).
   */
  readonly uniqueTogether?: readonly (readonly string[])[];
  /**
   * `_event_previous`: update and replace events carry `previous` (the object as it was, read
   * under the write's row lock) and `changed` (the fields whose values differ). Its updates take
   * the transaction path, never the one-statement write.
   */
  readonly eventPrevious?: boolean;
  /** svcgen's own model (login credentials, the login brake's counts): of no route, in no event. */
  readonly internal?: boolean;
  /**
   * The route whose x-ACL decides who may view or change an object of this model wherever it
   * appears: embedded in another's response, or re-linked by another's relationship write. Its own
   * item route, else its collection route; null when no route serves it (admins only, with auth on).
   * `updatable`: whether a route updates its objects; where none does, only admins move their links.
   * `deletable`: whether a route deletes them; where none does, only admins' deletes take them along.
   * `updateRules`, `deleteRules`: the rules of the route that does, where they are not these.
   */
  readonly aclRoute: {
    readonly kind: 'item' | 'collection';
    readonly acl: string | null;
    readonly updatable: boolean;
    readonly deletable?: boolean;
    readonly updateRules?: { readonly kind: 'item' | 'collection'; readonly acl: string | null };
    readonly deleteRules?: { readonly kind: 'item' | 'collection'; readonly acl: string | null };
  } | null;
  /** The path of an object's own URL below the base path (its `_self`), or null when it has none. */
  selfPath(record: T): string | null;
}

export interface Model<T = Record<string, unknown>> extends ModelSpec<T> {
  field(name: string): FieldSpec | undefined;
  relation(name: string): RelationSpec | undefined;
  /** Fields stored in this model's table, in order. */
  readonly columns: readonly FieldSpec[];
  /**
   * Each field's JSON Schema, as request bodies check it (the model file's `…Properties`): what
   * the model's own code gives a field is held to it too (lib/http/written-values.ts).
   */
  readonly properties?: Readonly<Record<string, object>>;
}

export function defineModel<T>(spec: ModelSpec<T>, properties?: Readonly<Record<string, object>>): Model<T> {
  const fields = new Map(spec.fields.map((f) => [f.name, f]));
  if (properties) rememberRenames(spec.fields, properties);
  const relations = new Map(spec.relations.map((r) => [r.name, r]));
  return {
    ...spec,
    ...(properties ? { properties } : {}),
    field: (name) => fields.get(name),
    relation: (name) => relations.get(name),
    columns: spec.fields.filter((f) => f.column !== null),
  };
}

/** Each field's JSON Schema (a model's `properties`) → the model's fields by their names before this version. */
const renamesBySchema = new WeakMap<object, ReadonlyMap<string, string>>();

function rememberRenames(fields: readonly FieldSpec[], properties: Readonly<Record<string, object>>): void {
  const renames = new Map(
    fields.flatMap((f) => (f.renamedFrom !== undefined ? [[f.renamedFrom, f.name] as const] : [])),
  );
  if (renames.size === 0) return;
  for (const schema of Object.values(properties)) renamesBySchema.set(schema, renames);
}

/**
 * The field a body's `name` is called now, where `name` was its name before this version of the API
 * and the body's schema (its `properties`, or a copy with more names: a change's body) still takes it.
 */
export function renamedInBody(properties: Readonly<Record<string, unknown>>, name: string): string | undefined {
  for (const schema of Object.values(properties)) {
    const now = typeof schema === 'object' && schema !== null ? renamesBySchema.get(schema)?.get(name) : undefined;
    if (now !== undefined && now in properties) return now;
  }
  return undefined;
}

/**
 * A key a create may not give: `.` and `..`, which every URL resolver takes for path segments
 * (`/users/..` is `/`), so that the object's `_self`, its `Location` and the client's URLs would
 * name another path. As a list of field errors: none, or one.
 */
export function unnamableKey(
  model: Model,
  body: Readonly<Record<string, unknown>>,
): { field: string; message: string }[] {
  const key = body[model.primaryKey];
  if (key === '.' || key === '..')
    return [{ field: model.primaryKey, message: `cannot be "${key}": a URL would resolve it as a path segment` }];
  // No URL names an empty key (`/labels/` is the list): its object could never be read, changed or deleted.
  if (typeof key === 'string' && key.trim() === '')
    return [{ field: model.primaryKey, message: 'cannot be empty: no URL would name its object' }];
  return [];
}

/**
 * A create's key, once its handlers and defaults have had their say: a key the service does not make
 * up (anything but an `id_field`) must be given, and be one a URL names. PostgreSQL refused a create without one, where
 * SQLite made an integer key up and MongoDB stored none; the route schema leaves it optional, so that
 * a handler (`setFieldValue`) or a default may give it.
 */
export function missingKey(
  model: Model,
  data: Readonly<Record<string, unknown>>,
): { field: string; message: string }[] {
  const key = model.field(model.primaryKey);
  if (!key || key.generated) return [];
  const value = data[model.primaryKey];
  if (value === undefined || value === null) return [{ field: model.primaryKey, message: 'is required' }];
  // As the body's key is held to: a handler's or a default's empty key was stored, and named by no URL.
  return unnamableKey(model, data);
}

/**
 * `data` with the defaults of the stored fields it leaves out: the routes apply them before a
 * create's handlers run, and the repositories to what the service's code creates (`event.db`),
 * which their create types let leave out.
 */
export function withDefaults(
  model: Model,
  data: Readonly<Record<string, unknown>>,
  only: (field: FieldSpec) => boolean = () => true,
): Record<string, unknown> {
  const out = { ...data };
  for (const field of model.columns) {
    if (!only(field)) continue;
    // A foreign key's default is for objects created without a link: a link given wins.
    const linked = field.type === 'foreign_key' && field.relation !== undefined && out[field.relation] !== undefined;
    if (out[field.name] === undefined && field.default && !linked) out[field.name] = computed(model, field);
  }
  return out;
}

/**
 * The default of `field`. One that a user function computes (`{{make_code}}`) is held to the
 * field's storage: stubs made before they were typed return `unknown`, and a probe's text in an
 * integer column was stored as it was (SQLite keeps it), shown as null and counted by `__gt`.
 * Not a client's mistake: an error of the service's (500), which names the field.
 */
function computed(model: Model, field: FieldSpec): unknown {
  const value = field.default!();
  if (field.defaultIsComputed && !fitsStorage(field, value))
    throw new Error(
      `the default of ${model.name}.${field.name} gave ${typeof value}, which its ${field.type} field cannot store`,
    );
  return value;
}

function fitsStorage(field: FieldSpec, value: unknown): boolean {
  if (value === null || value === undefined) return true;
  switch (field.storage) {
    case 'integer':
      return Number.isSafeInteger(value);
    case 'real':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'json':
      return true;
    default:
      return typeof value === 'string';
  }
}

/** Every model of the service by name, for following relationships. */
export type ModelRegistry = ReadonlyMap<string, Model>;

/** A model of any record type (`Model<Story>` is one; it is not a `Model<Record<string, unknown>>`). */
export type AnyModel = Model<never>;

/** The same model, read generically: records as plain objects. */
export function generic(model: AnyModel): Model {
  return model as unknown as Model;
}

/** The names of the API's models, which events name: not svcgen's own (`internal`). */
export function apiModelNames(models: ModelRegistry): string[] {
  return [...models.values()].filter((model) => !model.internal).map((model) => model.name);
}

export function modelRegistry(models: readonly AnyModel[]): ModelRegistry {
  return new Map(models.map((m) => [m.name, generic(m)]));
}
