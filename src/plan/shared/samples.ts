/**
 * Sample data for the generated tests: for each model, an expression that builds valid create
 * data from a number `n` (unique fields differ for every `n`), and a change for update tests.
 * Relationships are left out: the tests' `seed` links required ones itself.
 */
import type { Field, Literal, Model } from '../../ir/types.js';
import { literal, quote } from './literal.js';

export interface ModelSamples {
  /** The properties of the create data, as code using `n`: `name: \`name-${n}\`, done: true`. */
  readonly properties: string;
  /** A field a PATCH can change, and its new value as code; null when the model has none. */
  readonly change: { readonly field: string; readonly value: string } | null;
}

export function modelSamples(model: Model): ModelSamples {
  const fields = model.fields.filter((f) => sampled(f));
  const entries = fields.map((f) => `${f.name}: ${sampleValue(f)}`);
  const changed = 'changed';
  const changeable = fields.find(
    (f) =>
      !f.primaryKey &&
      !f.unique &&
      ['string', 'text', 'unicode', 'unicode_text'].includes(f.type) &&
      !f.choices &&
      !('format' in f.validation || 'enum' in f.validation || 'pattern' in f.validation) &&
      (f.maxLength ?? Infinity) >= changed.length &&
      (f.minLength ?? 0) <= changed.length,
  );
  return {
    properties: entries.join(', '),
    change: changeable ? { field: changeable.name, value: quote(changed) } : null,
  };
}

/** Written by clients, not a link, and something a sample can satisfy. */
function sampled(field: Field): boolean {
  if (field.generated || field.type === 'relationship' || field.type === 'foreign_key') return false;
  const hard =
    'pattern' in field.validation ||
    'const' in field.validation ||
    ('format' in field.validation && !isKnownFormat(field.validation['format']));
  return field.requiredOnCreate || !hard;
}

const TEMPORAL = { datetime: '2026-01-02T03:04:05Z', date: '2026-01-02', time: '03:04:05' } as const;

const KNOWN_FORMATS = new Set(['email', 'uri', 'url', 'date-time', 'date', 'time', 'uuid']);

function sampleValue(field: Field): string {
  const choices =
    field.choices ??
    (Array.isArray(field.validation['enum']) ? (field.validation['enum'] as readonly Literal[]) : null);
  switch (field.type) {
    case 'string':
    case 'text':
    case 'unicode':
    case 'unicode_text':
      return choices?.length ? literal(choices[0]) : text(field);
    case 'integer':
    case 'big_integer':
    case 'small_integer':
    case 'id_field':
    case 'float':
    case 'decimal':
      return number(field);
    case 'interval':
      return String(Math.max(field.minValue ?? 60, 0));
    case 'boolean':
      return 'true';
    case 'datetime':
    case 'date':
    case 'time':
      return quote(TEMPORAL[field.type]);
    case 'choice':
      return literal(choices?.[0] ?? null);
    case 'list':
      return choices?.length ? `[${literal(choices[0])}]` : listOf(field);
    case 'dict':
      return "{ key: 'value' }";
    case 'file':
      return quote(Buffer.from('hello').toString('base64'));
    case 'pickle':
      return "{ any: ['json', 1] }";
    case 'relationship':
    case 'foreign_key':
      return 'null';
  }
}

function text(field: Field): string {
  switch (field.validation['format']) {
    case 'email':
      return `\`${field.name}\${n}@example.com\``;
    case 'uri':
    case 'url':
      return `\`https://example.com/${field.name}/\${n}\``;
    case 'uuid':
      return "`00000000-0000-4000-8000-${String(n).padStart(12, '0')}`";
    case 'date-time':
      return quote(TEMPORAL.datetime);
    case 'date':
    case 'time':
      return quote(TEMPORAL[field.validation['format']]);
  }
  const min = field.minLength ?? 0;
  const max = field.maxLength;
  // Short fields hold just the number, zero-padded to their minimum length.
  if (max !== null && max < field.name.length + 8) return `String(n).padStart(${Math.max(min, 1)}, '0').slice(-${max})`;
  // `name-1` has at least the name's length plus two characters.
  return min > field.name.length + 2 ? `\`${field.name}-\${n}\`.padEnd(${min}, 'x')` : `\`${field.name}-\${n}\``;
}

function number(field: Field): string {
  const min = field.minValue ?? 1;
  const max = field.maxValue;
  if (field.unique || field.primaryKey) return max !== null ? `Math.min(${max}, ${min} + n)` : `${min} + n`;
  return String(max !== null ? Math.min(max, min) : min);
}

function listOf(field: Field): string {
  switch (field.itemType) {
    case 'integer':
    case 'big_integer':
    case 'small_integer':
    case 'float':
    case 'decimal':
    case 'interval':
    case 'id_field':
      return '[1, 2]';
    case 'boolean':
      return '[true]';
    default:
      return "['a', 'b']";
  }
}

function isKnownFormat(format: unknown): boolean {
  return typeof format === 'string' && KNOWN_FORMATS.has(format);
}
