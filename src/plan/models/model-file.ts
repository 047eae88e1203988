/**
 * The view of `src/models/<model>.ts`: the model's TypeScript types (from JSON Schema: ts-types.ts,
 * or json-schema-to-typescript for what that does not print), its `defineModel` spec and the JSON
 * Schemas of its request bodies and of the object as answers show it.
 */
import type { Field, Model, Relationship, Route, ServiceIR, ValueSource } from '../../ir/types.js';
import { modelRules } from '../../ir/model-route.js';
import { isSecretField, type FieldTypes } from '../shared/field-types.js';
import { shownObjectSchema } from '../openapi/schemas.js';
import { literal, raw } from '../shared/literal.js';
import { camel, defaultModule, modelNames, withArticle } from '../shared/names.js';
import { linkToParent } from '../shared/parent-link.js';
import { CURRENT_PASSWORD, passwordProofSchema } from '../shared/password-proof.js';
import { searchFields } from '../shared/search.js';
import { interfaceSource } from '../shared/ts-types.js';
import { holdsKey } from '../../ir/links.js';
import { selfRoute } from '../../ir/self-route.js';

export interface ModelView {
  readonly name: string;
  /** "a Story", "an Item". */
  readonly article: string;
  readonly variable: string;
  readonly bodies: string;
  readonly response: string;
  readonly page: string;
  /** The JSON Schema of the object as answers show it (the OpenAPI document's, with embedded objects as plain objects). */
  readonly responseSchema: string;
  readonly usesNow: boolean;
  readonly defaultImports: readonly { readonly name: string; readonly from: string }[];
  /** TypeScript declarations of the record, create and update types. */
  readonly types: string;
  readonly spec: string;
  /** The JSON Schemas of the body properties, shared by the three bodies. */
  readonly properties: string;
  readonly propertiesVariable: string;
  /** The properties of a change of many: the shared ones, and the users' password proof. */
  readonly updateProperties: string;
  /** Those of a PATCH of one object: the same, and the names its answer gives it (lib/http/echoes.ts). */
  readonly itemUpdateProperties: string;
  readonly requiredOnCreate: string;
}

/**
 * A PATCH of the users' model also takes the proof of a password change (shared/password-proof.ts);
 * one of a single object, the names its answer gives it (`answerNames`).
 */
function updateProperties(model: Model, item: boolean): string {
  const variable = `${camel(model.name)}Properties`;
  const proof = passwordProofSchema(model);
  const echoes = item ? ', ...answerNames' : '';
  return proof || item
    ? `{ ...${variable}${proof ? `, ${CURRENT_PASSWORD}: ${literal(proof)}` : ''}${echoes} }`
    : variable;
}

type Schema = Record<string, unknown>;

/** A TypeScript type of a model, as a JSON Schema of an object. */
export interface TypeDeclaration {
  readonly name: string;
  readonly description: string;
  readonly schema: Schema;
}

/** The record, create and update types of a model. */
export function typeDeclarations(model: Model, types: FieldTypes): readonly TypeDeclaration[] {
  const names = modelNames(model);
  const schemas = new Map(model.fields.map((f) => [f.name, types.valueSchema(model, f)]));
  const written = new Map(model.fields.map((f) => [f.name, withWriteNote(model, f, schemas.get(f.name)!)]));
  const writable = model.fields.filter((f) => !f.generated && f.type !== 'foreign_key');
  return [
    {
      name: model.name,
      description: `${model.title ?? withArticle(model.name)}, as the repositories return it (${model.schemaFile}).`,
      schema: objectSchema(model.fields, schemas, model.fields),
    },
    {
      name: names.create,
      description: `The data that creates ${withArticle(model.name)}.`,
      schema: objectSchema(
        writable,
        written,
        writable.filter((f) => f.requiredOnCreate),
      ),
    },
    {
      name: names.update,
      description: `The data that updates ${withArticle(model.name)}: only the fields to change.`,
      schema: objectSchema(writable, written, []),
    },
  ];
}

/**
 * A field only admins send over HTTP, said where a body's type has it (the client's too): the type
 * takes it, for admins, scripts and handlers, and a member's request that sends it is a 403.
 */
function withWriteNote(model: Model, field: Field, schema: Schema): Schema {
  const note = field.readOnly
    ? 'Read-only: over HTTP only admins send it (403 for anyone else); the service sets it otherwise.'
    : field.writeOnce
      ? 'Write-once: sent when the object is created; over HTTP only admins change it afterwards (403 for anyone else).'
      : model.isAuthModel && field.name === 'groups'
        ? 'Over HTTP only admins send it (403 for anyone else, and at registration).'
        : undefined;
  if (note === undefined) return schema;
  const said = typeof schema['description'] === 'string' ? `${schema['description'].replace(/\.?$/, '.')} ` : '';
  return { ...schema, description: `${said}${note}` };
}

