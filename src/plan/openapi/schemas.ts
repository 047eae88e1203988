/**
 * `components/schemas`: per model the object as the API returns it (`<Model>`), the bodies the
 * service validates (`<Model>Create`, also PUT's; `<Model>Update`, PATCH's), the collection
 * envelope (`<Model>Collection`); and the shapes every service shares: the error and status body
 * (one shape for every failure), the `_count` answer, the login body and the token answer.
 */
import type { Field, Model } from '../../ir/types.js';
import { holdsKey } from '../../ir/links.js';
import {
  groupsWithFields,
  hiddenByTheOtherSide,
  listedFor,
  seenByEveryone,
  type ListedAudience,
} from '../../ir/privacy.js';
import { andList, withArticle } from '../shared/names.js';
import { withPasswordProof } from '../shared/password-proof.js';
import { isSecretField, type FieldTypes } from '../shared/field-types.js';
import { keptByReplace, literalDefault } from '../shared/replacement.js';
import type { Json, OpenApiContext } from './context.js';
import { passwordSchema, VISIBLE_TO_MARK, withServiceLimits } from './limits.js';

export function componentSchemas(ctx: OpenApiContext): [string, Json][] {
  const names = (name: Parameters<OpenApiContext['sharedName']>[0]) => ctx.sharedName(name);
  return [
    ...ctx.models.flatMap((model) => modelSchemas(ctx, model)),
    [
      names('Error'),
      statusSchema('An error: every failure has this one shape; `errors` lists the problems of each field.', {}),
    ],
    [
      names('Status'),
      statusSchema('The answer of a delete, a logout, and of changes to many objects (then with `count`).', {
        count: { type: 'integer', minimum: 0, description: 'How many objects changed.' },
      }),
    ],
    [
      names('Token'),
      statusSchema(
        'A new API token (also in the WWW-Authenticate header: `ApiKey <username>:<token>`).',
        { token: { type: 'string' } },
        ['token'],
      ),
    ],
    [
      names('Count'),
      closed(
        { count: { type: 'integer', minimum: 0 } },
        ['count'],
        'The answer to `_count`: how many objects the filters select.',
      ),
    ],
    [
      names('Login'),
      closed(
        {
          login: {
            type: 'string',
            minLength: 1,
            maxLength: 320,
            description: 'Username or e-mail address (case-insensitive).',
          },
          password: passwordSchema(),
        },
        ['login', 'password'],
        'Credentials.',
      ),
    ],
  ];
}

function modelSchemas(ctx: OpenApiContext, model: Model): [string, Json][] {
  const names = ctx.modelSchemaNames(model);
  return [
    [names.item, itemSchema(ctx, model)],
    [names.create, createSchema(ctx, model)],
    ...(names.replace ? [[names.replace, createSchema(ctx, model, { replacing: true })] as [string, Json]] : []),
    [
      names.update,
      closed(
        withPasswordProof(model, bodyProperties(ctx, model), { writeOnly: true }),
        [],
        `The fields of ${withArticle(model.name)} to change (PATCH); the others stay as they are.`,
      ),
    ],
    [names.collection, collectionSchema(ctx, model)],
  ];
}

/** The fields a body may write, each with the limits the service applies. */
function bodyProperties(ctx: OpenApiContext, model: Model): Record<string, Json> {
  const writable = model.fields.filter((f) => !f.generated && f.type !== 'foreign_key');
  return Object.fromEntries(
    writable.map((f) => [f.name, withServiceLimits(ctx, model, f, ctx.types.bodySchema(model, f))]),
  );
}

/**
 * The data that creates an object (`<Model>Create`); `givenByUrl`: a link a nested create's URL
 * gives, which its body then need not (runtime `createdBelowBody`); `replacing`: a PUT's, which
 * need not give the required write-once fields it keeps (`<Model>Replace`, where there are some).
 */
