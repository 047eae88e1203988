/**
 * A schema property becomes a field when it has `_db_settings`. This reads one
 * property into a field draft, checking types and parameters; relationships and foreign keys are
 * resolved later, when every model is known.
 */
import { checkKeywordSpelling, ownKeyUnmarked, RULE_KEYWORDS } from './keywords.js';
import { literalProblem } from './default-values.js';
import type { DiagnosticBag } from '../../diagnostics/diagnostic.js';
import { withArticle } from '../../util/article.js';
import type { Span } from '../../diagnostics/source.js';
import { get, isMap, isScalar, isSeq, toPlain, type YEntry, type YMap, type YNode } from '../../load/ynode.js';
import { closest, didYouMean } from '../../util/suggest.js';
import { validationKeywords } from './validation.js';
import { fieldNameProblem, isSafeIdentifier, reservedWordHint } from '../naming.js';
import {
  FIELD_TYPES,
  TEXT_FIELD_TYPES,
  type Field,
  type FieldType,
  type Literal,
  type ReferentialAction,
  type ScalarFieldType,
  type ValueSource,
} from '../types.js';

/** Significant digits a JSON number (a 64-bit float) keeps exactly; the runtime refuses a decimal with more (values.ts `EXACT_DIGITS`). */
const EXACT_DIGITS = 15;

/** `_db_settings.type` spellings from Ramses' documentation, accepted as aliases. */
export const TYPE_ALIASES: Readonly<Record<string, FieldType>> = {
  unicodetext: 'unicode_text',
  biginteger: 'big_integer',
  smallinteger: 'small_integer',
  binary: 'file',
};

/** The names SQL and JSON Schema give svcgen's types: not taken (a type has one name), but named in the hint. */
const OTHER_NAMES: Readonly<Record<string, FieldType>> = {
  smallint: 'small_integer',
  bigint: 'big_integer',
  int: 'integer',
  serial: 'id_field',
  varchar: 'string',
  char: 'string',
  bool: 'boolean',
  timestamp: 'datetime',
  timestamptz: 'datetime',
  double: 'float',
  real: 'float',
  numeric: 'decimal',
  number: 'float',
  json: 'dict',
  jsonb: 'dict',
  array: 'list',
  object: 'dict',
  blob: 'file',
};

/** `table[name]` of the table's own names: `constructor` or `__proto__` is no type (an object's own keys only). */
function ownValue<V>(table: Readonly<Record<string, V>>, name: string): V | undefined {
  return Object.hasOwn(table, name) ? table[name] : undefined;
}

export const COMMON_SETTINGS = [
  'type',
  'primary_key',
  'required',
  'unique',
  'index',
  'default',
  'onupdate',
  'help_text',
  'renamed_from',
];
export const SETTINGS_BY_TYPE: Readonly<Record<string, readonly string[]>> = {
  string: ['min_length', 'max_length', 'search'],
  text: ['min_length', 'max_length', 'search'],
  unicode: ['min_length', 'max_length', 'search'],
  unicode_text: ['min_length', 'max_length', 'search'],
  integer: ['min_value', 'max_value'],
  big_integer: ['min_value', 'max_value'],
  small_integer: ['min_value', 'max_value'],
  float: ['min_value', 'max_value', 'precision'],
  decimal: ['min_value', 'max_value', 'scale', 'precision'],
  choice: ['choices'],
  list: ['item_type', 'choices'],
  foreign_key: ['ref_document', 'ref_column', 'ref_column_type', 'ref_ondelete', 'ref_onupdate'],
  relationship: ['document', 'backref_name', 'uselist', 'foreign_keys', 'ondelete', 'backref_ondelete'],
};

/** Keys of a schema property (not of its `_db_settings`) that users put inside by mistake. */
export const PROPERTY_KEYS: ReadonlySet<string> = new Set(['_processors', '_backref_processors', '_write_once']);

/** Ramses engine options svcgen accepts silently because they change nothing here. */
export const IGNORED_SETTINGS = new Set([
  'name',
  'autoincrement',
  'collation',
  'convert_unicode',
  'asdecimal',
  'timezone',
  'length',
  'backref_uselist',
  'lazy',
]);

export const SCALAR_TYPES: readonly ScalarFieldType[] = FIELD_TYPES.filter(
  (t): t is ScalarFieldType => !['list', 'dict', 'relationship', 'pickle'].includes(t),
);

/** A `type: relationship` field as written, before its target is resolved. */
export interface RelationshipDecl {
  readonly document: string;
  readonly documentSpan: Span;
  readonly backrefName: string | null;
  readonly backrefSpan: Span;
  readonly uselist: boolean;
  readonly foreignKeys: string | null;
  readonly foreignKeysSpan: Span | null;
  readonly onDelete: ReferentialAction | null;
  readonly backrefOnDelete: ReferentialAction | null;
  /** Where `ondelete` or else `backref_ondelete` is written, for the warning that they do not decide. */
  readonly onDeleteSpan: Span | null;
  readonly backrefProcessors: readonly string[];
}

/** A `type: foreign_key` field as written. */
/** Number fields: `choices` means nothing for them; JSON Schema's `enum` does it (SVC2012's hint). */
const NUMBER_TYPES: ReadonlySet<string> = new Set(['integer', 'big_integer', 'small_integer', 'float', 'decimal']);

