/**
 * A value a JSON Schema takes, for the samples of a `dict` field whose shape the schema gives
 * (`properties`, `required`, `items`…): the generated tests send it, the OpenAPI document shows it.
 * Undefined where this cannot be sure of one (a `pattern`, a format it does not know, `not`, bounds
 * that leave nothing): such a field is then no sample's to fill (samples.ts `sampled`).
 */
type Schema = Readonly<Record<string, unknown>>;

const FORMATS: Readonly<Record<string, string>> = {
  'date-time': '2026-01-02T03:04:05Z',
  date: '2026-01-02',
  time: '03:04:05',
  email: 'someone@example.com',
  uri: 'https://example.com/',
  url: 'https://example.com/',
  uuid: '00000000-0000-4000-8000-000000000001',
};

/** Keywords this knows how to meet (or that ask nothing of a value); any other makes the value unsure. */
const KNOWN = new Set([
  'type',
  'description',
  'title',
  'default',
  'examples',
  'enum',
  'const',
  'format',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'items',
  'minItems',
  'maxItems',
  'uniqueItems',
  'properties',
  'required',
  'additionalProperties',
  'minProperties',
  'maxProperties',
]);

export function schemaSample(schema: unknown, depth = 0): unknown {
  if (schema === true || schema === undefined) return 'value';
  if (!isSchema(schema) || depth > 8 || Object.keys(schema).some((k) => !KNOWN.has(k))) return undefined;
  if ('const' in schema) return schema['const'];
  if (Array.isArray(schema['enum'])) return schema['enum'].find((v) => v !== null) ?? schema['enum'][0];
  const types = typeof schema['type'] === 'string' ? [schema['type']] : (schema['type'] as unknown[] | undefined);
  const type = types?.find((t) => t !== 'null') ?? (schema['properties'] ? 'object' : types?.[0]);
  switch (type) {
    case 'string':
      return stringSample(schema);
    case 'integer':
    case 'number':
      return numberSample(schema, type);
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array':
      return arraySample(schema, depth);
    case 'object':
      return objectSample(schema, depth);
    default:
      return undefined;
  }
}

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringSample(schema: Schema): string | undefined {
  const format = schema['format'];
  if (format !== undefined) return typeof format === 'string' ? FORMATS[format] : undefined;
  const min = typeof schema['minLength'] === 'number' ? schema['minLength'] : 0;
  const max = typeof schema['maxLength'] === 'number' ? schema['maxLength'] : Infinity;
  const text = 'value'.padEnd(min, 'x').slice(0, max);
  return text.length >= min ? text : undefined;
}

function numberSample(schema: Schema, type: 'integer' | 'number'): number | undefined {
  const num = (key: string) => (typeof schema[key] === 'number' ? schema[key] : undefined);
  const low = Math.max(num('minimum') ?? -Infinity, (num('exclusiveMinimum') ?? -Infinity) + 1);
  const high = Math.min(num('maximum') ?? Infinity, (num('exclusiveMaximum') ?? Infinity) - 1);
  const step = num('multipleOf');
  let value = Number.isFinite(low) ? Math.ceil(low) : Number.isFinite(high) ? Math.floor(high) : 1;
  if (step !== undefined) value = Math.ceil(value / step) * step;
  if (type === 'integer' && !Number.isInteger(value)) return undefined;
  return value >= low && value <= high ? value : undefined;
}

function arraySample(schema: Schema, depth: number): unknown[] | undefined {
  const min = typeof schema['minItems'] === 'number' ? schema['minItems'] : 0;
  const max = typeof schema['maxItems'] === 'number' ? schema['maxItems'] : Infinity;
  if (min > max) return undefined;
  const count = Math.min(Math.max(min, 1), max);
  if (count === 0) return [];
  const item = schemaSample(schema['items'], depth + 1);
  // Several of one item are not unique.
  if (item === undefined || (count > 1 && schema['uniqueItems'] === true)) return undefined;
  return Array.from({ length: count }, () => structuredClone(item));
}

function objectSample(schema: Schema, depth: number): Record<string, unknown> | undefined {
  const properties = isSchema(schema['properties']) ? schema['properties'] : {};
  const required = Array.isArray(schema['required']) ? schema['required'].map(String) : [];
  const names = [...new Set([...required, ...Object.keys(properties)])];
  const min = typeof schema['minProperties'] === 'number' ? schema['minProperties'] : 0;
  const max = typeof schema['maxProperties'] === 'number' ? schema['maxProperties'] : Infinity;
  // The required keys, and the others while there is room (none where a bound leaves no room).
  const chosen = names.slice(0, Math.max(required.length, Math.min(names.length, max)));
  if (chosen.length < min || chosen.length > max) return undefined;
  const out: Record<string, unknown> = {};
  for (const name of chosen) {
    const declared = properties[name];
    const extra = schema['additionalProperties'];
    if (declared === undefined && extra === false) return undefined;
    const value = schemaSample(declared ?? extra, depth + 1);
    if (value === undefined) return undefined;
    out[name] = value;
  }
  return out;
}
