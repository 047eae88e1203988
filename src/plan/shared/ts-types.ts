/**
 * The TypeScript declaration of a model's record, create or update type, from the JSON Schemas of
 * its fields, in the text json-schema-to-typescript prints for them (the formatter lays it out).
 *
 * Why not json-schema-to-typescript itself: loading and running it was a quarter of a cold
 * generation (bench/RESULTS.md, "Cold generation"), for schemas that are almost always a type or
 * two, an enum, a list or a dict — and, for the typed client's answers, a `const` (`_type`), a
 * `tsType` (an embedded object's type), an `anyOf` of those (a key or the object) and an open
 * object. It still prints whatever this does not know: `interfaceSource` answers undefined for a
 * user's `items` with properties, tuples (`minItems`), and any other keyword, and the caller hands
 * that model to json-schema-to-typescript.
 * test/plan/ts-types.test.ts holds the two to the same text, on every fixture's models and on
 * random schemas.
 */
type Schema = Readonly<Record<string, unknown>>;

/** Keywords that constrain values but do not change their TypeScript type. */
const VALUE_ONLY = new Set([
  'format',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'uniqueItems',
  'contentEncoding',
  'minProperties',
  'maxProperties',
]);

const SCALARS: Readonly<Record<string, string>> = {
  string: 'string',
  integer: 'number',
  number: 'number',
  boolean: 'boolean',
  null: 'null',
};

/**
 * `export interface <name> { … }` under its doc comment, for a JSON Schema of an object
 * (`properties`, `required`), or undefined if a schema needs json-schema-to-typescript.
 */
export function interfaceSource(name: string, description: string, objectSchema: Schema): string | undefined {
  const properties = objectSchema['properties'] as Readonly<Record<string, Schema>>;
  const required = objectSchema['required'] as readonly string[];
  const lines: string[] = [];
  for (const [key, schema] of Object.entries(properties)) {
    const type = typeSource(schema, ['description']);
    if (type === undefined) return undefined;
    if (typeof schema['description'] === 'string') lines.push(...docComment(schema['description']));
    else if (schema['description'] !== undefined) return undefined;
    lines.push(`${keyName(key)}${required.includes(key) ? '' : '?'}: ${type}`);
  }
  const open = objectSchema['additionalProperties'];
  if (open === true) lines.push('[k: string]: unknown');
  else if (open !== undefined && open !== false) return undefined;
  return [...docComment(description), `export interface ${name} {\n${lines.join('\n')}\n}`].join('\n');
}

/** The type of a value; `allowed`: further keywords this schema may have (a property's description). */
function typeSource(schema: Schema, allowed: readonly string[] = []): string | undefined {
  const keywords = Object.keys(schema).filter((k) => !VALUE_ONLY.has(k) && !allowed.includes(k));
  const only = (keyword: string) => keywords.every((k) => k === keyword);
  if ('tsType' in schema) return only('tsType') && typeof schema['tsType'] === 'string' ? schema['tsType'] : undefined;
  // A property's own const only (`_type`): inside a list or a union json-schema-to-typescript prints it otherwise.
  if ('const' in schema) return only('const') && allowed.length > 0 ? literalSource(schema['const']) : undefined;
  if ('anyOf' in schema) return only('anyOf') ? unionSource(schema['anyOf']) : undefined;
  if ('enum' in schema)
    return keywords.every((k) => k === 'enum' || k === 'type') && enumWins(schema['type'])
      ? enumSource(schema['enum'])
      : undefined;
  const type = schema['type'];
  // Not even a description: json-schema-to-typescript reads an untyped schema with keywords as an object.
  if (type === undefined) return Object.keys(schema).length === 0 ? 'unknown' : undefined;
  const types =
    typeof type === 'string' ? [type] : Array.isArray(type) && type.length > 1 ? (type as unknown[]) : undefined;
  if (!types || new Set(types.map((t) => SCALARS[t as string] ?? t)).size !== types.length) return undefined;
  // Each keyword left must be one of a member's own: `items` of an array, `additionalProperties` of an object.
  const own = new Set<string>(
    types.map((t) => (t === 'array' ? 'items' : t === 'object' ? 'additionalProperties' : 'type')),
  );
  if (!keywords.every((k) => k === 'type' || own.has(k))) return undefined;
  const members = types.map((t) => memberSource(t, schema));
  if (members.some((m) => m === undefined)) return undefined;
  return members.length === 1 ? members[0] : `(${members.join(' | ')})`;
}

/** A `const`: its JSON text, for a string, a finite number or a boolean. */
function literalSource(value: unknown): string | undefined {
  const literal =
    typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
  return literal ? JSON.stringify(value) : undefined;
}

/** An `anyOf` of two or more schemas this prints: `(A | B | null)`. */
function unionSource(members: unknown): string | undefined {
  if (!Array.isArray(members) || members.length < 2) return undefined;
  const types = members.map((m) =>
    typeof m === 'object' && m !== null && !Array.isArray(m) ? typeSource(m as Schema) : undefined,
  );
  return types.some((t) => t === undefined) ? undefined : `(${types.join(' | ')})`;
}

function memberSource(type: unknown, schema: Schema): string | undefined {
  if (typeof type === 'string' && SCALARS[type]) return SCALARS[type];
  if (type === 'array') return arraySource(schema['items']);
  if (type === 'object') return schema['additionalProperties'] === true ? '{\n[k: string]: unknown\n}' : undefined;
  return undefined;
}

function arraySource(items: unknown): string | undefined {
  if (items === undefined) return 'unknown[]';
  if (typeof items !== 'object' || items === null || Array.isArray(items)) return undefined;
  const item = typeSource(items as Schema);
  return item === undefined ? undefined : `${item}[]`;
}

/**
 * Where json-schema-to-typescript types an enum by its values alone: with no `type` or one scalar
 * one (what svcgen makes of choices). Not where `type` is `null`, `array` or `object`, nor a list of
 * types (it adds the types' own members).
 */
function enumWins(type: unknown): boolean {
  return type === undefined || (typeof type === 'string' && type !== 'null' && type in SCALARS);
}

function enumSource(values: unknown): string | undefined {
  // One value is printed bare or in parentheses depending on where it stands: left to json-schema-to-typescript.
  if (!Array.isArray(values) || values.length < 2) return undefined;
  const literals = values.map((v) =>
    v === null || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'string'
      ? JSON.stringify(v)
      : undefined,
  );
  if (literals.some((l) => l === undefined) || new Set(literals).size !== literals.length) return undefined;
  return `(${literals.join(' | ')})`;
}

/** As json-schema-to-typescript names a property: bare when it is an identifier, else quoted. */
function keyName(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key);
}

/** As json-schema-to-typescript writes a description: a comment line per line, a closing `*` + `/` broken up, none if empty. */
function docComment(text: string): string[] {
  if (text === '') return [];
  return ['/**', ...text.split('\n').map((line) => ` * ${line.replace(/\*\//g, '* /')}`), ' */'];
}
