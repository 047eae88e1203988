/**
 * How each field type of the IR is stored (SQLite, PostgreSQL) and described to clients (JSON
 * Schema, from which the TypeScript types are generated). One table, so the three never disagree.
 */
import type { Storage } from '../../../runtime/src/lib/model.js';
import type { FilteredField } from '../../../runtime/src/lib/query-operators.js';
import { INTEGER_RANGE, type Field, type FieldType, type Literal, type Model, type ServiceIR } from '../../ir/types.js';

/** How the runtime keeps a value in the databases (lib/model.ts, lib/values.ts). */
export type { Storage };

const STORAGE: Readonly<Record<Exclude<FieldType, 'foreign_key' | 'relationship' | 'choice'>, Storage>> = {
  string: 'text',
  text: 'text',
  unicode: 'text',
  unicode_text: 'text',
  integer: 'integer',
  big_integer: 'integer',
  small_integer: 'integer',
  float: 'real',
  decimal: 'real',
  boolean: 'boolean',
  datetime: 'datetime',
  date: 'date',
  time: 'time',
  interval: 'integer',
  list: 'json',
  dict: 'json',
  id_field: 'integer',
  file: 'blob',
  pickle: 'json',
};

export class FieldTypes {
  readonly #models: ReadonlyMap<string, Model>;

  constructor(ir: ServiceIR) {
    this.#models = new Map(ir.models.map((m) => [m.name, m]));
  }

  model(name: string): Model {
    const model = this.#models.get(name);
    if (!model) throw new Error(`no model ${name}`);
    return model;
  }

  /** The primary key field of a model. */
  key(model: string): Field {
    const m = this.model(model);
    return m.fields.find((f) => f.name === m.primaryKey)!;
  }

  /** Foreign keys and relationships are stored like the key they hold. */
  storage(model: Model, field: Field): Storage {
    if (field.type === 'foreign_key')
      return this.storage(this.model(field.foreignKey!.model), this.key(field.foreignKey!.model));
    if (field.type === 'relationship') {
      const relation = model.relationships.find((r) => r.name === field.name)!;
      return this.storage(this.model(relation.target), this.key(relation.target));
    }
    if (field.type === 'choice') return choiceStorage(field.choices ?? []);
    return STORAGE[field.type];
  }

  /** The JSON Schema of the value (`null` allowed unless the field is required). */
  valueSchema(model: Model, field: Field): Record<string, unknown> {
    return this.withFieldRules(model, field, this.baseSchema(model, field));
  }

  /**
   * The JSON Schema of the value in a request body: as `valueSchema`, except that a link to an
   * object with an integer key also takes the key's string form, the `_pk` the API returns.
   */
  bodySchema(model: Model, field: Field): Record<string, unknown> {
    if (field.type !== 'relationship') return this.valueSchema(model, field);
    const relation = model.relationships.find((r) => r.name === field.name)!;
    const key = this.keySchema(relation.target);
    if (key['type'] !== 'integer') return this.valueSchema(model, field);
    const either = { ...key, type: ['integer', 'string'], pattern: '^-?[0-9]+$' };
    return this.withFieldRules(
      model,
      field,
      relation.cardinality === 'many' ? { type: 'array', items: either } : either,
    );
  }

  private withFieldRules(model: Model, field: Field, base: Record<string, unknown>): Record<string, unknown> {
    const schema = { ...base, ...this.bounds(field), ...(field.type === 'relationship' ? {} : field.validation) };
    // The schema's own `items` (`{"type": "string"}`) keeps a list's `choices`: they are the field's rule.
    const choices = (base['items'] as { enum?: unknown } | undefined)?.enum;
    if (choices && schema['items'] !== base['items'] && typeof schema['items'] === 'object')
      schema['items'] = { ...(schema['items'] as object), enum: choices };
    if (field.helpText) schema['description'] = field.helpText;
    // A key is never null: a stored object always has it (and an id the database gives is no `null` either).
    return field.required || field.primaryKey || field.type === 'list' || this.isToMany(model, field)
      ? schema
      : nullable(schema);
  }

  /**
   * A field as the runtime's operator table sees it (runtime/src/lib/query-operators.ts): dicts,
   * files and pickles are opaque; lists and to-many relationships hold many values (a list's items
   * take no text operator: a filter on a list asks which values it holds); text; the rest compare.
   */
  filtered(model: Model, field: Field): FilteredField {
    const storage = this.storage(model, field);
    const many = field.type === 'list' || this.isToMany(model, field);
    const opaque = (storage === 'json' || storage === 'blob') && field.type !== 'list';
    return { kind: opaque ? 'opaque' : storage === 'text' ? 'text' : 'comparable', many };
  }

