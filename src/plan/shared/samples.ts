/**
 * Sample data: for each model, an expression that builds valid create data from a number `n`
 * (unique fields differ for every `n`), and a change for update tests, for the generated tests;
 * the same data as values, for the OpenAPI document's examples. Each sample is written once, as
 * code and as the value that code makes, so the two never differ.
 * Relationships are left out: the tests' `seed` links required ones itself.
 */
import { patternTemplate, templateValue } from './pattern-sample.js';
import { TEXT_FIELD_TYPES, type Field, type Literal, type Model } from '../../ir/types.js';
import { literal, quote } from './literal.js';
import { schemaSample } from './schema-sample.js';

export interface ModelSamples {
  /** The properties of the create data, as code using `n`: `name: \`name-${n}\`, done: true`. */
  readonly properties: string;
  /** A field a PATCH can change, and its new value as code; null when the model has none. */
  readonly change: { readonly field: string; readonly value: string } | null;
}

/** A field's sample: as code using `n`, and as the value that code makes for a given `n`. */
export interface Sample {
  readonly code: string;
  readonly value: (n: number) => unknown;
}

const CHANGED = 'changed';

export function modelSamples(model: Model): ModelSamples {
  const change = changeableField(model);
  return {
    properties: sampledFields(model)
      .map((f) => `${f.name}: ${fieldSample(f).code}`)
      .join(', '),
    change: change ? { field: change.name, value: quote(CHANGED) } : null,
  };
}

/**
 * The fields a create must give that `samples.<Model>(n)` does not (required links, read-only
 * fields): the tests add them, from the objects they make first, or the user's custom samples.
 */
export function unsampledRequired(model: Model): string[] {
  return model.fields
    .filter((f) => f.requiredOnCreate && !f.generated && f.type !== 'foreign_key' && !sampled(f))
    .map((f) => f.name);
}

/** The create data `samples.<Model>(n)` of the generated tests makes (no relationships). */
export function sampleObject(model: Model, n: number): Record<string, unknown> {
  return Object.fromEntries(sampledFields(model).map((f) => [f.name, fieldSample(f).value(n)]));
}

/** The change `changes.<Model>` of the generated tests makes; null when the model has no field for it. */
export function sampleChange(model: Model): Record<string, unknown> | null {
  const change = changeableField(model);
  return change ? { [change.name]: CHANGED } : null;
}

/**
 * The fields a sample gives, a field of a `_unique_together` set sampled as a unique one (a value
 * per `n`): a probe's tests made more plans than two fields of a set had fixed samples for.
 */
function sampledFields(model: Model): Field[] {
  const inSets = new Set(model.uniqueTogether.flat());
  return model.fields.filter((f) => sampled(f)).map((f) => (inSets.has(f.name) ? { ...f, unique: true } : f));
}

function changeableField(model: Model): Field | undefined {
  return sampledFields(model).find(
    (f) =>
      !f.primaryKey &&
      !f.writeOnce &&
      !f.unique &&
      f.name !== 'email' &&
      TEXT_FIELD_TYPES.has(f.type) &&
      !f.choices &&
      !('format' in f.validation || 'enum' in f.validation || 'pattern' in f.validation) &&
      (f.maxLength ?? Infinity) >= CHANGED.length &&
      (f.minLength ?? 0) <= CHANGED.length,
  );
}

/** Written by clients (not read-only: the tests write as members too), not a link, and something a sample can satisfy. */
function sampled(field: Field): boolean {
  if (field.generated || field.readOnly || field.type === 'relationship' || field.type === 'foreign_key') return false;
  const hard =
    'pattern' in field.validation ||
    'const' in field.validation ||
    ('format' in field.validation && !isKnownFormat(field.validation['format'])) ||
    (field.type === 'dict' && shapedDict(field) === undefined);
  return field.requiredOnCreate || !hard;
}

/** JSON Schema keywords that give a dict a shape: its sample is made from them. */
const SHAPE = ['properties', 'required', 'additionalProperties', 'patternProperties', 'propertyNames', 'minProperties'];

/**
 * A value of a dict field's shape (schema-sample.ts); `{ key: 'value' }` for a dict without one,
 * undefined for a shape no sample is sure to meet.
 */
function shapedDict(field: Field): unknown {
  if (!SHAPE.some((keyword) => keyword in field.validation)) return { key: 'value' };
  return schemaSample({ type: 'object', ...field.validation });
}

/** A key and value a merge into a dict field may add (the first key its shape declares); undefined where unsure. */
export function dictEntry(field: Field): { key: string; value: unknown } | undefined {
  const properties = field.validation['properties'];
  const declared =
    typeof properties === 'object' && properties !== null ? Object.entries(properties as object)[0] : undefined;
  if (declared) {
    const value = schemaSample(declared[1]);
    return value === undefined ? undefined : { key: declared[0], value };
  }
  if (field.validation['patternProperties'] !== undefined) return undefined;
  const names = field.validation['propertyNames'];
  const key = names === undefined ? 'added' : namedKey(names);
  const extra = field.validation['additionalProperties'];
  if (key === undefined || extra === false) return undefined;
  const value = schemaSample(extra === undefined || extra === true ? { type: 'string' } : extra);
  return value === undefined ? undefined : { key, value };
}

