/**
 * A literal `default` (or `onupdate`) is a value the service stores without checking it, as it
 * checks what a client sends: one its field could never take from a client (500 over
 * `max_value`, `blue` outside `choices`, `yes` for a boolean) would be served against the field's
 * own rules, and its OpenAPI document.
 */
import { isBase64 } from '../../../runtime/src/lib/http/patterns.js';
import { parseDate, parseDatetime, parseTime } from '../../../runtime/src/lib/values.js';
import { INTEGER_RANGE, type Field, type FieldType, type Literal } from '../types.js';

type Checked = Pick<Field, 'type' | 'minLength' | 'maxLength' | 'minValue' | 'maxValue' | 'choices' | 'itemType'>;

/** The whole numbers a value of an integer type may be: its column's, and no negative seconds (as its JSON schema). */
function wholeRange(type: FieldType): readonly [number, number] | undefined {
  // An id_field's value is the database's to give: its defaults are not looked at.
  if (type === 'id_field' || !(type in INTEGER_RANGE)) return undefined;
  const [low, high] = INTEGER_RANGE[type as keyof typeof INTEGER_RANGE];
  return [type === 'interval' ? 0 : low, high];
}

const TEXT: ReadonlySet<FieldType> = new Set(['string', 'text', 'unicode', 'unicode_text']);

/** Why `value` cannot be a value of `field` (undefined: it can). `null` can always be (no value). */
export function literalProblem(field: Checked, value: Literal): string | undefined {
  if (value === null) return undefined;
  if (field.type === 'list') {
    if (!Array.isArray(value)) return 'is not a list';
    const item: Checked = { ...field, type: field.itemType ?? 'string', minLength: null, maxLength: null };
    for (const v of value as readonly Literal[]) {
      const problem = literalProblem(item, v);
      if (problem) return `has an item, ${JSON.stringify(v)}, that ${problem}`;
    }
    return undefined;
  }
  if (field.choices && !field.choices.some((c) => c === value))
    return `is not one of its choices (${field.choices.map((c) => JSON.stringify(c)).join(', ')})`;
  const whole = wholeRange(field.type);
  if (whole) {
    if (typeof value !== 'number' || !Number.isInteger(value)) return 'is not a whole number';
    if (value < whole[0] || value > whole[1])
      return `is outside what a ${field.type} holds (${whole[0]} to ${whole[1]})`;
    return rangeProblem(field, value);
  }
  switch (field.type) {
    case 'float':
    case 'decimal':
      return typeof value === 'number' ? rangeProblem(field, value) : 'is not a number';
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'is not true or false';
    case 'date':
      return typeof value === 'string' && parseDate(value) ? undefined : 'is not a date (YYYY-MM-DD)';
    case 'datetime':
      return typeof value === 'string' && parseDatetime(value) ? undefined : 'is not a date and time (ISO 8601)';
    case 'time':
      return typeof value === 'string' && parseTime(value) ? undefined : 'is not a time (HH:MM:SS)';
    case 'dict':
      return typeof value === 'object' && !Array.isArray(value) ? undefined : 'is not an object';
    case 'file':
      return typeof value === 'string' && isBase64(value) ? undefined : 'is not base64';
    default:
      if (!TEXT.has(field.type)) return undefined;
      return typeof value === 'string' ? lengthProblem(field, value) : 'is not text';
  }
}

function rangeProblem(field: Checked, value: number): string | undefined {
  if (field.minValue !== null && value < field.minValue) return `is below its min_value ${field.minValue}`;
  if (field.maxValue !== null && value > field.maxValue) return `is above its max_value ${field.maxValue}`;
  return undefined;
}

function lengthProblem(field: Checked, value: string): string | undefined {
  // In code points, as the service's validation counts a client's text.
  let length = 0;
  for (const _ of value) length++;
  if (field.minLength !== null && length < field.minLength) return `is shorter than its min_length ${field.minLength}`;
  if (field.maxLength !== null && length > field.maxLength) return `is longer than its max_length ${field.maxLength}`;
  return undefined;
}