  isToMany(model: Model, field: Field): boolean {
    return (
      field.type === 'relationship' && model.relationships.find((r) => r.name === field.name)?.cardinality === 'many'
    );
  }

  baseSchema(model: Model, field: Field): Record<string, unknown> {
    switch (field.type) {
      case 'string':
      case 'text':
      case 'unicode':
      case 'unicode_text':
        return { type: 'string' };
      case 'integer':
      case 'id_field':
      case 'small_integer':
      case 'big_integer': {
        const [minimum, maximum] = INTEGER_RANGE[field.type];
        return { type: 'integer', minimum, maximum };
      }
      case 'interval':
        return { type: 'integer', minimum: 0, maximum: INTEGER_RANGE.interval[1], description: 'seconds' };
      case 'float':
      case 'decimal':
        return { type: 'number' };
      case 'boolean':
        return { type: 'boolean' };
      case 'datetime':
        return { type: 'string', format: 'date-time' };
      case 'date':
        return { type: 'string', format: 'date' };
      case 'time':
        return { type: 'string', pattern: '^([01]?\\d|2[0-3]):[0-5]\\d(:[0-5]\\d)?$' };
      case 'choice':
        return { enum: [...(field.choices ?? [])] };
      case 'list': {
        const item = itemSchema(field);
        return { type: 'array', items: field.choices?.length ? { ...item, enum: [...field.choices] } : item };
      }
      case 'dict':
        return { type: 'object', additionalProperties: true };
      case 'file':
        // `byte` (base64, as OpenAPI has it) is checked; `contentEncoding` only says so. Node's
        // decoder skips what is not base64, and stored something other than what was sent.
        return { type: 'string', format: 'byte', contentEncoding: 'base64' };
      case 'pickle':
        return {};
      case 'foreign_key':
        return this.keySchema(field.foreignKey!.model);
      case 'relationship': {
        const relation = model.relationships.find((r) => r.name === field.name)!;
        const key = this.keySchema(relation.target);
        return relation.cardinality === 'many' ? { type: 'array', items: key } : key;
      }
    }
  }

  /** A related object's key, as a client writes it: the target key's type and bounds. */
  keySchema(model: string): Record<string, unknown> {
    const target = this.model(model);
    const key = this.key(model);
    const { description: _description, ...base } = this.baseSchema(target, key);
    return { ...base, ...this.bounds(key) };
  }

  /** A foreign key that holds a one-to-one relationship (both sides to-one). */
  isOneToOneLink(model: Model, field: Field): boolean {
    const relationship = model.relationships.find((r) => r.name === field.foreignKey?.relationship);
    if (!relationship || relationship.cardinality !== 'one' || relationship.foreignKey.field !== field.name)
      return false;
    return (
      this.model(relationship.target).relationships.find((r) => r.name === relationship.inverse)?.cardinality === 'one'
    );
  }

  /** The whole numbers an integer column holds (the PostgreSQL type's range), or null. */
  integerRange(model: Model, field: Field): readonly [number, number] | null {
    if (field.type === 'foreign_key')
      return this.integerRange(this.model(field.foreignKey!.model), this.key(field.foreignKey!.model));
    if (field.type === 'relationship') {
      const relation = model.relationships.find((r) => r.name === field.name)!;
      return this.integerRange(this.model(relation.target), this.key(relation.target));
    }
    return field.type in INTEGER_RANGE ? INTEGER_RANGE[field.type as keyof typeof INTEGER_RANGE] : null;
  }