/** A key `propertyNames` surely takes: its first choice (`enum`) or its `const`; undefined where unsure (a `pattern`). */
function namedKey(names: unknown): string | undefined {
  if (typeof names !== 'object' || names === null) return undefined;
  const schema = names as Record<string, unknown>;
  if (Object.keys(schema).some((k) => !['enum', 'const', 'type', 'description', 'title'].includes(k))) return undefined;
  if (typeof schema['const'] === 'string') return schema['const'];
  return Array.isArray(schema['enum']) ? schema['enum'].find((v): v is string => typeof v === 'string') : undefined;
}

const TEMPORAL = { datetime: '2026-01-02T03:04:05Z', date: '2026-01-02', time: '03:04:05' } as const;

const KNOWN_FORMATS = new Set(['email', 'uri', 'url', 'date-time', 'date', 'time', 'uuid']);

/** A fixed value: its code is its literal. */
function fixed(value: unknown): Sample {
  return { code: literal(value), value: () => structuredClone(value) };
}

/**
 * The sample of one field. Sampling a field the tests do not sample (a generated key, say) is
 * fine: a path parameter's example is its key's sample.
 */
export function fieldSample(field: Field): Sample {
  const choices =
    field.choices ??
    (Array.isArray(field.validation['enum']) ? (field.validation['enum'] as readonly Literal[]) : null);
  switch (field.type) {
    case 'string':
    case 'text':
    case 'unicode':
    case 'unicode_text':
      return listed(choices) ?? (choices?.length ? fixed(null) : text(field));
    case 'integer':
    case 'big_integer':
    case 'small_integer':
    case 'id_field':
    case 'float':
    case 'decimal':
      return listed(choices) ?? number(field);
    case 'interval':
      return listed(choices) ?? fixed(Math.max(field.minValue ?? 60, 0));
    case 'boolean':
      return listed(choices) ?? fixed(true);
    case 'datetime':
    case 'date':
    case 'time':
      if (field.unique && !choices?.length) return temporalPerN(field.type);
      return listed(choices) ?? fixed(TEMPORAL[field.type]);
    case 'choice':
      return fixed(choices?.[0] ?? null);
    case 'list':
      return choices?.length ? listOfOne(choices.find((choice) => choice !== null) ?? null) : listOf(field);
    case 'dict':
      if (!SHAPE.some((keyword) => keyword in field.validation))
        return { code: "{ key: 'value' }", value: () => ({ key: 'value' }) };
      // A required dict whose shape no sample meets: `{}`, for the user's custom samples to mend.
      return fixed(shapedDict(field) ?? {});
    case 'file':
      return fixed(Buffer.from('hello').toString('base64'));
    case 'pickle':
      return { code: "{ any: ['json', 1] }", value: () => ({ any: ['json', 1] }) };
    case 'relationship':
    case 'foreign_key':
      return fixed(null);
  }
}

/**
 * A date, date and time or time that differs for every `n` (a unique one: a probe's unique
 * `week_start` was the same date for every object the tests made): days, seconds or seconds of
 * the day after the fixed sample's.
 */
function temporalPerN(type: 'datetime' | 'date' | 'time'): Sample {
  const code = {
    datetime: '`${new Date(Date.UTC(2026, 0, 2, 3, 4, 5 + n)).toISOString().slice(0, 19)}Z`',
    date: 'new Date(Date.UTC(2026, 0, 2 + n)).toISOString().slice(0, 10)',
    time: 'new Date(((11045 + n) % 86400) * 1000).toISOString().slice(11, 19)',
  }[type];
  const value = {
    datetime: (n: number) => `${new Date(Date.UTC(2026, 0, 2, 3, 4, 5 + n)).toISOString().slice(0, 19)}Z`,
    date: (n: number) => new Date(Date.UTC(2026, 0, 2 + n)).toISOString().slice(0, 10),
    time: (n: number) => new Date(((11045 + n) % 86400) * 1000).toISOString().slice(11, 19),
  }[type];
  return { code, value };
}

/** The first value a JSON Schema `enum` allows but null (`"enum": [25, 45]` on an integer: 25), if there is one. */
function listed(choices: readonly Literal[] | null): Sample | undefined {
  const value = choices?.find((choice) => choice !== null);
  return value === undefined ? undefined : fixed(value);
}

/** A list of one choice. */
function listOfOne(choice: Literal): Sample {
  return { code: `[${literal(choice)}]`, value: () => [choice] };
}