export interface ForeignKeyDecl {
  readonly refDocument: string;
  readonly refDocumentSpan: Span;
  readonly refColumn: string;
  readonly refColumnSpan: Span;
  readonly refColumnType: string;
  readonly refColumnTypeSpan: Span;
  readonly onDelete: ReferentialAction;
  /** Whether `ref_ondelete` was written (else `onDelete` is the default for the key's `required`). */
  readonly onDeleteSaid: boolean;
  readonly onUpdate: ReferentialAction;
}

export type MutableField = { -readonly [K in keyof Field]: Field[K] };

export interface FieldDraft {
  readonly field: MutableField;
  /** The property name in the schema. */
  readonly nameSpan: Span;
  readonly typeSpan: Span;
  readonly relationship?: RelationshipDecl;
  readonly foreignKey?: ForeignKeyDecl;
  /** Where each processor name is written. */
  readonly processorSpans: readonly Span[];
}

interface FieldContext {
  readonly diagnostics: DiagnosticBag;
  readonly model: string;
  /** The schema's root, where local `$ref`s point. */
  readonly root?: YMap;
}

const JSON_TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'];

/**
 * A property whose JSON Schema `type` names no JSON type (`"strin"`, `"date-time"`): the storage
 * comes from `_db_settings`, but the OpenAPI document and its clients take the schema as written.
 */
function checkJsonType(ctx: FieldContext, name: string, property: YMap): void {
  const type = get(property, 'type');
  for (const item of isSeq(type) ? type.items : type ? [type] : []) {
    if (!isScalar(item) || typeof item.value !== 'string' || JSON_TYPES.includes(item.value)) continue;
    ctx.diagnostics.report('SVC2068', `"${item.value}" is not a JSON type (the "type" of "${name}" in ${ctx.model})`, {
      span: item.span,
      hint: jsonTypeHint(item.value),
    });
  }
}

/** The JSON types a value of each storage type can be written as (types not listed: any). */
const JSON_TYPES_OF: Partial<Record<FieldType, readonly string[]>> = {
  string: ['string'],
  text: ['string'],
  unicode: ['string'],
  unicode_text: ['string'],
  integer: ['integer', 'number'],
  small_integer: ['integer', 'number'],
  big_integer: ['integer', 'number'],
  float: ['number', 'integer'],
  decimal: ['number', 'integer'],
  boolean: ['boolean'],
  datetime: ['string'],
  date: ['string'],
  time: ['string'],
  interval: ['integer', 'number'],
  list: ['array'],
  dict: ['object'],
};

/**
 * A property whose JSON Schema `type` no value of its `_db_settings` type can have (`"integer"`
 * on a `string` field): the field is stored and validated by `_db_settings`, so the JSON type
 * only misleads whoever reads the schema.
 */
/** The JSON Schema `format` each temporal field type's values have. */
const TEMPORAL_FORMATS: Partial<Record<FieldType, string>> = { date: 'date', datetime: 'date-time', time: 'time' };

/**
 * A temporal field whose JSON `format` is another temporal one (`"format": "date"` on a
 * `datetime`): the field is stored and answered by its `_db_settings` type.
 */
function checkFormatAgrees(ctx: FieldContext, name: string, property: YMap, type: FieldType): void {
  const own = TEMPORAL_FORMATS[type];
  const node = get(property, 'format');
  if (!own || !isScalar(node) || typeof node.value !== 'string') return;
  const written = node.value;
  if (written === own || !Object.values(TEMPORAL_FORMATS).includes(written)) return;
  const meant = Object.entries(TEMPORAL_FORMATS).find(([, format]) => format === written)?.[0];
  ctx.diagnostics.report(
    'SVC2075',
    `"${name}" of ${ctx.model} is ${withArticle(type)} field, but its JSON "format" says ${written}: svcgen stores, checks and answers ${withArticle(type)} (${own})`,
    {
      span: node.span,
      hint: `write "format": "${own}", or make "_db_settings" type "${meant ?? type}" if you meant ${written}`,
    },
  );
}

function checkJsonTypeAgrees(ctx: FieldContext, name: string, property: YMap, type: FieldType): void {
  const allowed = type === 'relationship' ? relationshipJsonTypes(property) : JSON_TYPES_OF[type];
  const node = get(property, 'type');
  const written = (isSeq(node) ? node.items : node ? [node] : [])
    .filter(isScalar)
    .map((item) => item.text)
    .filter((t) => t !== 'null' && JSON_TYPES.includes(t));
  if (!allowed || written.length === 0 || written.some((t) => allowed.includes(t))) return;
  if (type === 'relationship') {
    const many = allowed.includes('array');
    ctx.diagnostics.report(
      'SVC2075',
      `"${name}" of ${ctx.model} links ${many ? 'many objects (a list of keys)' : 'one object (its key)'}, but its JSON "type" says ${written.join(' or ')}: svcgen links by "uselist"`,
      {
        span: node!.span,
        hint: many
          ? `write "type": "array" for a list, or "uselist": false for one related object`
          : `"uselist": false links one object: take it out for a list (write "type": "array"), or write the key's type`,
      },
    );
    return;
  }
  ctx.diagnostics.report(
    'SVC2075',
    `"${name}" of ${ctx.model} is ${withArticle(type)} field, but its JSON "type" says ${written.join(' or ')}: svcgen stores and validates ${withArticle(type)}`,
    { span: node!.span, hint: `write "type": "${allowed[0]!}", or change "_db_settings" to the type you meant` },
  );
}