export function createSchema(
  ctx: OpenApiContext,
  model: Model,
  { givenByUrl, replacing = false }: { givenByUrl?: string; replacing?: boolean } = {},
): Json {
  const properties = bodyProperties(ctx, model);
  const writable = model.fields.filter((f) => f.name in properties);
  const kept = new Set(replacing ? keptByReplace(model).map((f) => f.name) : []);
  const required = writable
    .filter((f) => f.requiredOnCreate && f.name !== givenByUrl && !kept.has(f.name))
    .map((f) => f.name);
  // What a create stores for a field it leaves out: the schema's literal default (a PATCH leaves it
  // as it is, and so does a PUT a field it keeps).
  const createProperties = Object.fromEntries(
    writable.map((f) => {
      const stored = kept.has(f.name) ? undefined : literalDefault(f);
      return [f.name, stored === undefined ? properties[f.name] : { ...properties[f.name], default: stored }];
    }),
  );
  return closed(createProperties, required, createDescription(model, givenByUrl, [...kept]));
}

function createDescription(model: Model, givenByUrl: string | undefined, kept: readonly string[]): string {
  const below = givenByUrl ? ` below the object the URL names, which gives its ${givenByUrl}` : '';
  if (kept.length)
    return `The data that replaces ${withArticle(model.name)}${below} (PUT): absent optional fields return to their default, except ${andList(kept)}, which stay as they are.`;
  if (givenByUrl) return `The data that creates ${withArticle(model.name)}${below}.`;
  return `The data that creates ${withArticle(model.name)} (POST), or replaces one (PUT: absent optional fields return to their default).`;
}

/**
 * The object as the API shows it, in the document: embedded related objects are references; with
 * auth, a field not every caller sees says who does (`x-svcgen-visible-to`), so that a narrower
 * `_public_fields` or `_auth_fields` is a change clients are told of (src/apidiff/schema-diff.ts).
 */
function itemSchema(ctx: OpenApiContext, model: Model): Json {
  const schema = shownObjectSchema(ctx.types, model, (target) => ctx.modelRef(target, 'item'));
  if (!ctx.ir.auth) return schema;
  const properties = schema['properties'] as Record<string, Json>;
  for (const field of model.fields)
    if (properties[field.name] && !seenByEveryone(ctx.ir.models, model, field.name))
      properties[field.name] = {
        ...properties[field.name],
        [VISIBLE_TO_MARK]: fieldAudience(ctx.ir.models, model, field.name),
      };
  // A link kept in the other model's rows shows the caller only the objects they may view.
  for (const link of model.relationships) {
    if (holdsKey(model, link) || !properties[link.name]) continue;
    const shows =
      link.cardinality === 'many'
        ? `The ${link.target} objects linked that the caller may view: the others are left out.`
        : `null also where the caller may not view the ${link.target} linked.`;
    properties[link.name] = { ...properties[link.name], description: shows };
  }
  return schema;
}

/**
 * Who sees the field in answers (runtime lib/auth/policy.ts `fieldsFor`): a link kept in the other
 * model's rows only those who see that model's link back.
 */
function fieldAudience(models: readonly Model[], model: Model, name: string): string[] {
  const seen = (who: ListedAudience) => listedFor(model, who, name) && !hiddenByTheOtherSide(models, model, who, name);
  // A group is named where its members see what other members do not (`_group_fields`).
  const groups = seen('member') ? [] : groupsWithFields(models).filter((group) => seen({ group }));
  return [
    ...(seen('anonymous') ? ['anonymous'] : []),
    ...(seen('member') ? ['member'] : []),
    ...groups.map((group) => `g:${group}`),
    'admin',
  ];
}

/**
 * The object as the API shows it: the fields the caller may see (or asked for with `_fields`),
 * then `_type`, `_pk`, `_self`. Also the answer schema of the model's routes, where an embedded
 * object is `embedded(target)`.
 */
