/**
 * Which resources define models. A static resource with a `post` body schema
 * defines the model named after its segment (`/stories` → `Story`); under an item, a segment
 * that names a relationship defines that relationship's model, and one that names a `dict` or
 * `list` field is an attribute of the parent and defines nothing. The first schema wins. A
 * collection no schema defines a model for is reported here, before anything refers to its model.
 */
import { relative, sep } from 'node:path';
import pluralize from 'pluralize';
import type { DiagnosticBag } from '../../diagnostics/diagnostic.js';
import { positionAt } from '../../diagnostics/source.js';
import type { YScalar } from '../../load/ynode.js';
import type { Body, Resource, SchemaReference } from '../../raml/model.js';
import { modelNameOf } from '../naming.js';
import { readSchemaDocument } from '../../raml/schema-document.js';
import type { FieldDraft } from './fields.js';
import { checkPrimaryKey, readModel, type ModelDraft } from './models.js';
import { walk, type PathNode } from './paths.js';
import type { Poisoned } from './poisoned.js';

export interface DefinitionContext {
  readonly diagnostics: DiagnosticBag;
  readonly rootDir: string;
  readonly models: Map<string, ModelDraft>;
  /** Models whose schema could not be read, or that are missing (reported): nothing more is said about them. */
  readonly poisoned: Poisoned;
  /** The schemas read as models' (their problems are errors, reported here). */
  readonly modelSchemas: Set<YScalar>;
}

/** Reads every model a resource defines, parents before children. */
export function defineModels(ctx: DefinitionContext, root: PathNode): void {
  const visit = (node: PathNode, parentModel: string | null, parentIsItem: boolean) => {
    let model: string | null = null;
    if (node.param === null && !parentIsItem && reportUnnameable(ctx, node)) {
      for (const child of node.children) visit(child, null, node.param !== null);
      return;
    }
    if (node.param === null) {
      model = parentIsItem ? nestedModel(ctx, node, parentModel) : modelNameOf(node.segment);
      const schema = model ? postSchema(node.resource) : undefined;
      if (model && schema) define(ctx, model, node, schema);
    }
    for (const child of node.children) visit(child, node.param === null ? model : parentModel, node.param !== null);
  };
  for (const child of root.children) visit(child, null, false);
}

/**
 * A collection whose name names no model (SVC2122), reported; it defines none. Named with letters
 * or digits beyond ASCII (`/cafés`, `/日本`): its model's name, table and files are its name in
 * ASCII letters and digits, which dropped the others (`/cafés` was model `Caf`, one with `/cafs`)
 * or found none ("no letter or digit"). Or with a digit first (`/123`): a model `123`, which no
 * TypeScript type can be named (generate stopped with an internal error). A prefix of paths
 * (`/2024/reports`) names no model, and is no such collection.
 */
function reportUnnameable(ctx: DefinitionContext, node: PathNode): boolean {
  if (!unnameable(node.segment) || !needsModel(node)) return false;
  const others = lettersBeyondAscii(node.segment);
  const model = modelNameOf(node.segment);
  ctx.poisoned.addUnreadModel(model);
  ctx.diagnostics.report(
    'SVC2122',
    others.length
      ? `${node.ramlPath} is named with ${others.join(' ')}, beyond the ASCII letters and digits that name a model, its table and its files`
      : `${node.ramlPath} names the model ${model}, which starts with a digit: a model's name is its TypeScript types' and its files'`,
    {
      span: node.span,
      hint: others.length
        ? `name the collection in ASCII letters and digits${asciiOf(node.segment)}: its URL is its name`
        : 'name the collection with a letter first: its URL is its name',
    },
  );
  return true;
}

/** A segment no model can be named after (SVC2122): letters or digits beyond ASCII, a digit first. */
function unnameable(segment: string): boolean {
  return lettersBeyondAscii(segment).length > 0 || /^[0-9]/.test(modelNameOf(segment));
}

function lettersBeyondAscii(segment: string): string[] {
  return [...new Set(segment.match(/[^ -~]/gu) ?? [])].filter((c) => /[\p{L}\p{N}]/u.test(c));
}

/** ` (\`/cafes\`)` of `cafés`: the letters without their accents, where that leaves a letter. */
function asciiOf(segment: string): string {
  const ascii = segment.normalize('NFKD').replace(/[^ -~]/g, '');
  return /[a-z0-9]/i.test(ascii) ? ` (\`/${ascii}\`)` : '';
}