/**
 * The JSON types a relationship's value can have: a list of keys where it links many (`uselist`,
 * true unless said), else one key, or the object embedded. A `"uselist": false` under an array
 * type made a probe's sign-ups one per work day, silently.
 */
function relationshipJsonTypes(property: YMap): readonly string[] {
  const settings = get(property, '_db_settings');
  const uselist = isMap(settings) ? get(settings, 'uselist') : undefined;
  const one = isScalar(uselist) && uselist.value === false;
  return one ? ['integer', 'number', 'string', 'object'] : ['array'];
}

function jsonTypeHint(written: string): string {
  if (/^date(-?time)?$|^time$/i.test(written)) return `write "type": "string" with "format": "${formatOf(written)}"`;
  return didYouMean(written, JSON_TYPES) ?? `use one of ${JSON_TYPES.join(', ')}`;
}

function formatOf(written: string): string {
  const lower = written.toLowerCase();
  return lower === 'datetime' ? 'date-time' : lower;
}

/** Reads one schema property; undefined when it is documentation only (no `_db_settings`) or unusable. */
export function readField(
  ctx: FieldContext,
  property: YEntry,
  rootRequired: ReadonlySet<string>,
): FieldDraft | undefined {
  const name = property.key.text;
  if (!isMap(property.value)) return undefined;
  checkJsonType(ctx, name, property.value);
  checkKeywordSpelling(ctx.diagnostics, property.value, 'property');
  const settingsEntry = property.value.entries.find((e) => e.key.text === '_db_settings');
  if (!settingsEntry) return undefined;
  if (!isMap(settingsEntry.value)) {
    ctx.diagnostics.report('SVC2003', `"_db_settings" of "${name}" must be an object`, {
      span: settingsEntry.value.span,
    });
    return undefined;
  }
  const problem = fieldNameProblem(name);
  if (problem) {
    ctx.diagnostics.report('SVC2004', `field "${name}" of ${ctx.model} cannot be used: ${problem}`, {
      span: property.key.span,
      hint: 'rename the property',
    });
    return undefined;
  }
  const settings = settingsEntry.value;
  const typeEntry = settings.entries.find((e) => e.key.text === 'type');
  const type = readType(ctx, name, typeEntry);
  if (!type) return undefined;
  checkJsonTypeAgrees(ctx, name, property.value, type);
  checkFormatAgrees(ctx, name, property.value, type);
  const reader = new SettingsReader(ctx, name, type, settings);
  const field: MutableField = {
    name,
    type,
    primaryKey: reader.boolean('primary_key') ?? false,
    required: (reader.boolean('required') ?? false) || rootRequired.has(name) || draft3Required(property.value),
    requiredOnCreate: false,
    unique: reader.boolean('unique') ?? false,
    index: reader.boolean('index') ?? false,
    search: TEXT_FIELD_TYPES.has(type) && (reader.boolean('search') ?? true),
    generated: false,
    readOnly: writeRule(ctx, name, property.value, 'readOnly'),
    writeOnce: writeRule(ctx, name, property.value, '_write_once'),
    default: reader.valueSource('default'),
    onUpdate: reader.valueSource('onupdate'),
    minLength: reader.count('min_length', 0),
    // 0 would let only the empty text in: a slip, not a field.
    maxLength: reader.count('max_length', 1),
    minValue: reader.number('min_value'),
    maxValue: reader.number('max_value'),
    choices: reader.choices(),
    itemType: reader.itemType(),
    // PostgreSQL's numeric takes at most 1,000 digits.
    scale: reader.count('scale', 0, 1000),
    precision: reader.count('precision', 1, 1000),
    // Ramses' `help_text`, else the JSON Schema's own `description` of the property.
    helpText: reader.string('help_text') ?? description(property.value),
    foreignKey: null,
    relationship: null,
    processors: [],
    validation:
      type === 'relationship'
        ? {}
        : validationKeywords(
            { diagnostics: ctx.diagnostics, where: `${ctx.model}.${name}`, root: ctx.root },
            property.value,
          ),
    synthesized: false,
    renamedFrom: reader.string('renamed_from'),
  };
  const processors = readNameList(ctx, property.value, '_processors');
  field.processors = processors.names;
  const draft: FieldDraft = {
    field,
    nameSpan: property.key.span,
    typeSpan: typeEntry?.value.span ?? property.key.span,
    processorSpans: processors.spans,
    ...(type === 'relationship'
      ? { relationship: reader.relationship(readNameList(ctx, property.value, '_backref_processors').names) }
      : {}),
    ...(type === 'foreign_key' ? { foreignKey: reader.foreignKey(field.required) } : {}),
  };
  reader.reportUnknown();
  checkTypeRules(ctx, draft, settings);
  return draft;
}