function text(field: Field): Sample {
  const name = field.name;
  // A user's `email` is an address even without `format`: the service refuses a login email with no @.
  const format = name === 'email' ? 'email' : field.validation['format'];
  switch (format) {
    case 'email':
      return { code: `\`${name}\${n}@example.com\``, value: (n) => `${name}${n}@example.com` };
    case 'uri':
    case 'url':
      return { code: `\`https://example.com/${name}/\${n}\``, value: (n) => `https://example.com/${name}/${n}` };
    case 'uuid':
      return {
        code: "`00000000-0000-4000-8000-${String(n).padStart(12, '0')}`",
        value: (n) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
      };
    case 'date-time':
      return fixed(TEMPORAL.datetime);
    case 'date':
    case 'time':
      return fixed(TEMPORAL[format]);
  }
  const plain = plainText(field);
  // Where the plain sample does not meet the field's `pattern`, one read from the pattern.
  const pattern = patternOf(field);
  return pattern && !pattern.fits(plain) ? (patternSample(pattern) ?? plain) : plain;
}

function plainText(field: Field): Sample {
  const name = field.name;
  const min = field.minLength ?? 0;
  const max = field.maxLength;
  // Short fields hold just the number, zero-padded to their minimum length.
  if (max !== null && max < name.length + 8) {
    const width = Math.max(min, 1);
    return {
      code: `String(n).padStart(${width}, '0').slice(-${max})`,
      value: (n) => String(n).padStart(width, '0').slice(-max),
    };
  }
  // `name-1` has at least the name's length plus two characters.
  if (min > name.length + 2)
    return { code: `\`${name}-\${n}\`.padEnd(${min}, 'x')`, value: (n) => `${name}-${n}`.padEnd(min, 'x') };
  return { code: `\`${name}-\${n}\``, value: (n) => `${name}-${n}` };
}

/** A field's `pattern`, and whether a sample meets it (and the field's lengths) for every `n` tried. */
interface FieldPattern {
  readonly text: string;
  fits(sample: Sample): boolean;
}

function patternOf(field: Field): FieldPattern | undefined {
  const text = field.validation['pattern'];
  if (typeof text !== 'string') return undefined;
  let regex: RegExp;
  try {
    regex = new RegExp(text, 'u');
  } catch {
    return undefined;
  }
  const fitsValue = (value: unknown) =>
    typeof value === 'string' &&
    regex.test(value) &&
    value.length >= (field.minLength ?? 0) &&
    (field.maxLength === null || value.length <= field.maxLength);
  return { text, fits: (sample) => [1, 7, 1234, 99999].every((n) => fitsValue(sample.value(n))) };
}

/**
 * A sample read from the pattern (pattern-sample.ts), if it meets it; none where it is not read:
 * the project's `test/custom-samples.ts` then says the value (its README).
 */
function patternSample(pattern: FieldPattern): Sample | undefined {
  const template = patternTemplate(pattern.text);
  if (!template) return undefined;
  const { prefix, width, suffix } = template;
  const parts = [
    ...(prefix ? [JSON.stringify(prefix)] : []),
    ...(width ? [`String(n).padStart(${width}, '0').slice(-${width})`] : []),
    ...(suffix ? [JSON.stringify(suffix)] : []),
  ];
  const sample = { code: parts.length ? parts.join(' + ') : "''", value: (n: number) => templateValue(template, n) };
  return pattern.fits(sample) ? sample : undefined;
}

function number(field: Field): Sample {
  const min = field.minValue ?? 1;
  const max = field.maxValue;
  if (field.unique || field.primaryKey) {
    return max !== null
      ? { code: `Math.min(${max}, ${min} + n)`, value: (n) => Math.min(max, min + n) }
      : { code: `${min} + n`, value: (n) => min + n };
  }
  const bounded = NUMBER_KEYWORDS.filter((keyword) => keyword in field.validation);
  if (bounded.length === 0) return fixed(max !== null ? Math.min(max, min) : min);
  // The schema's own bounds and steps (`"multipleOf": 5`) with the field's `min_value`/`max_value`.
  const value = schemaSample({
    type: INTEGERS.has(field.type) ? 'integer' : 'number',
    ...Object.fromEntries(bounded.map((keyword) => [keyword, field.validation[keyword]])),
    ...tighter('minimum', field.minValue, field.validation['minimum'], Math.max),
    ...tighter('maximum', field.maxValue, field.validation['maximum'], Math.min),
  });
  return fixed(typeof value === 'number' ? value : min);
}

const NUMBER_KEYWORDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'] as const;
const INTEGERS = new Set(['integer', 'big_integer', 'small_integer', 'id_field']);

/** `{ [keyword]: the tighter of the two bounds }`, or nothing where neither is given. */
function tighter(
  keyword: string,
  own: number | null,
  schema: unknown,
  pick: (a: number, b: number) => number,
): Record<string, number> {
  const bounds = [own, schema].filter((b): b is number => typeof b === 'number');
  return bounds.length ? { [keyword]: bounds.reduce(pick) } : {};
}

function listOf(field: Field): Sample {
  switch (field.itemType) {
    case 'integer':
    case 'big_integer':
    case 'small_integer':
    case 'float':
    case 'decimal':
    case 'interval':
    case 'id_field':
      return { code: '[1, 2]', value: () => [1, 2] };
    case 'boolean':
      return { code: '[true]', value: () => [true] };
    default:
      return { code: "['a', 'b']", value: () => ['a', 'b'] };
  }
}

function isKnownFormat(format: unknown): boolean {
  return typeof format === 'string' && KNOWN_FORMATS.has(format);
}