/**
 * A static path not below an item (`/stories`, `/api/stories`) is a model's own collection. Its
 * model may be defined by a schema anywhere (or be the default user model), so this runs once
 * every model is known, and before relationships to the missing model are resolved.
 */
export function reportMissingModels(ctx: DefinitionContext, root: PathNode): void {
  const missing = [...walk(root)].flatMap(({ node, parent }) => {
    if (node.param !== null || parent.param !== null || unnameable(node.segment)) return [];
    const model = modelNameOf(node.segment);
    return needsModel(node) && !ctx.models.has(model) && !ctx.poisoned.hasModel(model) ? [node] : [];
  });
  for (const node of missing) {
    const model = modelNameOf(node.segment);
    const misnamed = misnamedDocument(ctx, model);
    if (misnamed) {
      // The schema is there, below a parent, under the name the relationship gave it (a typo, most often).
      const { owner, field } = misnamed;
      const document = field.relationship!.document;
      ctx.diagnostics.report(
        'SVC2018',
        `no schema defines model ${model} for ${node.ramlPath}: ${owner}.${field.field.name} names "${document}" as its document, so the schema of its nested route defines a model ${document}`,
        { span: field.relationship!.documentSpan, hint: `did you mean "document": "${model}"?` },
      );
      continue;
    }
    if (model === '') {
      // `/..`, `/-`: no letter or digit to name a model by.
      ctx.diagnostics.report('SVC2018', `${node.ramlPath} names no model: its segment has no letter or digit`, {
        span: node.span,
        hint: 'name a collection by its objects, in letters and digits (`/stories`)',
      });
      continue;
    }
    ctx.diagnostics.report('SVC2018', `no schema defines model ${model} for ${node.ramlPath}`, {
      span: node.span,
      hint: `give ${node.ramlPath} a post body schema, e.g. post: { body: { application/json: { schema: !include schemas/${model.toLowerCase()}.json } } }`,
    });
  }
  for (const node of missing) ctx.poisoned.addUnreadModel(modelNameOf(node.segment));
}

/**
 * A relationship whose `document` names a model that no collection of its own defines, only the
 * nested route below it, from the schema of the model its name says (`docks` naming `"Dok"`, read
 * from the schema of `/docks`'s `Dock`): a misspelt name, which made a second model and table of
 * docks, where the nested route's creates went, unseen at `/docks` (a probe's; a warning that the
 * schema defined two models was all it said).
 */
export function reportMisnamedDocuments(ctx: DefinitionContext, root: PathNode): void {
  const collections = new Set(
    [...walk(root)].flatMap(({ node, parent }) =>
      node.param === null && parent.param === null ? [modelNameOf(node.segment)] : [],
    ),
  );
  for (const draft of ctx.models.values())
    for (const field of draft.fields) {
      const document = field.relationship?.document;
      const named = modelNameOf(field.field.name);
      if (!document || document === named || collections.has(document)) continue;
      const [typed, meant] = [ctx.models.get(document), ctx.models.get(named)];
      if (!typed || !meant || typed.schemaFile !== meant.schemaFile) continue;
      ctx.diagnostics.report(
        'SVC2050',
        `${draft.name}.${field.field.name} names "${document}" as its document, a model no collection defines: only its nested route does, from ${meant.schemaFile}, the schema of ${named}, so its objects would be stored apart from ${named}'s`,
        { span: field.relationship.documentSpan, hint: `did you mean "document": "${named}"?` },
      );
    }
}

/**
 * A relationship named like the missing model's collection (`units`, for `Unit`) whose `document`
 * names another model (`"Unti"`) that a schema defines: the nested route below it read its schema
 * as that model's, and the model the URL names is left without one.
 */
function misnamedDocument(ctx: DefinitionContext, model: string): { owner: string; field: FieldDraft } | undefined {
  for (const draft of ctx.models.values()) {
    const field = draft.fields.find(
      (f) =>
        f.relationship !== undefined &&
        f.relationship.document !== model &&
        modelNameOf(f.field.name) === model &&
        ctx.models.has(f.relationship.document),
    );
    if (field) return { owner: draft.name, field };
  }
  return undefined;
}

/**
 * A bare prefix needs no model: `archive` in `/archive/items`, whether written as one key or as a
 * resource `/archive` with no method of its own that only holds others (valid RAML: a group). A
 * resource with methods, or with items below it, does.
 */
function needsModel(node: PathNode): boolean {
  return (node.resource?.methods.length ?? 0) > 0 || node.children.some((c) => c.param !== null);
}