function readType(ctx: FieldContext, name: string, entry: YEntry | undefined): FieldType | undefined {
  // Ramses read a type left out, null or empty as a string (a porting probe's `"type": ""` was an error).
  if (!entry || (isScalar(entry.value) && (entry.value.value === null || entry.value.value === ''))) return 'string';
  if (!isScalar(entry.value) || typeof entry.value.value !== 'string') {
    ctx.diagnostics.report('SVC2005', `the type of "${name}" must be a type name`, { span: entry.value.span });
    return undefined;
  }
  const written = entry.value.text;
  const lower = written.toLowerCase();
  const type = (FIELD_TYPES as readonly string[]).includes(lower)
    ? (lower as FieldType)
    : ownValue(TYPE_ALIASES, lower);
  if (type) return type;
  ctx.diagnostics.report('SVC2005', `unknown field type "${written}" for "${name}"`, {
    span: entry.value.span,
    hint:
      lower === 'enum'
        ? 'a field of one of a list of values is `"type": "choice"`, with its values in `"choices": [...]`'
        : ownValue(OTHER_NAMES, lower)
          ? `svcgen calls it \`${ownValue(OTHER_NAMES, lower)}\``
          : (didYouMean(lower, [...FIELD_TYPES, ...Object.keys(TYPE_ALIASES)]) ??
            `use one of ${FIELD_TYPES.join(', ')}`),
  });
  return undefined;
}

/**
 * A rule of who writes the field, on the property (beside `_db_settings`): true or false, never
 * ignored. JSON Schema's `readOnly` (SVC2079) and svcgen's `_write_once` (SVC2116).
 */
const WRITE_RULES = {
  readOnly: {
    code: 'SVC2079',
    hint: "true: only admins and the service's handlers and processors may write the field",
  },
  _write_once: {
    code: 'SVC2116',
    hint: 'true: the field is set when the object is created; afterwards only admins and the service change it',
  },
} as const;

function writeRule(ctx: FieldContext, name: string, property: YMap, key: keyof typeof WRITE_RULES): boolean {
  const node = get(property, key);
  if (node === undefined) return false;
  if (isScalar(node) && typeof node.value === 'boolean') return node.value;
  ctx.diagnostics.report(WRITE_RULES[key].code, `"${key}" of "${name}" must be true or false`, {
    span: node.span,
    hint: WRITE_RULES[key].hint,
  });
  return false;
}

/** The scalar type a name of `item_type` stands for, an alias read as its type (`int`: integer); else undefined. */
function scalarType(written: string): ScalarFieldType | undefined {
  const type = (SCALAR_TYPES as readonly string[]).includes(written) ? written : ownValue(TYPE_ALIASES, written);
  return SCALAR_TYPES.find((t) => t === type);
}

/** The property's JSON Schema `description`, when it is text. */
function description(property: YMap): string | null {
  const node = get(property, 'description');
  return isScalar(node) && typeof node.value === 'string' && node.value.trim() !== '' ? node.value : null;
}

/** Draft-03 style `"required": true` on a property is honoured, never dropped. */
function draft3Required(property: YMap): boolean {
  const required = get(property, 'required');
  return isScalar(required) && required.value === true;
}

function readNameList(ctx: FieldContext, property: YMap, key: string): { names: string[]; spans: Span[] } {
  const node = get(property, key);
  if (node === undefined) return { names: [], spans: [] };
  if (!isSeq(node)) {
    ctx.diagnostics.report('SVC2006', `"${key}" must be a list of function names`, { span: node.span });
    return { names: [], spans: [] };
  }
  const names: string[] = [];
  const spans: Span[] = [];
  for (const item of node.items) {
    const name =
      isScalar(item) && typeof item.value === 'string' ? item.text.replace(/^\{\{(.*)\}\}$/, '$1').trim() : undefined;
    if (name === undefined || !isSafeIdentifier(name)) {
      ctx.diagnostics.report(
        'SVC2007',
        `${name === undefined ? 'a function name' : `"${name}"`} in "${key}" is not a valid function name`,
        {
          span: item.span,
          hint:
            (name && reservedWordHint(name, `"${name}_value"`)) ??
            'names are used as TypeScript identifiers and module names: letters, digits, "_" and "$", not starting with a digit',
        },
      );
      continue;
    }
    names.push(name);
    spans.push(item.span);
  }
  return { names, spans };
}

