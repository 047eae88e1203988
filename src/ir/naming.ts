/** How names in the API become names in the service: models, tables, identifiers. */
import pluralize from 'pluralize';

/**
 * The model of `/stories` is `Story`, of `/alien-users` is `AlienUser`: the route
 * segment split into words at anything that is not a letter or digit, the last word singularized,
 * every word capitalized.
 */
export function modelNameOf(segment: string): string {
  const words = segment.split(/[^A-Za-z0-9]+/).filter((w) => w !== '');
  if (words.length === 0) return '';
  const last = words.length - 1;
  words[last] = singular(words[last]!);
  return words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
}

function singular(word: string): string {
  const s = pluralize.singular(word);
  // Keep the original case pattern ("USERS" → "USER", "users" → "user").
  return word === word.toUpperCase() && word !== word.toLowerCase() ? s.toUpperCase() : s;
}

/** `Example REST API` → `example-rest-api`: a package name and database name. */
export function slug(text: string): string {
  const s = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return s === '' ? 'service' : s.slice(0, 60).replace(/-+$/, '');
}

const RESERVED_WORDS = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally for function if import in ' +
    'instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface package ' +
    'private protected public await arguments eval undefined NaN Infinity constructor prototype __proto__ toString valueOf hasOwnProperty'
  ).split(' '),
);

/** A name usable as a TypeScript identifier, a module name and an object key without surprises. */
export function isSafeIdentifier(name: string): boolean {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) && !RESERVED_WORDS.has(name);
}

/**
 * The hint for a function name that is spelt as an identifier but is a reserved word (`delete`,
 * `switch`, `import`: fine names in Python, Ramses' language); undefined for any other name.
 */
export function reservedWordHint(name: string, example: string): string | undefined {
  if (!/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) || !RESERVED_WORDS.has(name)) return undefined;
  return `"${name}" is a reserved word in JavaScript, so it cannot name a function: call it otherwise, e.g. ${example}`;
}

/** PostgreSQL's longest name, in bytes (field names are ASCII). */
const MAX_FIELD_NAME = 63;

/** Field names: identifiers that are not reserved words and cannot be mistaken for query syntax. */
const POSTGRES_SYSTEM_COLUMNS = new Set(['tableoid', 'xmin', 'cmin', 'xmax', 'cmax', 'ctid']);

export function fieldNameProblem(name: string): string | undefined {
  if (name.startsWith('_'))
    return 'names starting with "_" are reserved for query parameters (_limit, _sort, _fields, …)';
  if (name === 'q') return '"q" is the full-text search query parameter';
  if (name.includes('__')) return '"__" separates a field from a filter operator (name__gt)';
  if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(name))
    return 'field names must start with a letter and contain only letters, digits and "_"';
  // Field names are only ever object keys in the generated code, so `class` or `default` are fine;
  // a name every plain object already has (`toString`, `constructor`…) is not: a body that leaves
  // the field out still "has" it, and validation saw the inherited function as its value.
  if (name === 'prototype' || name in Object.prototype)
    return `"${name}" is a property of every JavaScript object, so it cannot be used as a field name`;
  // A column of that name (in any case) hides SQLite's row id, which the search index is keyed by.
  if (name.toLowerCase() === 'rowid') return `"${name}" is SQLite's name for the id of a row`;
  // PostgreSQL's system columns: a table cannot have a column of one of these names (the initial
  // migration failed at start-up, on PostgreSQL only). Identifiers are quoted, so only these spellings.
  if (POSTGRES_SYSTEM_COLUMNS.has(name)) return `"${name}" is one of PostgreSQL's system columns`;
  // PostgreSQL names the search vector of a text field `svc_search_<field>`.
  if (name.startsWith('svc_search_')) return 'names starting with "svc_search_" are the search index\'s columns';
  // A field is a column of its name, and PostgreSQL cuts a longer name without a word: the value
  // would be stored, and then read back under another name, so never returned.
  if (name.length > MAX_FIELD_NAME) return `field names are at most ${MAX_FIELD_NAME} characters (PostgreSQL's limit)`;
  return undefined;
}

/** `AlienUser` → `alien-user`: file names of the generated project (the checks make sure no two collide). */
export function kebab(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .toLowerCase()
    .replace(/^-+|-+$/g, '');
}