export async function modelView(ir: ServiceIR, model: Model, types: FieldTypes): Promise<ModelView> {
  const names = modelNames(model);
  const declarations = await Promise.all(typeDeclarations(model, types).map(declarationSource));
  const callables = model.fields
    .flatMap((f) => [f.default, f.onUpdate])
    .filter((v): v is Extract<ValueSource, { kind: 'callable' }> => v?.kind === 'callable');
  return {
    name: model.name,
    article: withArticle(model.name),
    variable: names.variable,
    bodies: names.bodies,
    response: names.response,
    page: names.page,
    responseSchema: literal(
      shownObjectSchema(types, model, (target) => ({ type: 'object', description: `the ${target}, embedded` })),
    ),
    usesNow: model.fields.some((f) => f.default?.kind === 'now' || f.onUpdate?.kind === 'now'),
    defaultImports: [...new Set(callables.map((c) => c.name))]
      .sort()
      .map((name) => ({ name: camel(name), from: `../${defaultModule(name)}.js` })),
    types: [...declarations, ...(model.isAuthModel ? [signedInType(model)] : [])].join('\n\n'),
    spec: literal(modelSpec(ir, model, types)),
    // Every field is listed, so that a foreign key or generated key in a body gets its own message
    // (the route explains what to send instead) rather than "not a field".
    properties: literal(Object.fromEntries(model.fields.map((f) => [f.name, types.bodySchema(model, f)]))),
    propertiesVariable: `${camel(model.name)}Properties`,
    updateProperties: updateProperties(model, false),
    itemUpdateProperties: updateProperties(model, true),
    requiredOnCreate: literal(model.fields.filter((f) => f.requiredOnCreate).map((f) => f.name)),
  };
}

function objectSchema(
  fields: readonly Field[],
  schemas: ReadonlyMap<string, Schema>,
  required: readonly Field[],
): Schema {
  return {
    type: 'object',
    additionalProperties: false,
    required: required.map((f) => f.name),
    properties: Object.fromEntries(fields.map((f) => [f.name, schemas.get(f.name)!])),
  };
}

/**
 * The caller as `request.user` holds them: the user's own row, which is all the service reads to
 * identify a request. The links kept in other models' rows are not there (a principal that
 * compared `request.user.patient` compared undefined), nor is the password's hash.
 */
function signedInType(model: Model): string {
  const elsewhere = model.relationships.filter((r) => !holdsKey(model, r)).map((r) => r.name);
  const left = [...elsewhere, 'password'].map((name) => `'${name}'`).join(' | ');
  const names = modelNames(model);
  const lines = [
    `The signed-in caller, as \`request.user\` holds them: ${withArticle(model.name)} as stored in its own row,`,
    "without the password's hash.",
    ...(elsewhere.length
      ? [
          `Its links kept in other models' rows (${elsewhere.join(', ')}) are not read for a request:`,
          `read them with \`db.${names.property}.findUnique({ where, include })\`.`,
        ]
      : []),
  ];
  return [
    '/**',
    ...lines.map((line) => ` * ${line}`),
    ' */',
    `export type ${names.signedIn} = Omit<${model.name}, ${left}>;`,
  ].join('\n');
}

/** The declaration of a type: printed here where ts-types.ts can, else by json-schema-to-typescript (loaded only then). */
async function declarationSource(declaration: TypeDeclaration): Promise<string> {
  const { name, description, schema } = declaration;
  return interfaceSource(name, description, schema) ?? compiledType(declaration);
}

/** json-schema-to-typescript's declaration of a type. */
export async function compiledType({ name, description, schema }: TypeDeclaration): Promise<string> {
  const { compile } = await import('json-schema-to-typescript');
  const text = await compile({ ...schema, description }, name, {
    bannerComment: '',
    format: false,
    additionalProperties: false,
    unknownAny: true,
    declareExternallyReferenced: true,
    strictIndexSignatures: false,
    // `maxItems: 100` is a list, not a union of 101 tuples (the service checks the length).
    ignoreMinAndMaxItems: true,
  });
  return text.trim();
}

function modelSpec(ir: ServiceIR, model: Model, types: FieldTypes): Record<string, unknown> {
  return {
    name: model.name,
    table: model.table,
    primaryKey: model.primaryKey,
    fields: model.fields.map((f) => fieldSpec(model, f, types)),
    relations: model.relationships.map((r) => ({
      name: r.name,
      target: r.target,
      cardinality: r.cardinality,
      inverse: r.inverse,
      foreignKey: r.foreignKey.field,
      local: holdsKey(model, r),
      onDelete: r.onDelete,
      ...createdBelow(ir, model, r),
    })),
    nestedRelationships: [...model.nestedRelationships],
    nestingDepth: model.nestingDepth,
    publicFields: model.publicFields ? [...model.publicFields] : null,
    authFields: model.authFields ? [...model.authFields] : null,
    hiddenFields: [...model.hiddenFields],
    ...(model.groupFields.length
      ? { groupFields: Object.fromEntries(model.groupFields.map((g) => [g.group, [...g.fields]])) }
      : {}),
    searchFields: searchFields(model).map((f) => f.name),
    ...(model.uniqueTogether.length ? { uniqueTogether: model.uniqueTogether.map((set) => [...set]) } : {}),
    ...(model.eventPrevious ? { eventPrevious: true } : {}),
    ...(model.internal ? { internal: true } : {}),
    aclRoute: modelRules(ir, model),
    selfPath: raw(selfPath(ir, model)),
  };
}

