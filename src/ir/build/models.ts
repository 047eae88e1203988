/**
 * One model per resource that has a `post` body schema. Reads a schema's root
 * (`properties`, privacy lists, `_auth_model`, `_nesting_depth`, …) into a model draft.
 */
import { checkKeywordSpelling, OWN_PROPERTY_KEYS } from './keywords.js';
import { isRuleKeyword } from './keyword-values.js';
import { codes } from '../../diagnostics/codes.js';
import type { DiagnosticBag } from '../../diagnostics/diagnostic.js';
import type { Span } from '../../diagnostics/source.js';
import { get, isMap, isScalar, isSeq, type YEntry, type YMap } from '../../load/ynode.js';
import { closest, didYouMean } from '../../util/suggest.js';
import type { SchemaDocument } from '../../raml/schema-document.js';
import { TEXT_FIELD_TYPES, type Relationship } from '../types.js';
import { readField, type FieldDraft, type MutableField } from './fields.js';
import type { Poisoned } from './poisoned.js';

export interface NameList {
  readonly names: readonly string[];
  readonly spans: readonly Span[];
  readonly span: Span;
}

export interface ModelDraft {
  readonly name: string;
  readonly table: string;
  readonly plural: string;
  /** Relative to the API folder, or `(default user model)`. */
  readonly schemaFile: string;
  readonly title: string | null;
  /** Where the model comes from: the `schema:` of the POST body (or the resource, for generated models). */
  readonly definedAt: Span;
  /** Its schema's `properties` (in the schema file): where a field it no longer has was. */
  readonly propertiesAt?: Span;
  readonly fields: FieldDraft[];
  isAuthModel: boolean;
  readonly authModelSpan: Span | null;
  readonly isDefaultUserModel: boolean;
  readonly internal?: boolean;
  readonly publicFields: NameList | null;
  readonly authFields: NameList | null;
  readonly hiddenFields: NameList | null;
  /** `_group_fields`: per group (its name, without `g:`), the fields its members see besides `_auth_fields`. */
  readonly groupFields: readonly GroupFieldList[];
  readonly nestedRelationships: NameList | null;
  /** `_unique_together`: each set of names as written (resolved to stored fields by unique-together.ts). */
  readonly uniqueTogether: readonly NameList[];
  /** `_event_previous`: update events carry the object as it was. */
  /** `_event_previous`, or null where the schema does not say (index.ts decides). */
  readonly eventPrevious: boolean | null;
  readonly nestingDepth: number;
  /** The schema has no usable `properties` (already reported). */
  readonly withoutProperties: boolean;
  /** `_event_handlers` as written, read by events.ts. */
  readonly eventHandlers: YEntry | null;
  /** `_renamed_from`: the model's previous name. */
  readonly renamedFrom: string | null;
  readonly relationships: Relationship[];
  primaryKey: string;
  /** Properties without `_db_settings` (documentation in Ramses): each is a field only if a backref adds it. */
  readonly documentationOnly?: readonly YEntry[];
  /**
   * Names in the root `required` that are no property: a backref another model adds here (its
   * foreign key is then required, relationships.ts), else SVC2084 (`reportUnknownRequired`).
   */
  readonly undeclaredRequired?: readonly UndeclaredRequired[];
  /** Each name of the root `required` array → where it is written. */
  readonly requiredAt?: ReadonlyMap<string, Span>;
}

export interface UndeclaredRequired {
  readonly name: string;
  readonly span: Span;
  /** The schema's properties, for the hint. */
  readonly declared: readonly string[];
}

export const ROOT_KEYS = [
  '$schema',
  'id',
  '$id',
  'title',
  'description',
  'type',
  'required',
  'properties',
  'definitions',
  'additionalProperties',
  'examples',
  '_auth_fields',
  '_public_fields',
  '_hidden_fields',
  '_group_fields',
  '_nested_relationships',
  '_nesting_depth',
  '_auth_model',
  '_event_handlers',
  '_renamed_from',
  '_unique_together',
  '_event_previous',
  '_svcgen_ignore',
];