/** Rules tying parameters to types. */
function checkTypeRules(ctx: FieldContext, draft: FieldDraft, settings: YMap): void {
  const f = draft.field;
  const at = (key: string) => settings.entries.find((e) => e.key.text === key)?.key.span ?? draft.typeSpan;
  for (const [key, source] of [
    ['default', f.default],
    ['onupdate', f.onUpdate],
  ] as const) {
    if (source?.kind !== 'literal') continue;
    const problem = literalProblem(f, source.value);
    if (problem)
      ctx.diagnostics.report('SVC2076', `the ${key} ${JSON.stringify(source.value)} of "${f.name}" ${problem}`, {
        span: settings.entries.find((e) => e.key.text === key)?.value.span ?? at(key),
        hint: 'give a value the field accepts from a client, or none (null)',
      });
  }
  // A `choices` written but not a list of strings was reported as such (SVC2010): null here.
  const choicesWrong = f.choices === null && settings.entries.some((e) => e.key.text === 'choices');
  if (f.type === 'choice' && !f.choices?.length && !choicesWrong) {
    ctx.diagnostics.report('SVC2008', `choice field "${f.name}" needs "choices"`, {
      span: draft.typeSpan,
      hint: 'add "choices": ["a", "b"] to _db_settings',
    });
  }
  // An `item_type` written but unknown was reported as such (SVC2005).
  if (f.type === 'list' && !f.itemType && !settings.entries.some((e) => e.key.text === 'item_type')) {
    ctx.diagnostics.report('SVC2008', `list field "${f.name}" needs "item_type"`, {
      span: draft.typeSpan,
      hint: 'add "item_type": "string" (or another scalar type) to _db_settings',
    });
  }
  if (f.type === 'id_field' && !f.primaryKey) {
    ctx.diagnostics.report('SVC2008', `"${f.name}" is an id_field but not the primary key`, {
      span: draft.typeSpan,
      hint: 'add "primary_key": true, or use "integer"',
    });
  }
  if (f.type === 'relationship' && f.index) {
    ctx.diagnostics.report('SVC2012', `"index" means nothing for relationship field "${f.name}"`, {
      span: at('index'),
      hint: 'a relationship is no column; the foreign key field that holds it is indexed already',
    });
  }
  if (f.index && !f.primaryKey && !f.unique && mayBeLong(f)) {
    ctx.diagnostics.report('SVC2034', `"${f.name}" is indexed, and its values may be too long for an index entry`, {
      span: at('index'),
      hint: 'give it a max_length of 2,000 or less: PostgreSQL refuses an index entry over 2,704 bytes (a 400 on write)',
    });
  }
  if (f.type === 'pickle') {
    ctx.diagnostics.report('SVC2009', `"${f.name}" is a pickle field; svcgen stores it as JSON`, {
      span: draft.typeSpan,
      hint: 'Python pickles cannot exist here; use "dict" or "list" to say what it holds',
    });
  }
  if (f.scale !== null && f.precision !== null && f.scale > f.precision) {
    ctx.diagnostics.report(
      'SVC2008',
      `"${f.name}": scale ${f.scale} is greater than precision ${f.precision}, so no value but 0 fits`,
      {
        span: at('scale'),
        hint: 'precision counts all the digits, scale those after the point: up to 9999.99 is precision 6, scale 2',
      },
    );
  }
  if (f.type === 'decimal' && f.precision !== null && f.precision > EXACT_DIGITS) {
    ctx.diagnostics.report(
      'SVC2118',
      `"${f.name}": precision ${f.precision} is more digits than a JSON number keeps exactly (${EXACT_DIGITS}); values with more are refused`,
      {
        span: at('precision'),
        hint: `give it a precision of ${EXACT_DIGITS} or less, or store such values as text`,
      },
    );
  }
  if (f.minLength !== null && f.maxLength !== null && f.minLength > f.maxLength) {
    ctx.diagnostics.report(
      'SVC2008',
      `"${f.name}": min_length ${f.minLength} is greater than max_length ${f.maxLength}`,
      { span: at('min_length') },
    );
  }
  if (f.minValue !== null && f.maxValue !== null && f.minValue > f.maxValue) {
    ctx.diagnostics.report('SVC2008', `"${f.name}": min_value ${f.minValue} is greater than max_value ${f.maxValue}`, {
      span: at('min_value'),
    });
  }
  if (
    f.primaryKey &&
    !['id_field', 'string', 'unicode', 'text', 'unicode_text', 'integer', 'big_integer', 'small_integer'].includes(
      f.type,
    )
  ) {
    ctx.diagnostics.report('SVC2008', `"${f.name}" cannot be a primary key: type ${f.type}`, {
      span: draft.typeSpan,
      hint: 'primary keys are id_field, string or integer fields',
    });
  }
}

/** Text without a bound of 2,000 characters, or JSON or a file: more than PostgreSQL keeps in an index entry. */
function mayBeLong(f: MutableField): boolean {
  if (['dict', 'list', 'pickle', 'file'].includes(f.type)) return true;
  return TEXT_FIELD_TYPES.has(f.type) && (f.maxLength === null || f.maxLength > 2000);
}

class SettingsReader {
  readonly #used = new Set<string>(['type']);

  constructor(
    readonly ctx: FieldContext,
    readonly field: string,
    readonly type: FieldType,
    readonly settings: YMap,
  ) {}

  /** The setting, when it applies to this field's type (others are reported by `reportUnknown`). */
  entry(key: string): YEntry | undefined {
    if (!COMMON_SETTINGS.includes(key) && !(SETTINGS_BY_TYPE[this.type] ?? []).includes(key)) return undefined;
    const e = this.settings.entries.find((x) => x.key.text === key);
    if (e) this.#used.add(key);
    return e;
  }

  report(e: YEntry, expected: string): void {
    this.ctx.diagnostics.report('SVC2010', `"${e.key.text}" of "${this.field}" must be ${expected}`, {
      span: e.value.span,
    });
  }

  boolean(key: string): boolean | null {
    const e = this.entry(key);
    if (!e) return null;
    if (isScalar(e.value) && typeof e.value.value === 'boolean') return e.value.value;
    this.report(e, 'true or false');
    return null;
  }

  number(key: string): number | null {
    const e = this.entry(key);
    if (!e) return null;
    if (isScalar(e.value) && typeof e.value.value === 'number') return e.value.value;
    this.report(e, 'a number');
    return null;
  }