/**
 * The nested routes that create objects of `model` below the target of its local link
 * `relationship` (`/spaces/{id}/memberships` for a membership's `space`), as the runtime asks
 * their collection rules of a write that puts an object there (runtime/src/lib/http/relinks.ts);
 * nothing when none does.
 */
export function createdBelow(
  ir: ServiceIR,
  model: Model,
  relationship: Relationship,
): { createdBelow?: { kind: string; acl: string | null }[] } {
  if (!holdsKey(model, relationship)) return {};
  const models = new Map(ir.models.map((m) => [m.name, m]));
  const routes = ir.routes.filter(
    (route) =>
      route.model === model.name &&
      (route.kind === 'collection' || route.kind === 'singular') &&
      route.parent?.model === relationship.target &&
      linkToParent(route.parent, models) === relationship.name &&
      route.operations.some((o) => o.action === 'create'),
  );
  return routes.length ? { createdBelow: routes.map((route) => ({ kind: route.kind, acl: route.acl })) } : {};
}

function fieldSpec(model: Model, field: Field, types: FieldTypes): Record<string, unknown> {
  const relation =
    field.type === 'relationship'
      ? field.relationship
      : field.type === 'foreign_key'
        ? field.foreignKey?.relationship
        : null;
  return {
    name: field.name,
    type: field.type,
    storage: types.storage(model, field),
    column: field.type === 'relationship' ? null : field.name,
    primaryKey: field.primaryKey,
    generated: field.generated,
    required: field.required,
    requiredOnCreate: field.requiredOnCreate,
    writable: !field.generated && field.type !== 'foreign_key',
    readOnly: field.readOnly ? true : undefined,
    writeOnce: field.writeOnce ? true : undefined,
    // A query by the old name is told the new one (lib/http/query.ts).
    renamedFrom: field.renamedFrom ?? undefined,
    default: valueFunction(field.default),
    defaultIsComputed: field.default && field.default.kind !== 'literal' ? true : undefined,
    onUpdate: valueFunction(field.onUpdate),
    relation: relation ?? undefined,
    itemType: field.itemType ?? undefined,
    choices: field.choices ? [...field.choices] : undefined,
    scale: field.type === 'decimal' ? (field.scale ?? undefined) : undefined,
    range: types.integerRange(model, field) ?? undefined,
    // A one-to-one link is unique too (the SQL migrations say the same; the document engine makes indexes of it).
    unique: (field.unique || types.isOneToOneLink(model, field)) && !field.primaryKey ? true : undefined,
    // MongoDB makes the index at start-up from this; SQL migrations from the storage model.
    index: field.index && field.type !== 'relationship' && !field.primaryKey ? true : undefined,
    // The user's password is stored as an argon2id hash and never returned.
    secret: isSecretField(model, field) ? true : undefined,
  };
}

/** A default as a function: literals are rebuilt on every call, so no two objects share a list. */
function valueFunction(source: ValueSource | null): unknown {
  if (!source) return undefined;
  switch (source.kind) {
    case 'literal':
      return raw(`() => (${literal(source.value)})`);
    case 'now':
      return raw('now');
    case 'callable':
      return raw(camel(source.name));
  }
}

/** `_self` of an object, by its `selfRoute`; none where it has none (the request's path then names it). */
function selfPath(ir: ServiceIR, model: Model): string {
  const self = selfRoute(ir, model);
  if (!self) return '() => null';
  const path = pathExpression(self.route, self.params);
  return self.parentLink === null
    ? `(record) => ${path}`
    : `(record) => (record.${self.parentLink} == null ? null : ${path})`;
}

/** `/users/:username/profile` → a template literal filling each parameter from a record field. */
function pathExpression(route: Route, params: Readonly<Record<string, string>>): string {
  const parts = route.path.split('/').map((segment) => {
    if (!segment.startsWith(':')) return segment.replace(/[`$\\]/g, (c) => `\\${c}`);
    const field = params[segment.slice(1)];
    return field === undefined ? segment : `\${encodeURIComponent(String(record.${field}))}`;
  });
  return `\`${parts.join('/')}\``;
}
