/**
 * Values → TypeScript source. Every string from the API goes through JSON.stringify, so names,
 * descriptions and enum values cannot break out of a literal (no code can be injected through the API);
 * `raw` marks the few places that are code (function references), built from checked identifiers.
 */
const RAW = Symbol('raw');

export interface Raw {
  readonly [RAW]: string;
}

export function raw(code: string): Raw {
  return { [RAW]: code };
}

function isRaw(value: unknown): value is Raw {
  return typeof value === 'object' && value !== null && RAW in value;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function literal(value: unknown): string {
  if (isRaw(value)) return value[RAW];
  if (value === undefined) return 'undefined';
  if (value === null || typeof value === 'boolean' || typeof value === 'number') return JSON.stringify(value);
  if (typeof value === 'string') return quote(value);
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  return `{ ${entries.map(([k, v]) => `${IDENTIFIER.test(k) && k !== '__proto__' ? k : quote(k)}: ${literal(v)}`).join(', ')} }`;
}

/** A string literal in single quotes (the generated code's style), safe for any content. */
export function quote(text: string): string {
  const json = JSON.stringify(text)
    .slice(1, -1)
    .replace(/\\"/g, '"')
    .replace(/'/g, "\\'")
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
  return `'${json}'`;
}

/** Text for inside a comment: no `*\/`, no line breaks that could end a `//` comment. */
export function commentText(text: string): string {
  return text
    .replace(/\*\//g, '* /')
    .replace(/[\r\n\u2028\u2029]+/g, ' ')
    .trim();
}

/** A multi-line string as a template literal (for SQL), with nothing interpolated. */
export function templateLiteral(text: string): string {
  return `\`${text.replace(/[\\`]/g, (c) => `\\${c}`).replace(/\$\{/g, '\\${')}\``;
}