export interface ModelSource {
  readonly name: string;
  readonly plural: string;
  readonly schemaFile: string;
  readonly definedAt: Span;
}

export function readModel(diagnostics: DiagnosticBag, source: ModelSource, document: SchemaDocument): ModelDraft {
  const root = document.root;
  const ctx = { diagnostics, model: source.name, root };
  checkRootKeys(diagnostics, root);
  const { spans: requiredAt, undeclared } = requiredNames(diagnostics, root);
  const required = new Set(requiredAt.keys());
  const fields: FieldDraft[] = [];
  const documentationOnly: YEntry[] = [];
  const properties = get(root, 'properties');
  if (properties === undefined) {
    diagnostics.report('SVC2002', `the schema of ${source.name} has no "properties"`, {
      span: root.span,
      hint: 'list the model fields under "properties", each with "_db_settings"',
    });
  } else if (!isMap(properties)) {
    diagnostics.report('SVC2002', `"properties" of ${source.name} must be an object`, { span: properties.span });
  } else {
    for (const property of properties.entries) {
      const field = readField(ctx, property, required);
      if (field) fields.push(field);
      else if (isMap(property.value) && !get(property.value, '_db_settings')) documentationOnly.push(property);
    }
  }
  const authModel = root.entries.find((e) => e.key.text === '_auth_model');
  const draft: ModelDraft = {
    ...source,
    propertiesAt: root.entries.find((e) => e.key.text === 'properties')?.key.span ?? root.span,
    table: source.name.toLowerCase(),
    title: stringOf(get(root, 'title')),
    fields,
    isAuthModel: rootFlag(diagnostics, root, '_auth_model'),
    authModelSpan: authModel?.key.span ?? null,
    isDefaultUserModel: false,
    publicFields: nameList(diagnostics, root, '_public_fields'),
    authFields: nameList(diagnostics, root, '_auth_fields'),
    hiddenFields: nameList(diagnostics, root, '_hidden_fields'),
    groupFields: groupFieldLists(diagnostics, root),
    nestedRelationships: nameList(diagnostics, root, '_nested_relationships'),
    uniqueTogether: uniqueTogether(diagnostics, root),
    eventPrevious: root.entries.some((x) => x.key.text === '_event_previous')
      ? rootFlag(diagnostics, root, '_event_previous')
      : null,
    nestingDepth: nestingDepth(diagnostics, root),
    withoutProperties: !isMap(properties),
    eventHandlers: root.entries.find((e) => e.key.text === '_event_handlers') ?? null,
    renamedFrom: renamedFrom(diagnostics, root),
    relationships: [],
    primaryKey: '',
    documentationOnly,
    undeclaredRequired: undeclared,
    requiredAt,
  };
  return draft;
}

function stringOf(node: YMap['entries'][number]['value'] | undefined): string | null {
  return isScalar(node) && typeof node.value === 'string' ? node.value : null;
}

function checkRootKeys(diagnostics: DiagnosticBag, root: YMap): void {
  checkKeywordSpelling(diagnostics, root, 'root');
  checkIgnores(diagnostics, root);
  for (const e of root.entries) {
    const key = e.key.text;
    if (!key.startsWith('_') && !ROOT_KEYS.includes(key) && isRuleKeyword(key)) notAppliedAtRoot(diagnostics, e);
    if (!key.startsWith('_') || ROOT_KEYS.includes(key)) continue;
    const own = ROOT_KEYS.filter((k) => k.startsWith('_'));
    const meant = closest(key, own);
    if (meant !== undefined) {
      // `_auth_field` for `_auth_fields`: the privacy list it meant is no list at all, and members see every field.
      diagnostics.report('SVC2087', `"${key}" is no key svcgen reads, so it says nothing here`, {
        span: e.key.span,
        hint: `did you mean \`${meant}\`?`,
      });
      continue;
    }
    diagnostics.report('SVC2013', `unknown schema key "${key}"`, {
      span: e.key.span,
      hint: OWN_PROPERTY_KEYS.includes(key)
        ? `"${key}" is a key of a property: write it beside the property's "_db_settings"`
        : `svcgen reads ${own.slice(0, -1).join(', ')} and ${own.at(-1)}`,
    });
  }
}