  /** A whole number from `least` to `most`: a length, or a decimal's digits (`-5` made a generated sample that did not parse). */
  count(key: string, least: number, most = Number.MAX_SAFE_INTEGER): number | null {
    const e = this.entry(key);
    const value = this.number(key);
    if (!e || value === null) return null;
    if (Number.isInteger(value) && value >= least && value <= most) return value;
    this.report(
      e,
      most === Number.MAX_SAFE_INTEGER ? `a whole number, ${least} or more` : `a whole number from ${least} to ${most}`,
    );
    return null;
  }

  string(key: string): string | null {
    const e = this.entry(key);
    if (!e) return null;
    if (isScalar(e.value) && typeof e.value.value === 'string') return e.value.value;
    this.report(e, 'a string');
    return null;
  }

  node(key: string): YNode | undefined {
    return this.entry(key)?.value;
  }

  /** A literal, or `{{name}}`: `{{now}}`/`{{datetime.datetime.utcnow}}` are built in, others are user functions. */
  valueSource(key: string): ValueSource | null {
    const e = this.entry(key);
    if (!e) return null;
    const value = toPlain(e.value) as Literal;
    if (typeof value !== 'string') return { kind: 'literal', value };
    const callable = /^\{\{\s*(.*?)\s*\}\}$/.exec(value)?.[1];
    if (callable === undefined) return { kind: 'literal', value };
    if (callable === 'now' || callable === 'datetime.datetime.utcnow' || callable === 'datetime.datetime.now')
      return { kind: 'now' };
    if (!isSafeIdentifier(callable)) {
      this.ctx.diagnostics.report(
        'SVC2007',
        `"${callable}" in "${key}" of "${this.field}" is not a valid function name`,
        {
          span: e.value.span,
          hint: callable.includes('.')
            ? 'of the Python dotted paths only {{datetime.datetime.utcnow}} and {{datetime.datetime.now}} are known (both {{now}}: the date and time of the write); for anything else name a function instead, e.g. {{today}}, and write it in the generated stub'
            : (reservedWordHint(callable, `{{${callable}_value}}`) ?? 'use letters, digits and "_"'),
        },
      );
      return null;
    }
    const builtIn = closest(callable, ['now']);
    if (builtIn)
      this.ctx.diagnostics.report(
        'SVC2096',
        `{{${callable}}} in "${key}" of "${this.field}" is a function you write, not the built-in {{${builtIn}}}`,
        {
          span: e.value.span,
          hint: `write {{${builtIn}}} for the current time; a function of your own named ${callable} gets a stub to fill in`,
        },
      );
    return { kind: 'callable', name: callable };
  }

  /**
   * The values a `choice` field (text) or the items of a `list` may take: each of the type they
   * are stored as. Else a value the service could never store would be allowed, and the query
   * language, which reads values by the field's type, would disagree with the bodies.
   */
  choices(): Literal[] | null {
    const e = this.entry('choices');
    if (!e) return null;
    const kind = this.choiceKind();
    if (isSeq(e.value) && e.value.items.every((i) => isScalar(i) && typeof i.value === kind)) {
      const items = e.value.items;
      const values = items.map((i) => (i as { value: Literal }).value);
      values.forEach((value, i) => {
        if (values.indexOf(value) === i) return;
        this.ctx.diagnostics.report(
          'SVC2010',
          `"${e.key.text}" of "${this.field}" lists ${JSON.stringify(value)} twice`,
          {
            span: items[i]!.span,
            hint: 'list each value once',
          },
        );
      });
      return values;
    }
    const numbers =
      kind === 'string' && isSeq(e.value) && e.value.items.some((i) => isScalar(i) && typeof i.value === 'number');
    this.ctx.diagnostics.report(
      'SVC2010',
      `"${e.key.text}" of "${this.field}" must be a list of ${kind === 'number' ? 'numbers' : kind === 'boolean' ? 'true or false' : 'strings'}`,
      {
        span: e.value.span,
        ...(numbers
          ? {
              hint: 'a choice is text; for a number that takes a few values, make it an integer (or float) field with JSON Schema\'s "enum" beside "_db_settings" ("enum": [25, 45])',
            }
          : {}),
      },
    );
    return null;
  }

  /**
   * The JavaScript type of a choice: text for a `choice` field, the item type's first JSON type for
   * a `list` (`JSON_TYPES_OF`). Read without `itemType()`, which reports a bad item type itself.
   */
  private choiceKind(): 'string' | 'number' | 'boolean' {
    if (this.type !== 'list') return 'string';
    const itemType = this.settings.entries.find((x) => x.key.text === 'item_type')?.value;
    const written = isScalar(itemType) && typeof itemType.value === 'string' ? itemType.value.toLowerCase() : '';
    const type = scalarType(written);
    const json = (type && JSON_TYPES_OF[type]?.[0]) ?? 'string';
    return json === 'integer' || json === 'number' ? 'number' : json === 'boolean' ? 'boolean' : 'string';
  }