  bounds(field: Field): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    if (field.minLength !== null) out['minLength'] = field.minLength;
    if (field.maxLength !== null) out['maxLength'] = field.maxLength;
    if (field.minValue !== null) out['minimum'] = field.minValue;
    if (field.maxValue !== null) out['maximum'] = field.maxValue;
    // Decimals are rounded to their scale when stored (as PostgreSQL's numeric(p, s) does): a value
    // must still fit the integer digits after rounding. (`multipleOf` cannot say "s digits": 0.1
    // is no multiple of 1e-10 in floating point.)
    if (field.type === 'decimal' && (field.precision !== null || field.scale !== null)) {
      const scale = field.scale ?? 0;
      const limit = 10 ** ((field.precision ?? DEFAULT_PRECISION) - scale) - 0.5 * 10 ** -scale;
      // Only where min_value/max_value do not already say more: a redundant bound would read as a
      // new one to clients (and to `svcgen diff`).
      if (field.maxValue === null || field.maxValue >= limit) out['exclusiveMaximum'] = limit;
      if (field.minValue === null || field.minValue <= -limit) out['exclusiveMinimum'] = -limit;
    }
    return out;
  }

  /** SQL column type. */
  sqlType(model: Model, field: Field, dialect: 'sqlite' | 'postgres'): string {
    if (field.type === 'foreign_key') {
      const key = this.key(field.foreignKey!.model);
      return key.type === 'id_field' ? 'integer' : this.sqlType(this.model(field.foreignKey!.model), key, dialect);
    }
    if (dialect === 'sqlite') return SQLITE[this.storage(model, field)];
    switch (field.type) {
      case 'string':
      case 'unicode':
        return field.maxLength !== null ? `varchar(${field.maxLength})` : 'text';
      case 'text':
      case 'unicode_text':
        return 'text';
      case 'integer':
      case 'id_field':
      case 'interval':
        return 'integer';
      case 'small_integer':
        return 'smallint';
      case 'big_integer':
        return 'bigint';
      case 'float':
        return 'double precision';
      case 'decimal':
        return field.precision !== null || field.scale !== null
          ? `numeric(${field.precision ?? DEFAULT_PRECISION}, ${field.scale ?? 0})`
          : 'numeric';
      case 'boolean':
        return 'boolean';
      case 'datetime':
        return 'timestamptz';
      case 'date':
        return 'date';
      case 'time':
        return 'time';
      case 'choice':
        return CHOICE_COLUMN[choiceStorage(field.choices ?? [])] ?? 'text';
      case 'list':
      case 'dict':
      case 'pickle':
        return 'jsonb';
      case 'file':
        return 'bytea';
      case 'relationship':
        return 'text';
    }
  }
}

/** The user's password is stored as an argon2id hash and never returned (nor documented as returned). */
export function isSecretField(model: Model, field: Field): boolean {
  return model.isAuthModel && field.name === 'password';
}

/** numeric(p, s) with only a scale given. */
export const DEFAULT_PRECISION = 38;

const SQLITE: Readonly<Record<Storage, string>> = {
  text: 'text',
  integer: 'integer',
  real: 'real',
  boolean: 'integer',
  json: 'text',
  datetime: 'text',
  date: 'text',
  time: 'text',
  blob: 'blob',
};

const CHOICE_COLUMN: Partial<Record<Storage, string>> = { text: 'text', integer: 'integer', real: 'double precision' };

function choiceStorage(choices: readonly Literal[]): Storage {
  if (choices.length && choices.every((c) => typeof c === 'number' && Number.isInteger(c))) return 'integer';
  if (choices.length && choices.every((c) => typeof c === 'number')) return 'real';
  return 'text';
}

/**
 * How a list field's items are stored (`integer`, `real`, `boolean`…), as a field of their type
 * would be; `text` for items of no storable type (a list of choices, of links).
 */
export function itemStorage(field: Field): Storage {
  const type = field.itemType;
  return type && type in STORAGE ? STORAGE[type as keyof typeof STORAGE] : 'text';
}

function itemSchema(field: Field): Record<string, unknown> {
  switch (itemStorage(field)) {
    case 'integer':
      return { type: 'integer' };
    case 'real':
      return { type: 'number' };
    case 'boolean':
      return { type: 'boolean' };
    default:
      return { type: 'string' };
  }
}

/**
 * `schema`, taking null too: in its `enum` (if it has one) and its `type`. One that has null
 * already (`"enum": ["EU", null]`, the usual way to write a nullable one) keeps it once: null twice
 * is an invalid schema, and Fastify refused to start a probe's service for it. Both, where both
 * are: `{"type": "string", "enum": ["card", null]}` took no null (a probe's payment method, which
 * a client could read as null and never send as null).
 */
function nullable(schema: Record<string, unknown>): Record<string, unknown> {
  const values = schema['enum'];
  const withEnum = Array.isArray(values) && !values.includes(null) ? { ...schema, enum: [...values, null] } : schema;
  const type = withEnum['type'];
  if (typeof type === 'string') return { ...withEnum, type: [type, 'null'] };
  if (Array.isArray(type))
    return type.includes('null') ? withEnum : { ...withEnum, type: [...(type as string[]), 'null'] };
  if (Array.isArray(values) || Object.keys(schema).length === 0 || !('type' in schema)) return withEnum;
  return { anyOf: [schema, { type: 'null' }] };
}