/**
 * A validation keyword at a schema's root that svcgen does not apply (`allOf`, `anyOf`, `enum`…):
 * a body is checked by its fields' own keywords, and a field written only inside an `allOf` is
 * none (SVC2120). Notes (`examples`, `$comment`) say nothing and are left alone (isRuleKeyword).
 */
function notAppliedAtRoot(diagnostics: DiagnosticBag, entry: YEntry): void {
  const key = entry.key.text;
  diagnostics.report('SVC2120', `svcgen does not apply "${key}" at a schema's root, so it checks nothing here`, {
    span: entry.key.span,
    hint:
      key === 'allOf' || key === 'anyOf' || key === 'oneOf'
        ? 'list every field under the root\'s "properties"; a rule across fields (one of two required, say) belongs in a before handler (`_event_handlers`)'
        : 'write the rules of each field on its property; a rule across fields belongs in a before handler (`_event_handlers`)',
  });
}

/**
 * The root `required` array (JSON Schema), each name where it is written: those fields must be present on create. A name that is
 * no property is kept aside (`undeclared`): it may be a backref another model adds.
 */
function requiredNames(
  diagnostics: DiagnosticBag,
  root: YMap,
): { spans: Map<string, Span>; undeclared: UndeclaredRequired[] } {
  const node = get(root, 'required');
  const undeclared: UndeclaredRequired[] = [];
  const spans = new Map<string, Span>();
  // A name where a list of names belongs made the field optional, silently.
  if (isScalar(node) && typeof node.value === 'string') {
    diagnostics.report('SVC2006', '"required" must be a list of field names', {
      span: node.span,
      hint: `write "required": [${JSON.stringify(node.value)}]`,
    });
    return { spans: spans.set(node.value, node.span), undeclared };
  }
  if (!isSeq(node)) return { spans, undeclared };
  const properties = get(root, 'properties');
  const declared = isMap(properties) ? properties.entries.map((e) => e.key.text) : [];
  for (const item of node.items) {
    if (!isScalar(item) || typeof item.value !== 'string') continue;
    spans.set(item.value, item.span);
    if (isMap(properties) && !declared.includes(item.value))
      undeclared.push({ name: item.value, span: item.span, declared });
  }
  return { spans, undeclared };
}

/**
 * A name in `required` that is neither a property nor a backref whose key this model keeps: a
 * misspelt name leaves the field it meant optional, silently (JSON Schema allows it).
 */
export function reportUnknownRequired(diagnostics: DiagnosticBag, model: ModelDraft, poisoned: Poisoned): void {
  for (const { name, span, declared } of model.undeclaredRequired ?? []) {
    if (model.fields.some((f) => f.field.name === name && f.field.required)) continue;
    // The backref of a relationship that failed (its error is the news: a misspelt ref_document).
    if (poisoned.mayBeBackref(model.name, name)) continue;
    const backref = model.fields.find((f) => f.field.name === name && f.field.type === 'relationship');
    // The backrefs other schemas give this model may be required too (their key is kept here).
    const backrefs = model.fields.map((f) => f.field.name).filter((n) => !declared.includes(n));
    diagnostics.report('SVC2084', `"${name}" in "required" names no property of this schema`, {
      span,
      hint: backref
        ? `"${name}" is a backref whose key the other model keeps: it cannot be required here`
        : (didYouMean(name, [...declared, ...backrefs]) ??
          `properties: ${declared.join(', ')}${backrefs.length ? `; backrefs: ${backrefs.join(', ')}` : ''}`),
    });
  }
}

function nameList(diagnostics: DiagnosticBag, root: YMap, key: string): NameList | null {
  const e = root.entries.find((x) => x.key.text === key);
  if (!e) return null;
  if (!isSeq(e.value)) {
    diagnostics.report('SVC2006', `"${key}" must be a list of field names`, { span: e.value.span });
    return null;
  }
  const names: string[] = [];
  const spans: Span[] = [];
  for (const item of e.value.items) {
    if (isScalar(item) && typeof item.value === 'string') {
      names.push(item.value);
      spans.push(item.span);
    } else {
      diagnostics.report('SVC2006', `"${key}" must list field names`, { span: item.span });
    }
  }
  return { names, spans, span: e.key.span };
}