  itemType(): ScalarFieldType | null {
    const e = this.entry('item_type');
    if (!e) return null;
    const written = isScalar(e.value) && typeof e.value.value === 'string' ? e.value.text.toLowerCase() : '';
    const type = scalarType(written);
    if (type) return type;
    this.ctx.diagnostics.report('SVC2005', `unknown item_type "${written}" for "${this.field}"`, {
      span: e.value.span,
      hint: ['dict', 'object', 'json', 'list', 'array'].includes(written)
        ? 'a list holds scalars: keep objects (or lists) in a dict field whose JSON Schema gives their shape, e.g. {"items": [{…}]} with properties and items (docs/schema.md, "A list of objects")'
        : (didYouMean(written, SCALAR_TYPES) ?? `list items are one of ${SCALAR_TYPES.join(', ')}`),
    });
    return null;
  }

  referentialAction(key: string, fallback: ReferentialAction): ReferentialAction;
  referentialAction(key: string, fallback: null): ReferentialAction | null;
  referentialAction(key: string, fallback: ReferentialAction | null): ReferentialAction | null {
    const e = this.entry(key);
    if (!e) return fallback;
    const written = isScalar(e.value) ? e.value.text.toUpperCase() : '';
    const action = (
      {
        CASCADE: 'cascade',
        RESTRICT: 'restrict',
        NULLIFY: 'nullify',
        'SET NULL': 'nullify',
        DO_NOTHING: 'nullify',
      } as const
    )[written as 'CASCADE'];
    if (action) return action;
    this.ctx.diagnostics.report('SVC2010', `"${e.key.text}" of "${this.field}" must be CASCADE, RESTRICT or NULLIFY`, {
      span: e.value.span,
      hint: didYouMean(written, ['CASCADE', 'RESTRICT', 'NULLIFY']),
    });
    return fallback;
  }

  relationship(backrefProcessors: readonly string[]): RelationshipDecl {
    const document = this.requiredString('document', 'the name of the related model, e.g. "Story"');
    const backref = this.entry('backref_name');
    const foreignKeys = this.entry('foreign_keys');
    const uselist = this.boolean('uselist');
    return {
      document: document.value,
      documentSpan: document.span,
      backrefName:
        backref && isScalar(backref.value) && typeof backref.value.value === 'string' ? backref.value.text : null,
      backrefSpan: backref?.value.span ?? document.span,
      uselist: uselist ?? true,
      foreignKeys: foreignKeys && isScalar(foreignKeys.value) ? foreignKeys.value.text : null,
      foreignKeysSpan: foreignKeys?.value.span ?? null,
      onDelete: this.referentialAction('ondelete', null),
      backrefOnDelete: this.referentialAction('backref_ondelete', null),
      onDeleteSpan: (this.entry('ondelete') ?? this.entry('backref_ondelete'))?.key.span ?? null,
      backrefProcessors,
    };
  }

  /**
   * `required`: the key may not be null, so NULLIFY cannot unlink it (deleting the user a split
   * requires was once a 400 "member_id is required"): its rule is RESTRICT unless it says CASCADE,
   * and a NULLIFY it says is not applied (SVC2069).
   */
  foreignKey(required: boolean): ForeignKeyDecl {
    const document = this.requiredString('ref_document', 'the name of the referenced model, e.g. "User"');
    const column = this.requiredString('ref_column', 'the referenced column, e.g. "user.username"');
    // Missing where the model is named, it is reported once that model's key is known (relationships.ts), naming its type.
    const columnType =
      document.value === ''
        ? this.requiredString('ref_column_type', 'the referenced column\'s type, e.g. "string"')
        : this.optionalString('ref_column_type');
    return {
      refDocument: document.value,
      refDocumentSpan: document.span,
      refColumn: column.value,
      refColumnSpan: column.span,
      refColumnType: columnType.value.toLowerCase(),
      refColumnTypeSpan: columnType.span,
      onDelete: this.onDelete(required, document.value),
      onDeleteSaid: this.entry('ref_ondelete') !== undefined,
      onUpdate: this.referentialAction('ref_onupdate', 'cascade'),
    };
  }

  private onDelete(required: boolean, target: string): ReferentialAction {
    const said = this.referentialAction('ref_ondelete', null);
    if (!required) return said ?? 'nullify';
    if (said === 'nullify') {
      this.ctx.diagnostics.report(
        'SVC2069',
        `deleting a ${target} is refused while a ${this.ctx.model} links to it by "${this.field}" (RESTRICT), not NULLIFY as "ref_ondelete" says: a required key cannot be unlinked`,
        {
          span: this.entry('ref_ondelete')!.value.span,
          hint: `write "ref_ondelete": "RESTRICT", or "CASCADE" to delete the ${this.ctx.model} objects with it; or make "${this.field}" optional`,
        },
      );
    }
    return said === 'cascade' ? 'cascade' : 'restrict';
  }

  requiredString(key: string, what: string): { value: string; span: Span } {
    const e = this.entry(key);
    if (e && isScalar(e.value) && typeof e.value.value === 'string' && e.value.text !== '')
      return { value: e.value.text, span: e.value.span };
    this.ctx.diagnostics.report('SVC2011', `${this.type} field "${this.field}" needs "${key}": ${what}`, {
      span: e?.value.span ?? this.settings.span,
    });
    return { value: '', span: e?.value.span ?? this.settings.span };
  }

  /** A text parameter, or `''` where it is absent or no text (whoever needs it reports that). */
  optionalString(key: string): { value: string; span: Span } {
    const e = this.entry(key);
    const value = e && isScalar(e.value) && typeof e.value.value === 'string' ? e.value.text : '';
    return { value, span: e?.value.span ?? this.settings.span };
  }