export function shownObjectSchema(types: FieldTypes, model: Model, embedded: (target: string) => Json): Json {
  const shown = model.fields.filter((f) => !isSecretField(model, f));
  const properties: Json = Object.fromEntries(shown.map((f) => [f.name, shownValue(types, model, f, embedded)]));
  properties['_type'] = { const: model.name };
  properties['_pk'] = { type: 'string', description: 'The primary key, as a string.' };
  properties['_self'] = {
    type: 'string',
    format: 'uri',
    description:
      'The URL of the object; of an object the API serves at no URL of its own (no item route), the URL of the request that answered it.',
  };
  const description = `${model.title ?? withArticle(model.name)} (${model.schemaFile}). Fields the caller may not see, or did not ask for with _fields, are left out.`;
  const handlers = afterHandlers(model);
  if (handlers.length === 0) return closed(properties, ['_type', '_pk', '_self'], description);
  // An after handler may add fields to the answer: the object is open to them, and says so.
  return {
    ...closed(
      properties,
      ['_type', '_pk', '_self'],
      `${description} After handlers (${handlers.join(', ')}) may add fields.`,
    ),
    additionalProperties: true,
  };
}

function afterHandlers(model: Model): string[] {
  return [...new Set(model.eventHandlers.filter((b) => b.phase === 'after').flatMap((b) => b.handlers))].sort();
}

/**
 * A relationship listed in `_nested_relationships` holds the related objects themselves, or only
 * their keys where the caller may not view them (or past the nesting depth).
 */
function shownValue(types: FieldTypes, model: Model, field: Field, embedded: (target: string) => Json): Json {
  const value = types.valueSchema(model, field);
  const relation = model.relationships.find((r) => r.name === field.name);
  if (!relation || model.nestingDepth === 0 || !model.nestedRelationships.includes(field.name)) return value;
  const keyOrObject = { anyOf: [types.keySchema(relation.target), embedded(relation.target)] };
  if (relation.cardinality === 'many') return { type: 'array', items: keyOrObject };
  return { anyOf: [...keyOrObject.anyOf, { type: 'null' }] };
}

function collectionSchema(ctx: OpenApiContext, model: Model): Json {
  const whole = { type: 'integer', minimum: 0 };
  return closed(
    {
      total: { ...whole, description: 'How many objects the filters select.' },
      count: { ...whole, description: 'How many are in this page.' },
      start: { ...whole, description: 'The offset of the page.' },
      took: { ...whole, description: 'Milliseconds.' },
      fields: { type: 'string', description: '`_fields` as written.' },
      next: {
        type: 'string',
        format: 'uri',
        description: 'The URL of the next page (with `_after`), when there is one.',
      },
      data: { type: 'array', items: ctx.modelRef(model.name, 'item') },
    },
    ['total', 'count', 'start', 'took', 'fields', 'data'],
    `A page of ${model.name} objects.`,
  );
}

function statusSchema(description: string, extra: Json, extraRequired: readonly string[] = []): Json {
  return closed(
    {
      status_code: { type: 'integer' },
      title: { type: 'string' },
      explanation: { type: 'string' },
      message: { type: ['string', 'null'] },
      timestamp: { type: 'string', description: 'YYYY-MM-DDTHH:MM:SSZ' },
      request_url: { type: 'string' },
      errors: {
        type: 'array',
        items: closed({ field: { type: 'string' }, message: { type: 'string' } }, ['field', 'message']),
      },
      request_id: { type: 'string', description: 'Of a 5xx: the id the log has the details under.' },
      ...extra,
    },
    ['status_code', 'title', 'explanation', 'message', 'timestamp', 'request_url', ...extraRequired],
    description,
  );
}

function closed(properties: Json, required: readonly string[], description?: string): Json {
  return {
    type: 'object',
    ...(description ? { description } : {}),
    ...(required.length ? { required: [...required] } : {}),
    properties,
    additionalProperties: false,
  };
}

/** The value of a dict or list field, as its attribute route answers it. */
export function attributeSchema(ctx: OpenApiContext, model: Model, fieldName: string): Json {
  const field = model.fields.find((f) => f.name === fieldName);
  if (!field) return {};
  const { description: _description, ...base } = ctx.types.baseSchema(model, field);
  return base;
}