export interface GroupFieldList extends NameList {
  readonly group: string;
}

/**
 * `_group_fields`: `{ "g:registrar": ["insurance_value"] }`, the fields members of a group see
 * besides those `_auth_fields` shows every member. Keyed by group as the x-ACLs name them; a
 * per-object reader (`{{owner}}`) is no group, and says how to get one.
 */
function groupFieldLists(diagnostics: DiagnosticBag, root: YMap): GroupFieldList[] {
  const e = root.entries.find((x) => x.key.text === '_group_fields');
  if (!e) return [];
  if (!isMap(e.value)) {
    diagnostics.report('SVC2006', '"_group_fields" must map groups to lists of field names', {
      span: e.value.span,
      hint: '"_group_fields": { "g:registrar": ["insurance_value"] }',
    });
    return [];
  }
  const lists: GroupFieldList[] = [];
  for (const entry of e.value.entries) {
    const group = /^g:(\S+)$/i.exec(entry.key.text)?.[1]?.toLowerCase();
    if (group === undefined) {
      diagnostics.report('SVC2006', `"${entry.key.text}" in "_group_fields" is not a group`, {
        span: entry.key.span,
        hint: /^\{\{.*\}\}$/.test(entry.key.text.trim())
          ? "privacy lists are per kind of caller, not per object: a field only some objects' readers see goes into a model of its own, linked one-to-one (uselist: false), whose x-ACL says who reads it"
          : `a group is named as the x-ACLs name it: "g:${entry.key.text.replace(/^g:/, '').trim() || 'staff'}"`,
      });
      continue;
    }
    const same = lists.find((l) => l.group === group);
    if (same) {
      // Group names are read lower-cased, as the x-ACLs read them: `g:HR` and `g:hr` are one group.
      diagnostics.report('SVC2006', `"${entry.key.text}" in "_group_fields" names g:${group} again`, {
        span: entry.key.span,
        hint: 'group names are read lower-cased, as the x-ACLs read them: give the group one list',
      });
      continue;
    }
    const list = nameList(diagnostics, e.value, entry.key.text);
    if (list) lists.push({ ...list, group, span: entry.key.span });
  }
  return lists;
}

/** A root key that is true or false (absent: false). */
function rootFlag(diagnostics: DiagnosticBag, root: YMap, key: string): boolean {
  const e = root.entries.find((x) => x.key.text === key);
  if (!e) return false;
  if (isScalar(e.value) && typeof e.value.value === 'boolean') return e.value.value;
  diagnostics.report('SVC2010', `"${key}" must be true or false`, { span: e.value.span });
  return false;
}

/**
 * `_svcgen_ignore`: the codes of the warnings this schema silences (diagnostics/diagnostic.ts reads
 * it): each one of svcgen's warnings, never an error, and no typo, which would silence nothing.
 */
function checkIgnores(diagnostics: DiagnosticBag, root: YMap): void {
  const e = root.entries.find((x) => x.key.text === '_svcgen_ignore');
  if (!e) return;
  const warnings = Object.entries(codes)
    .filter(([, info]) => info.severity === 'warning')
    .map(([code]) => code);
  const items = isSeq(e.value) ? e.value.items : [e.value];
  if (!isSeq(e.value) || items.length === 0)
    diagnostics.report('SVC2099', '"_svcgen_ignore" must be a list of warning codes', {
      span: e.value.span,
      hint: 'e.g. "_svcgen_ignore": ["SVC2092"]: the warnings of that code located in this schema are not shown',
    });
  for (const item of isSeq(e.value) ? items : []) {
    const code = isScalar(item) && typeof item.value === 'string' ? item.value : undefined;
    if (code !== undefined && warnings.includes(code)) continue;
    const error = code !== undefined && code in codes;
    diagnostics.report(
      'SVC2099',
      error
        ? `_svcgen_ignore names ${code}, an error: errors are never silenced`
        : `_svcgen_ignore names ${code === undefined ? 'a value that is no code' : code}, which is no warning of svcgen`,
      {
        span: item.span,
        hint: error
          ? 'take it out, and fix what it says'
          : (didYouMean(code ?? '', warnings) ?? 'the codes are in docs/diagnostics.md'),
      },
    );
  }
}