/** Under an item: the relationship's model, nothing for a dict/list attribute, else the segment's model. */
function nestedModel(ctx: DefinitionContext, node: PathNode, parentModel: string | null): string | null {
  const parent = parentModel ? ctx.models.get(parentModel) : undefined;
  const field = parent?.fields.find((f) => f.field.name === node.segment);
  if (field?.field.type === 'dict' || field?.field.type === 'list') return null;
  if (field?.relationship && field.relationship.document !== '') return field.relationship.document;
  return modelNameOf(node.segment);
}

/** The JSON schema of the resource's `post` body: `application/json` first, then any `+json`, then any. */
function postSchema(resource: Resource | undefined): SchemaReference | undefined {
  const bodies: readonly Body[] = resource?.methods.find((m) => m.method === 'post')?.body ?? [];
  const withSchema = bodies.filter((b) => b.schema);
  const pick =
    withSchema.find((b) => b.mediaType === 'application/json') ??
    withSchema.find((b) => /[/+]json\b/.test(b.mediaType)) ??
    withSchema[0];
  return pick?.schema;
}

/**
 * The longest model name: its table's name is the name lower-cased, and PostgreSQL cuts a longer
 * one without a word (two models could then share a table). Its files are named by it too: a
 * probe's 230-letter resource crashed the writing of the project half-way (ENAMETOOLONG).
 */
const MAX_MODEL_NAME = 63;

function define(ctx: DefinitionContext, name: string, node: PathNode, schema: SchemaReference): void {
  // The first schema wins, also when it could not be read.
  if (ctx.poisoned.hasModel(name)) return;
  if (name.length > MAX_MODEL_NAME) {
    ctx.diagnostics.report(
      'SVC2115',
      `the model of ${node.ramlPath.length > 80 ? `${node.ramlPath.slice(0, 77)}...` : node.ramlPath} would be named by ${name.length} characters: at most ${MAX_MODEL_NAME} name a table (PostgreSQL's limit)`,
      { span: node.span, hint: 'name the resource with fewer letters' },
    );
    ctx.poisoned.addUnreadModel(name);
    return;
  }
  const existing = ctx.models.get(name);
  if (existing) {
    if (existing.schemaFile !== schemaFileOf(ctx, schema)) {
      const line = positionAt(existing.definedAt.source, existing.definedAt.start).line;
      ctx.diagnostics.report(
        'SVC2017',
        `model ${name} is already defined by the schema at line ${line}; this schema is ignored`,
        {
          span: schema.node.span,
          hint: 'a model has one schema; include the same file in both places',
        },
      );
    }
    return;
  }
  ctx.modelSchemas.add(schema.contentNode);
  const document = readSchemaDocument(schema, ctx.diagnostics);
  if (!document) {
    ctx.poisoned.addUnreadModel(name);
    return;
  }
  const draft = readModel(
    ctx.diagnostics,
    { name, plural: node.segment, schemaFile: schemaFileOf(ctx, schema), definedAt: schema.node.span },
    document,
  );
  checkPrimaryKey(ctx.diagnostics, draft);
  reportSharedSchema(ctx, draft, node);
  ctx.models.set(name, draft);
  // Reported already: the model is served, but nothing is said about the fields it lacks.
  if (draft.withoutProperties) ctx.poisoned.addModelWithoutFields(name);
}

/**
 * A schema that defines two models: one of them most often includes another resource's file by a
 * copied line (a new user's announcements were plots, and the one hint said to add an
 * `announcements` link to the users' schema). Two tables of one shape are made all the same.
 */
function reportSharedSchema(ctx: DefinitionContext, draft: ModelDraft, node: PathNode): void {
  const other = [...ctx.models.values()].find((m) => m.schemaFile === draft.schemaFile);
  if (!other) return;
  ctx.diagnostics.report(
    'SVC2110',
    `the schema ${draft.schemaFile} defines ${other.name} already, and now ${draft.name} too: two models of the same fields, stored apart`,
    {
      span: draft.definedAt,
      hint: `if ${node.ramlPath} is not another kind of ${other.name}, give it a schema of its own (${pluralize.singular(node.segment)}.json)`,
    },
  );
}

function schemaFileOf(ctx: DefinitionContext, schema: SchemaReference): string {
  const file = schema.contentNode.includedFile?.path;
  if (file) return relative(ctx.rootDir, file).split(sep).join('/');
  const line = positionAt(schema.contentNode.span.source, schema.contentNode.span.start).line;
  const where = relative(ctx.rootDir, schema.contentNode.span.source.path).split(sep).join('/');
  return schema.declaration ? `${where} (schema "${schema.declaration.name}")` : `${where}:${line}`;
}