  /**
   * Ramses' column name (SQLAlchemy's `name`), where it is not the property's: svcgen names the
   * column after the property, and a team that copies a Ramses database by its columns would find
   * the values under another name (a porting probe's was dropped without a word).
   */
  private reportColumnName(e: YEntry): void {
    if (!isScalar(e.value) || typeof e.value.value !== 'string' || e.value.text === this.field) return;
    this.ctx.diagnostics.report(
      'SVC2012',
      `"name" of "${this.field}" names its column "${e.value.text}", as Ramses' database has it: svcgen names the column "${this.field}", after the property`,
      {
        span: e.key.span,
        hint: `to keep reading a Ramses database's "${e.value.text}", name the property "${e.value.text}"; else copy the values into "${this.field}" (docs/migrating-from-ramses.md)`,
      },
    );
  }

  /** Parameters that mean nothing for this type are reported (a warning: Ramses ignored them). */
  reportUnknown(): void {
    const known = new Set([...COMMON_SETTINGS, ...(SETTINGS_BY_TYPE[this.type] ?? [])]);
    for (const e of this.settings.entries) {
      const key = e.key.text;
      if (key === 'name') this.reportColumnName(e);
      if (known.has(key) || IGNORED_SETTINGS.has(key) || (this.type === 'relationship' && key.startsWith('backref_')))
        continue;
      // `write_once` too: svcgen's own rule, written as other frameworks name theirs.
      const rule = RULE_KEYWORDS.has(key) ? key : ownKeyUnmarked(key) === '_write_once' ? '_write_once' : undefined;
      if (rule) {
        // A rule in the wrong place is no rule: a `readOnly` link there stays writable by every member.
        this.ctx.diagnostics.report('SVC2090', `"${key}" inside "_db_settings" of "${this.field}" is no rule there`, {
          span: e.key.span,
          hint: `write "${rule}" beside "_db_settings", in the property itself`,
        });
        continue;
      }
      const elsewhere = Object.entries(SETTINGS_BY_TYPE).find(([, keys]) => keys.includes(key))?.[0];
      // One slip from a parameter of the field (`min_vlaue`): what it meant (a bound, `required`) would not apply.
      const meant = elsewhere || PROPERTY_KEYS.has(key) ? undefined : (synonymIn(key, known) ?? closest(key, known));
      if (meant) {
        this.ctx.diagnostics.report(
          'SVC2097',
          `"${key}" of "${this.field}" is no parameter, so what it says does not apply`,
          {
            span: e.key.span,
            hint: `did you mean "${meant}"?`,
          },
        );
        continue;
      }
      this.ctx.diagnostics.report('SVC2012', `"${key}" means nothing for ${this.type} field "${this.field}"`, {
        span: e.key.span,
        hint: PROPERTY_KEYS.has(key)
          ? `"${key}" belongs beside "_db_settings", in the property itself`
          : key === 'choices' && NUMBER_TYPES.has(this.type)
            ? `for ${/^[aeiou]/.test(this.type) ? 'an' : 'a'} ${this.type} that takes a few values, write them as JSON Schema's "enum" beside "_db_settings" ("enum": [25, 45]): the service checks it`
            : elsewhere
              ? `"${key}" belongs to ${elsewhere} fields`
              : (didYouMean(key, [...known]) ?? slipOfAnother(key) ?? 'it is ignored'),
      });
    }
  }
}

/**
 * Other frameworks' names for a parameter (Django's `decimal_places` for `scale`): no slip of it, so
 * `closest` does not find it, and a price kept its default scale under a warning that said only
 * "ignored" (a new user's).
 */
const SYNONYMS: Readonly<Record<string, string>> = {
  decimal_places: 'scale',
  max_digits: 'precision',
  digits: 'precision',
  min: 'min_value',
  max: 'max_value',
  minimum: 'min_value',
  maximum: 'max_value',
  minLength: 'min_length',
  maxLength: 'max_length',
  pk: 'primary_key',
  primary: 'primary_key',
  indexed: 'index',
  default_value: 'default',
  values: 'choices',
  options: 'choices',
  on_delete: 'ref_ondelete',
  searchable: 'search',
  fulltext: 'search',
  full_text: 'search',
  indexed_for_search: 'search',
};

/** The parameter of this field's (`known`) that `key` is another framework's name for. */
function synonymIn(key: string, known: ReadonlySet<string>): string | undefined {
  const meant = Object.hasOwn(SYNONYMS, key) ? SYNONYMS[key] : undefined;
  return meant !== undefined && known.has(meant) ? meant : undefined;
}

/** A key one slip from a parameter of another type (`max_lenght` on a decimal): what it meant, and whose it is. */
function slipOfAnother(key: string): string | undefined {
  const all = new Set(Object.values(SETTINGS_BY_TYPE).flat());
  const meant = closest(key, all);
  if (meant === undefined) return undefined;
  const owners = Object.entries(SETTINGS_BY_TYPE)
    .filter(([, keys]) => keys.includes(meant))
    .map(([type]) => type);
  return `did you mean "${meant}"? It belongs to ${owners.join(', ')} fields, and is ignored here too`;
}