/** `_unique_together`: a list of lists of names, each of two or more (SVC2088 where it is not). */
function uniqueTogether(diagnostics: DiagnosticBag, root: YMap): NameList[] {
  const e = root.entries.find((x) => x.key.text === '_unique_together');
  if (!e) return [];
  const example = '[["team", "number"]]';
  if (!isSeq(e.value) || e.value.items.length === 0) {
    diagnostics.report('SVC2088', '"_unique_together" must be a list of lists of field names', {
      span: e.value.span,
      hint: `e.g. "_unique_together": ${example}: no two objects share a team and a number`,
    });
    return [];
  }
  const sets: NameList[] = [];
  for (const item of e.value.items) {
    const names = isSeq(item) ? item.items.flatMap((n) => (isScalar(n) && typeof n.value === 'string' ? [n] : [])) : [];
    if (!isSeq(item) || names.length !== item.items.length) {
      diagnostics.report('SVC2088', 'each entry of "_unique_together" must be a list of field names', {
        span: item.span,
        hint: `e.g. "_unique_together": ${example}`,
      });
    } else if (new Set(names.map((n) => n.value)).size < 2) {
      diagnostics.report('SVC2088', 'an entry of "_unique_together" must name two or more different fields', {
        span: item.span,
        hint: names.length ? `a field unique alone says "unique": true in its "_db_settings"` : `e.g. ${example}`,
      });
    } else {
      sets.push({ names: names.map((n) => n.value as string), spans: names.map((n) => n.span), span: item.span });
    }
  }
  return sets;
}

/** `_renamed_from`: the model's previous name (schema evolution renames its table instead of dropping it). */
function renamedFrom(diagnostics: DiagnosticBag, root: YMap): string | null {
  const e = root.entries.find((x) => x.key.text === '_renamed_from');
  if (!e) return null;
  if (isScalar(e.value) && typeof e.value.value === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(e.value.value))
    return e.value.value;
  diagnostics.report('SVC2010', '"_renamed_from" must be the model\'s previous name, e.g. "Article"', {
    span: e.value.span,
  });
  return null;
}

function nestingDepth(diagnostics: DiagnosticBag, root: YMap): number {
  const e = root.entries.find((x) => x.key.text === '_nesting_depth');
  if (!e) return 1;
  if (
    isScalar(e.value) &&
    typeof e.value.value === 'number' &&
    Number.isInteger(e.value.value) &&
    e.value.value >= 0 &&
    e.value.value <= 10
  )
    return e.value.value;
  diagnostics.report('SVC2010', '"_nesting_depth" must be a whole number from 0 to 10', { span: e.value.span });
  return 1;
}

/** Exactly one primary key. */
export function checkPrimaryKey(diagnostics: DiagnosticBag, model: ModelDraft): void {
  if (model.withoutProperties) return;
  const keys = model.fields.filter((f) => f.field.primaryKey);
  if (keys.length === 1) {
    model.primaryKey = keys[0]!.field.name;
    return;
  }
  if (keys.length === 0) {
    diagnostics.report('SVC2014', `model ${model.name} has no primary key`, {
      span: model.definedAt,
      hint: 'mark one field "primary_key": true, e.g. "id": {"_db_settings": {"type": "id_field", "primary_key": true}}',
    });
    return;
  }
  for (const extra of keys.slice(1)) {
    diagnostics.report(
      'SVC2015',
      `model ${model.name} has more than one primary key: ${keys.map((k) => k.field.name).join(', ')}`,
      {
        span: extra.nameSpan,
        hint: 'composite keys are not supported; keep "primary_key" on one field and make the others "unique"',
      },
    );
  }
  model.primaryKey = keys[0]!.field.name;
}

