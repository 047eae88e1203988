/**
 * The types of the generated client (client/src/index.ts), from the same model and field types
 * as the server's: each model as answers show it (the OpenAPI document's object: `_type`, `_pk`,
 * `_self`, no secrets, optional the fields that field privacy may leave out), the
 * create and update bodies the routes validate, and `where`, each field with the operators the
 * runtime's table allows on it (runtime/src/lib/query-operators.ts).
 */
import { operatorsFor, type FilteredField } from '../../../runtime/src/lib/query-operators.js';
import { holdsKey } from '../../ir/links.js';
import { seenByEveryone } from '../../ir/privacy.js';
import type { Field, Model, ServiceIR } from '../../ir/types.js';
import { compiledType, typeDeclarations, type TypeDeclaration } from '../models/model-file.js';
import { shownObjectSchema } from '../openapi/schemas.js';
import { isSecretField, type FieldTypes } from '../shared/field-types.js';
import { literal } from '../shared/literal.js';
import { withPasswordProof } from '../shared/password-proof.js';
import { interfaceSource } from '../shared/ts-types.js';
import type { HelperNames } from './helper-names.js';

type Schema = Readonly<Record<string, unknown>>;

/** An operator set of the query language, named by the kind of field it is for (`OnText`). */
export interface OperatorSet {
  readonly name: string;
  readonly doc: string;
  /** `{ '': 'list'; gt: 'one'; … }`: each operator's suffix and what it takes. */
  readonly operators: string;
}

/** The names of a model's types in the client. */
export function clientTypeNames(model: Pick<Model, 'name'>) {
  return {
    item: model.name,
    create: `${model.name}Create`,
    update: `${model.name}Update`,
    where: `${model.name}Where`,
    field: `${model.name}Field`,
  };
}

/** A PATCH of the users' model also takes the proof of a password change (shared/password-proof.ts). */
function withProof(model: Model, update: TypeDeclaration): TypeDeclaration {
  const properties = withPasswordProof(model, update.schema['properties'] as Record<string, unknown>);
  return { ...update, schema: { ...update.schema, properties } };
}

/** The declarations of a model's answer, bodies and `where`, as source text. */
export async function modelTypes(
  ir: Pick<ServiceIR, 'models' | 'auth'>,
  model: Model,
  types: FieldTypes,
  sets: OperatorSets,
  helpers: HelperNames,
): Promise<string> {
  const names = clientTypeNames(model);
  const answer = shownObjectSchema(types, model, (target) => ({ tsType: clientTypeNames({ name: target }).item }));
  const [, create, update] = typeDeclarations(model, types);
  const declarations = await Promise.all(
    [
      { name: names.item, description: String(answer['description']), schema: withAlwaysShown(ir, model, answer) },
      create!,
      withProof(model, update!),
    ].map(declare),
  );
  return [
    ...declarations,
    `/** A field of ${model.name} to sort by or ask for. */\nexport type ${names.field} = Exclude<keyof ${names.item}, '_type' | '_pk' | '_self'> & string;`,
    whereType(model, types, sets, helpers),
  ].join('\n\n');
}

/**
 * The answer's schema (without its description, which the declaration takes), with the fields every
 * caller is shown required: with auth, those no privacy list hides from anyone (ir/privacy.ts);
 * without, every field (each caller is an admin). The others, and every field but those a read
 * names in `fields`, stay optional (`Shown` in client/src/resources.ts); so do links kept in the
 * other model's rows, which an object embedded at the last level of nesting leaves out.
 */
function withAlwaysShown(ir: Pick<ServiceIR, 'models' | 'auth'>, model: Model, schema: Schema): Schema {
  const { description: _description, ...rest } = schema;
  const keptElsewhere = (name: string) => model.relationships.some((r) => r.name === name && !holdsKey(model, r));
  const fields = model.fields.filter((f) => f.name in (schema['properties'] as Schema)).map((f) => f.name);
  const always = fields.filter((name) => !keptElsewhere(name) && (!ir.auth || seenByEveryone(ir.models, model, name)));
  return { ...rest, required: [...always, ...(schema['required'] as readonly string[])] };
}

async function declare(declaration: TypeDeclaration): Promise<string> {
  return interfaceSource(declaration.name, declaration.description, declaration.schema) ?? compiledType(declaration);
}

/** `interface StoryWhere { title?: Filter<string, OnText>; … }`: the fields a query may filter on. */
function whereType(model: Model, types: FieldTypes, sets: OperatorSets, names: HelperNames): string {
  const lines = model.fields
    .filter((f) => !isSecretField(model, f))
    .map(
      (f) =>
        `readonly ${propertyName(f.name)}?: ${names('Filter')}<${valueType(model, f, types)}, ${sets.use(types.filtered(model, f))}>;`,
    );
  const doc = `/** Conditions on ${model.name} objects: a field's value (or values: any of them), or its operators. */`;
  return `${doc}\nexport interface ${clientTypeNames(model).where} {\n${lines.join('\n')}\n}`;
}

/** The type of one value a filter compares with: a list's item, a related object's key, or the field's own. */
function valueType(model: Model, field: Field, types: FieldTypes): string {
  const relation = field.type === 'relationship' ? model.relationships.find((r) => r.name === field.name) : undefined;
  const base = relation ? types.keySchema(relation.target) : types.baseSchema(model, field);
  const schema = field.type === 'list' ? ((base['items'] as Schema | undefined) ?? { type: 'string' }) : base;
  return scalarType(schema);
}

const SCALAR: Readonly<Record<string, string>> = {
  string: 'string',
  integer: 'number',
  number: 'number',
  boolean: 'boolean',
};

/** A scalar's TypeScript type without null: its choices, or its JSON type (text for anything else). */
function scalarType(schema: Schema): string {
  const choices = Array.isArray(schema['enum']) ? (schema['enum'] as unknown[]).filter((v) => v !== null) : [];
  if (choices.length) return choices.map((v) => JSON.stringify(v)).join(' | ');
  const type = schema['type'];
  const named = (Array.isArray(type) ? (type as unknown[]) : [type]).flatMap((t) =>
    typeof t === 'string' && SCALAR[t] ? [SCALAR[t]] : [],
  );
  return [...new Set(named)].join(' | ') || 'string';
}

function propertyName(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name);
}

const KIND_NAMES = { opaque: 'Opaque', text: 'Text', comparable: 'Comparable' } as const;

const WHAT = {
  opaque: 'a dict, file or pickle field (no value to compare)',
  text: 'a text field',
  comparable: 'a number, date, time or boolean field',
} as const;

/** The operator sets a client's `where` types use, each declared once. */
export class OperatorSets {
  readonly #used = new Map<string, OperatorSet>();

  constructor(readonly names: HelperNames) {}

  /** The name of the set for a field, declared on first use. */
  use(field: FilteredField): string {
    // A list's or a to-many relationship's operators ask which values it holds, whatever their kind.
    const name = this.names(field.many ? 'OnList' : `On${KIND_NAMES[field.kind]}`);
    if (!this.#used.has(name)) {
      const operators = Object.fromEntries(operatorsFor(field).map((op) => [op.suffix, op.takes]));
      const what = field.many ? 'a list or a to-many relationship' : WHAT[field.kind];
      this.#used.set(name, {
        name,
        doc: `The operators the service allows on ${what}.`,
        operators: literal(operators),
      });
    }
    return name;
  }

  declared(): readonly OperatorSet[] {
    return [...this.#used.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  }
}