/** A field svcgen adds (default user fields, backrefs, foreign keys). */
export function synthesizedField(name: string, overrides: Partial<MutableField>): MutableField {
  return {
    name,
    type: 'string',
    primaryKey: false,
    required: false,
    requiredOnCreate: false,
    unique: false,
    index: false,
    generated: false,
    default: null,
    onUpdate: null,
    minLength: null,
    maxLength: null,
    minValue: null,
    maxValue: null,
    choices: null,
    itemType: null,
    scale: null,
    precision: null,
    helpText: null,
    foreignKey: null,
    relationship: null,
    processors: [],
    validation: {},
    synthesized: true,
    renamedFrom: null,
    readOnly: false,
    writeOnce: false,
    ...overrides,
    // Text fields svcgen adds (a default user's username and email) are searched, as a schema's are.
    search: overrides.search ?? TEXT_FIELD_TYPES.has(overrides.type ?? 'string'),
  };
}

/** The user model's four fields, added where the schema lacks them. */
export function authFields(hasPrimaryKey: boolean): MutableField[] {
  return [
    synthesizedField('username', {
      primaryKey: !hasPrimaryKey,
      required: true,
      unique: true,
      minLength: 1,
      maxLength: 50,
      helpText: 'login name',
    }),
    synthesizedField('email', {
      required: true,
      unique: true,
      validation: { format: 'email' },
      helpText: 'e-mail address',
    }),
    synthesizedField('password', {
      required: true,
      minLength: 8,
      helpText: 'stored as an argon2id hash, never returned',
    }),
    synthesizedField('groups', {
      type: 'list',
      itemType: 'string',
      default: { kind: 'literal', value: ['user'] },
      helpText: 'g:<group> principals; only admins can change them',
    }),
  ];
}

/** The `_db_settings` type a property's JSON `type` suggests (`"integer"` → `integer`), for hints. */
const STORAGE_OF_JSON_TYPE: Readonly<Record<string, string>> = {
  string: 'string',
  integer: 'integer',
  number: 'float',
  boolean: 'boolean',
  array: 'list',
  object: 'dict',
};

/** The field type a string of a JSON Schema format is stored as. */
const STORAGE_OF_FORMAT: Readonly<Record<string, string>> = { date: 'date', 'date-time': 'datetime', time: 'time' };

/**
 * A property without `_db_settings` was documentation in Ramses: neither stored nor served. It
 * still is, unless a relationship adds a field of its name (a documented backref); a warning says
 * so, since a user who adds `"born": {"type": "integer"}` expects a field.
 */
export function warnOfDocumentationOnly(diagnostics: DiagnosticBag, model: ModelDraft): void {
  const names = new Set(model.fields.map((f) => f.field.name));
  for (const property of model.documentationOnly ?? []) {
    const name = property.key.text;
    if (names.has(name)) continue;
    // `_db_setings`, `_dbsettings`: a field meant, not documentation.
    const misspelt = isMap(property.value)
      ? property.value.entries.find((e) => e.key.text !== '_db_settings' && closest(e.key.text, ['_db_settings']))
      : undefined;
    if (misspelt) {
      diagnostics.report(
        'SVC2082',
        `property "${name}" of ${model.name} has "${misspelt.key.text}", not "_db_settings": svcgen would neither store nor serve it`,
        { span: misspelt.key.span, hint: 'did you mean `_db_settings`?' },
      );
      continue;
    }
    const type = get(property.value as YMap, 'type');
    const jsonTypes = isScalar(type) ? [type.text] : isSeq(type) ? type.items.filter(isScalar).map((t) => t.text) : [];
    const format = get(property.value as YMap, 'format');
    const storage =
      (isScalar(format) ? STORAGE_OF_FORMAT[format.text] : undefined) ??
      jsonTypes.map((t) => STORAGE_OF_JSON_TYPE[t]).find((t) => t !== undefined) ??
      'string';
    diagnostics.report(
      'SVC2074',
      `property "${name}" of ${model.name} has no "_db_settings": svcgen neither stores nor serves it`,
      {
        span: property.key.span,
        hint: `to make it a field, add "_db_settings": {"type": "${storage}"}; without, it is documentation only (as in Ramses)`,
      },
    );
  }
}
