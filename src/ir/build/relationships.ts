/**
 * Relationships: every `type: relationship` field gets its
 * generated backref on the target model and the `foreign_key` field that stores it (on the
 * target for one-to-many; on either side for one-to-one). Problems are reported where the user
 * has to fix them; a relationship to a model whose schema is broken or missing is not a problem of
 * its own, and one that fails leaves its field and backref poisoned for the later steps.
 */
import pluralize from 'pluralize';
import type { DiagnosticBag } from '../../diagnostics/diagnostic.js';
import { withArticle } from '../../util/article.js';
import type { Span } from '../../diagnostics/source.js';
import { didYouMean } from '../../util/suggest.js';
import type { ReferentialAction, ScalarFieldType } from '../types.js';
import type { FieldDraft, ForeignKeyDecl, RelationshipDecl } from './fields.js';
import { synthesizedField, type ModelDraft } from './models.js';
import type { Poisoned } from './poisoned.js';

interface Context {
  readonly diagnostics: DiagnosticBag;
  readonly models: ReadonlyMap<string, ModelDraft>;
  readonly poisoned: Poisoned;
}

interface Declaration {
  readonly model: ModelDraft;
  readonly field: FieldDraft;
  readonly decl: RelationshipDecl;
}

/** Which column types can hold a key of which primary key type. */
const KEY_TYPES: Readonly<Record<string, readonly string[]>> = {
  id_field: ['id_field', 'integer', 'big_integer'],
  integer: ['integer', 'big_integer', 'id_field'],
  big_integer: ['big_integer', 'integer', 'id_field'],
  small_integer: ['small_integer', 'integer', 'big_integer'],
  string: ['string', 'unicode', 'text', 'unicode_text'],
  unicode: ['string', 'unicode', 'text', 'unicode_text'],
  text: ['string', 'unicode', 'text', 'unicode_text'],
  unicode_text: ['string', 'unicode', 'text', 'unicode_text'],
};

/** A backref a relationship adds: where its name is written, and the relationship (`Doctor.appointments`). */
interface Backref {
  readonly span: Span;
  readonly relationship: string;
}

export function resolveRelationships(ctx: Context): void {
  const claimed = new Set<FieldDraft>();
  const backrefs = new Map<string, Backref>();
  const declarations: Declaration[] = [];
  for (const model of ctx.models.values()) {
    for (const field of model.fields)
      if (field.relationship) declarations.push({ model, field, decl: field.relationship });
  }
  // A relationship that fails is reported once; the foreign keys it would have used are not "unused".
  const skipped = new Set([
    ...checkForeignKeysNeeded(ctx, declarations),
    ...checkOneToOneOnBothSides(ctx, declarations),
  ]);
  const failedPairs = new Set<string>();
  for (const d of declarations) {
    d.field.field.relationship = d.field.field.name;
    const ok = !skipped.has(d.decl) && resolveOne(ctx, d.model, d.field, d.decl, claimed, backrefs);
    if (ok) continue;
    const document = d.decl.document;
    const target = ctx.models.has(document) || ctx.poisoned.hasModel(document) ? document : null;
    // When the other model is unknown (no or a wrong `document`), no foreign key to this model is "unused".
    failedPairs.add(target === null ? `${d.model.name}|*` : pairKey(d.model.name, target));
    poisonFailed(ctx, d, target);
  }
  checkForeignKeyFields(ctx, claimed, failedPairs);
}

/** A route, list or other mention of a failed relationship or its backref would only echo its error. */
function poisonFailed(ctx: Context, { model, field, decl }: Declaration, target: string | null): void {
  ctx.poisoned.addField(model.name, field.field.name);
  // The backref of a resolved relationship with the same name (SVC2054) exists, and stays served.
  if (decl.backrefName) ctx.poisoned.addField(target, decl.backrefName);
}

/**
 * A model of the API by name: not one svcgen keeps for itself (login credentials, failed logins),
 * whose table a link would change behind the runtime's back (a probe's link to AuthCredential added
 * a column to the credentials' table, and every link to it was a 400).
 */
function apiModel(ctx: Context, name: string): ModelDraft | undefined {
  const model = ctx.models.get(name);
  return model?.internal ? undefined : model;
}

function apiModelNames(ctx: Context): string[] {
  return [...ctx.models.values()].filter((m) => !m.internal).map((m) => m.name);
}

function unknownModel(ctx: Context, name: string): string {
  return ctx.models.get(name)?.internal
    ? `${name}, a model svcgen keeps for itself (no object of the API may link to it)`
    : `unknown model "${name}"`;
}

/**
 * What to write for a link to a model the API has not: the name meant, or the models there are (a
 * model is a resource's schema: a resource taken out of the RAML takes its model, and the links
 * to it must go too; a probe's foreign key to one got no hint at all).
 */
function modelHint(ctx: Context, name: string): string {
  const models = `models: ${apiModelNames(ctx).sort().join(', ') || 'none'}`;
  if (ctx.models.get(name)?.internal) return models;
  return (
    didYouMean(name, apiModelNames(ctx)) ??
    `${models} (a model is the schema of a resource: with its resource taken out of the RAML, the links to it go too)`
  );
}

function pairKey(a: string, b: string): string {
  return a < b ? `${a}|${b}` : `${b}|${a}`;
}

/** Resolves one declared relationship; false when it cannot be (and that was reported). */
function resolveOne(
  ctx: Context,
  model: ModelDraft,
  field: FieldDraft,
  decl: RelationshipDecl,
  claimed: Set<FieldDraft>,
  backrefs: Map<string, Backref>,
): boolean {
  const name = field.field.name;
  // No `document` was reported when the field was read; a broken or missing model's schema, when it was read.
  if (decl.document === '' || ctx.poisoned.hasModel(decl.document)) return false;
  const target = apiModel(ctx, decl.document);
  if (!target) {
    ctx.diagnostics.report('SVC2050', `relationship "${name}" points to ${unknownModel(ctx, decl.document)}`, {
      span: decl.documentSpan,
      hint: modelHint(ctx, decl.document),
    });
    return false;
  }
  const backref = decl.backrefName;
  if (backref === null || backref === '') {
    ctx.diagnostics.report(
      'SVC2051',
      `relationship "${name}" needs "backref_name": the field svcgen adds to ${target.name}`,
      {
        span: decl.documentSpan,
        hint: `add "backref_name": "${model.name.charAt(0).toLowerCase()}${model.name.slice(1)}"`,
      },
    );
    return false;
  }
  const backrefKey = `${target.name}.${backref}`;
  const earlier = backrefs.get(backrefKey);
  if (earlier) {
    ctx.diagnostics.report(
      'SVC2054',
      `two relationships add the backref "${backref}" to ${target.name}: ${earlier.relationship} and ${model.name}.${name}`,
      {
        span: decl.backrefSpan,
        hint: 'each relationship needs its own backref_name',
        related: { span: earlier.span, message: `${earlier.relationship} adds it here` },
      },
    );
    return false;
  }
  const clash = target.fields.find((f) => f.field.name === backref);
  if (clash) {
    ctx.diagnostics.report(
      'SVC2052',
      `backref "${backref}" of relationship "${name}" collides with field "${backref}" of ${target.name}`,
      {
        span: decl.backrefSpan,
        hint: `rename the backref, or the field of ${target.name}`,
      },
    );
    return false;
  }
  backrefs.set(backrefKey, { span: decl.backrefSpan, relationship: `${model.name}.${name}` });
  const fk = findForeignKey(ctx, model, target, field, decl, claimed);
  if (!fk) return false;
  claimed.add(fk.field);
  const fkOnTarget = fk.model === target;
  if (!decl.uselist && !fkOnTarget) warnOfOneToOneWithPluralBackref(ctx, model, target, name, backref, fk, decl);
  // `"required": ["member"]` where member is this backref: its key is required, as if it were named.
  const named = fkOnTarget && target.undeclaredRequired?.some((r) => r.name === backref) === true;
  if (named) fk.field.field.required = true;
  const onDelete = deleteRule(fk.field.foreignKey, named);
  warnOfIgnoredDeleteRule(ctx, decl, fk.model === target ? model : target, fk, onDelete);
  fk.field.field.foreignKey = {
    model: fkOnTarget ? model.name : target.name,
    column: (fkOnTarget ? model : target).primaryKey,
    columnType: keyType(fkOnTarget ? model : target),
    onDelete,
    onUpdate: fk.field.foreignKey?.onUpdate ?? 'cascade',
    relationship: fkOnTarget ? backref : name,
  };
  model.relationships.push({
    name,
    target: target.name,
    inverse: backref,
    cardinality: decl.uselist ? 'many' : 'one',
    declared: true,
    foreignKey: { model: fk.model.name, field: fk.field.field.name },
    onDelete: fkOnTarget ? onDelete : 'nullify',
    documentOnDelete: decl.onDelete,
  });
  target.relationships.push({
    name: backref,
    target: model.name,
    inverse: name,
    cardinality: 'one',
    declared: false,
    foreignKey: { model: fk.model.name, field: fk.field.field.name },
    onDelete: fkOnTarget ? 'nullify' : onDelete,
    documentOnDelete: decl.backrefOnDelete,
  });
  const required = fk.field.field.required;
  // A link read-only on one of its fields is read-only on all: else it could be moved from the other side.
  const readOnly = field.field.readOnly || fk.field.field.readOnly;
  // A write-once link is set by the object that holds its key, when it is created. Written from the
  // other model it would move objects that exist (a team's `players` re-points players): read-only there.
  const writeOnce = !readOnly && (field.field.writeOnce || fk.field.field.writeOnce);
  fk.field.field.readOnly = readOnly;
  fk.field.field.writeOnce = writeOnce;
  field.field.readOnly = readOnly || (writeOnce && fkOnTarget);
  field.field.writeOnce = writeOnce && !fkOnTarget;
  target.fields.push({
    field: synthesizedField(backref, {
      type: 'relationship',
      relationship: backref,
      readOnly: readOnly || (writeOnce && !fkOnTarget),
      writeOnce: writeOnce && fkOnTarget,
      processors: decl.backrefProcessors,
      required: fkOnTarget && required,
      helpText: `the ${model.name} this ${target.name} belongs to (backref of ${model.name}.${name})`,
    }),
    nameSpan: decl.backrefSpan,
    typeSpan: decl.backrefSpan,
    processorSpans: [],
  });
  return true;
}

/**
 * `uselist: false` on the model that holds the foreign key makes a one-to-one link: the key is
 * unique. A backref named as a list (`box_items`) says the writer meant many of this model per
 * target (a many-to-one seen from this side), which is declared on the target, the "one" side: a
 * probe's product could then be in one box only, a 409 at the second, which validate did not say.
 */
function warnOfOneToOneWithPluralBackref(
  ctx: Context,
  model: ModelDraft,
  target: ModelDraft,
  name: string,
  backref: string,
  fk: FoundKey,
  decl: RelationshipDecl,
): void {
  if (!pluralize.isPlural(backref) || pluralize.isSingular(backref)) return;
  ctx.diagnostics.report(
    'SVC2101',
    `"${name}" has "uselist": false, so each ${target.name} has one ${model.name} at most (${model.name}.${fk.field.field.name} is unique), but its backref "${backref}" is named as a list`,
    {
      span: decl.backrefSpan,
      hint: `for many ${pluralize(model.name)} per ${target.name}, declare "${backref}" on ${target.name} instead: {"type": "relationship", "document": "${model.name}", "backref_name": "${name}"}, and drop "${name}" here (${fk.field.field.name} stays); for one, name the backref "${pluralize.singular(backref)}"`,
    },
  );
}

/**
 * The foreign key's delete rule: `ref_ondelete`, else NULLIFY, or RESTRICT for a required key
 * (fields.ts `onDelete`), here also for a key made required by its backref's name in `required`.
 */
function deleteRule(decl: ForeignKeyDecl | undefined, madeRequired: boolean): ReferentialAction {
  if (!decl) return 'nullify';
  return madeRequired && !decl.onDeleteSaid && decl.onDelete === 'nullify' ? 'restrict' : decl.onDelete;
}

interface FoundKey {
  readonly model: ModelDraft;
  readonly field: FieldDraft;
}

/**
 * The foreign key column of a relationship from `model` to `target`: named by `foreign_keys`, or
 * the one foreign key of the target that references the model (for one-to-one, of either side),
 * or synthesized with a warning when the schemas have none.
 */
function findForeignKey(
  ctx: Context,
  model: ModelDraft,
  target: ModelDraft,
  field: FieldDraft,
  decl: RelationshipDecl,
  claimed: Set<FieldDraft>,
): FoundKey | undefined {
  const name = field.field.name;
  if (decl.foreignKeys !== null) return namedForeignKey(ctx, model, target, decl);
  const onTarget = unclaimedKeys(target, model, claimed);
  if (onTarget.length === 1) return { model: target, field: onTarget[0]! };
  if (onTarget.length > 1) {
    ctx.diagnostics.report(
      'SVC2056',
      `relationship "${name}" could use any of ${onTarget.map((f) => `${target.name}.${f.field.name}`).join(', ')}`,
      {
        span: decl.documentSpan,
        hint: `say which one: "foreign_keys": "${target.name}.${onTarget[0]!.field.name}"`,
      },
    );
    return undefined;
  }
  if (!decl.uselist) {
    const onModel = unclaimedKeys(model, target, claimed);
    if (onModel.length === 1) return { model, field: onModel[0]! };
  }
  return synthesize(ctx, model, target, decl);
}

function namedForeignKey(
  ctx: Context,
  model: ModelDraft,
  target: ModelDraft,
  decl: RelationshipDecl,
): FoundKey | undefined {
  const written = decl.foreignKeys!;
  const [owner, fieldName] = written.includes('.')
    ? [written.slice(0, written.indexOf('.')), written.slice(written.indexOf('.') + 1)]
    : ['', written];
  const holder =
    owner === target.name || owner === target.table
      ? target
      : owner === model.name || owner === model.table
        ? model
        : undefined;
  const candidates = [target, ...(decl.uselist ? [] : [model])];
  const field = holder?.fields.find((f) => f.field.name === fieldName);
  if (!holder || !field || !field.foreignKey) {
    const names = candidates.flatMap((m) =>
      m.fields.filter((f) => f.foreignKey).map((f) => `${m.name}.${f.field.name}`),
    );
    ctx.diagnostics.report(
      'SVC2055',
      `"foreign_keys": "${written}" does not name a foreign_key field of ${target.name}`,
      {
        span: decl.foreignKeysSpan ?? decl.documentSpan,
        hint:
          didYouMean(written, names) ??
          (names.length
            ? `foreign keys: ${names.join(', ')}`
            : `add a foreign_key field to ${target.name} and name it as "${target.name}.<field>"`),
      },
    );
    return undefined;
  }
  const referenced = holder === target ? model : target;
  if (field.foreignKey.refDocument !== referenced.name) {
    // A key of a model that does not exist is SVC2050's to say, with its "did you mean", once.
    if (!apiModel(ctx, field.foreignKey.refDocument)) return undefined;
    ctx.diagnostics.report(
      'SVC2055',
      `${holder.name}.${fieldName} references ${field.foreignKey.refDocument}, not ${referenced.name}`,
      {
        span: decl.foreignKeysSpan ?? decl.documentSpan,
      },
    );
    return undefined;
  }
  return { model: holder, field };
}

function unclaimedKeys(holder: ModelDraft, referenced: ModelDraft, claimed: Set<FieldDraft>): FieldDraft[] {
  return holder.fields.filter((f) => f.foreignKey?.refDocument === referenced.name && !claimed.has(f));
}

/** No foreign key in the schemas (fine for the document engine): the SQL engine still needs one. */
function synthesize(ctx: Context, model: ModelDraft, target: ModelDraft, decl: RelationshipDecl): FoundKey | undefined {
  if (!model.primaryKey) return undefined;
  const name = `${decl.backrefName}_${model.primaryKey}`;
  const taken = target.fields.find((f) => f.field.name === name);
  if (taken?.foreignKey) {
    // The key is there, pointing elsewhere. At a model that does not exist: SVC2050 said so.
    const written = taken.foreignKey.refDocument;
    if (!ctx.models.has(written)) return undefined;
    ctx.diagnostics.report(
      'SVC2062',
      `${target.name}.${name} would store this relationship, but its ref_document is "${written}", not ${model.name}`,
      {
        span: taken.foreignKey.refDocumentSpan,
        related: { span: decl.documentSpan, message: `the relationship to ${target.name} is declared here` },
        hint: `write "ref_document": "${model.name}", or give the key of ${written} another name`,
      },
    );
    return undefined;
  }
  if (taken) {
    ctx.diagnostics.report(
      'SVC2062',
      `no foreign_key field on ${target.name} stores this relationship, and ${target.name}.${name}, the one svcgen would add, is ${withArticle(taken.field.type)} field`,
      {
        span: decl.documentSpan,
        related: { span: taken.nameSpan, message: `${target.name}.${name} is declared here` },
        hint: `make ${name} a foreign key: "${name}": {"_db_settings": {"type": "foreign_key", "ref_document": "${model.name}", "ref_column": "${model.table}.${model.primaryKey}", "ref_column_type": "${keyType(model)}"}}`,
      },
    );
    return undefined;
  }
  const field: FieldDraft = {
    field: synthesizedField(name, {
      type: 'foreign_key',
      helpText: `key of the ${model.name} in ${decl.backrefName} (added by svcgen)`,
    }),
    nameSpan: decl.documentSpan,
    typeSpan: decl.documentSpan,
    processorSpans: [],
    foreignKey: {
      refDocument: model.name,
      refDocumentSpan: decl.documentSpan,
      refColumn: `${model.table}.${model.primaryKey}`,
      refColumnSpan: decl.documentSpan,
      refColumnType: keyType(model),
      refColumnTypeSpan: decl.documentSpan,
      onDelete: 'nullify',
      onDeleteSaid: false,
      onUpdate: 'cascade',
    },
  };
  target.fields.push(field);
  // A to-many link kept in the other model's rows is one-to-many: worth saying where the reader may
  // expect a list (a trip's travellers) to share its objects with other lists.
  const oneParent = decl.uselist
    ? ` (one-to-many: each ${target.name} is linked to one ${model.name} at a time, and linking it to another ${model.name} moves it)`
    : ` (one-to-one: each ${target.name} is linked to at most one ${model.name})`;
  ctx.diagnostics.report(
    'SVC2057',
    `no foreign_key field on ${target.name} stores this relationship; svcgen adds ${target.table}.${name}${oneParent}`,
    {
      span: decl.documentSpan,
      hint: `${manyToManyHint(decl, model, target)}${manyToOneHint(decl, model, target)}declare it to choose its name and ref_ondelete: "${name}": {"_db_settings": {"type": "foreign_key", "ref_document": "${model.name}", "ref_column": "${model.table}.${model.primaryKey}", "ref_column_type": "${keyType(model)}"}}`,
    },
  );
  return { model: target, field };
}

/**
 * A to-many link whose backref is a plural (an instrument's `teachers` beside a teacher's
 * `instruments`) reads as many-to-many, which a foreign key cannot keep: said before the hint,
 * with what can (a probe took the one-to-many for it, and each instrument had one teacher).
 */
function manyToManyHint(decl: RelationshipDecl, model: ModelDraft, target: ModelDraft): string {
  const backref = decl.backrefName;
  if (!decl.uselist || !backref || !pluralize.isPlural(backref) || pluralize.isSingular(backref)) return '';
  return `if each ${target.name} has many ${model.plural} too ("${backref}"), that is many-to-many, which svcgen keeps in a model of its own: a ${model.name}${target.name} with a foreign key to each, and a to-many relationship to it from both; otherwise `;
}

/**
 * A to-one link (`"uselist": false`) whose key svcgen adds on the other model is one-to-one; a new
 * user who meant many orders to one ticket type took the key it named on ticket types for theirs.
 */
function manyToOneHint(decl: RelationshipDecl, model: ModelDraft, target: ModelDraft): string {
  if (decl.uselist) return '';
  return `if many ${model.plural} share one ${target.name}, that is many-to-one, declared the other way round: a foreign key on ${model.name} to ${target.name}, and on ${target.name} a to-many relationship ("document": "${model.name}", "backref_name" the link's name on ${model.name}); otherwise `;
}

function keyType(model: ModelDraft): ScalarFieldType {
  const pk = model.fields.find((f) => f.field.name === model.primaryKey);
  return (pk?.field.type ?? 'string') as ScalarFieldType;
}

/** Several relationships from one model to another each need `foreign_keys`. Returns those that lack it. */
function checkForeignKeysNeeded(ctx: Context, declarations: readonly Declaration[]): RelationshipDecl[] {
  const failed: RelationshipDecl[] = [];
  const byPair = new Map<string, RelationshipDecl[]>();
  for (const { model, decl } of declarations) {
    const key = `${model.name}→${decl.document}`;
    byPair.set(key, [...(byPair.get(key) ?? []), decl]);
  }
  for (const [pair, decls] of byPair) {
    if (decls.length < 2) continue;
    for (const decl of decls.filter((d) => d.foreignKeys === null)) {
      failed.push(decl);
      ctx.diagnostics.report(
        'SVC2056',
        `${pair.replace('→', ' has several relationships to ')}; each needs "foreign_keys"`,
        {
          span: decl.documentSpan,
          hint: `name the foreign key this one uses: "foreign_keys": "${decl.document}.<foreign_key field>"`,
        },
      );
    }
  }
  return failed;
}

/** A one-to-one is declared on one side; `uselist: false` on both sides is a mistake. Returns the second sides. */
function checkOneToOneOnBothSides(ctx: Context, declarations: readonly Declaration[]): RelationshipDecl[] {
  const failed: RelationshipDecl[] = [];
  const oneToOne = declarations.filter((d) => !d.decl.uselist);
  for (const a of oneToOne) {
    const b = oneToOne.find((x) => x.model.name === a.decl.document && x.decl.document === a.model.name);
    if (!b || a.model.name > b.model.name || a === b) continue;
    failed.push(b.decl);
    ctx.diagnostics.report(
      'SVC2053',
      `the one-to-one between ${a.model.name} and ${b.model.name} is declared on both sides`,
      {
        span: b.decl.documentSpan,
        hint: `declare it on one side only; svcgen adds the other side as the backref ("${a.decl.backrefName ?? '…'}")`,
      },
    );
  }
  return failed;
}

/** Foreign keys must reference the target's primary key, and be used by a relationship. */
function checkForeignKeyFields(ctx: Context, claimed: ReadonlySet<FieldDraft>, failedPairs: ReadonlySet<string>): void {
  for (const model of ctx.models.values()) {
    for (const field of model.fields) {
      const fk = field.foreignKey;
      if (!fk || field.field.synthesized || ctx.poisoned.hasModel(fk.refDocument)) continue;
      const referenced = apiModel(ctx, fk.refDocument);
      if (fk.refDocument !== '' && !referenced) {
        ctx.diagnostics.report(
          'SVC2050',
          `foreign key "${field.field.name}" references ${unknownModel(ctx, fk.refDocument)}`,
          {
            span: fk.refDocumentSpan,
            hint: modelHint(ctx, fk.refDocument),
          },
        );
        continue;
      }
      if (!referenced) continue;
      const expected = `${referenced.table}.${referenced.primaryKey}`;
      if (fk.refColumn !== '' && referenced.primaryKey && fk.refColumn !== expected) {
        ctx.diagnostics.report(
          'SVC2058',
          `ref_column "${fk.refColumn}" of "${field.field.name}" is not the primary key of ${referenced.name}`,
          {
            span: fk.refColumnSpan,
            hint: `write "ref_column": "${expected}"`,
          },
        );
      }
      const pkType = keyType(referenced);
      if (fk.refColumnType === '' && referenced.primaryKey) {
        ctx.diagnostics.report(
          'SVC2011',
          `foreign_key field "${field.field.name}" needs "ref_column_type": the type of ${referenced.name}.${referenced.primaryKey}`,
          { span: fk.refColumnTypeSpan, hint: `write "ref_column_type": "${pkType}"` },
        );
      }
      if (
        fk.refColumnType !== '' &&
        referenced.primaryKey &&
        !(KEY_TYPES[pkType] ?? [pkType]).includes(fk.refColumnType)
      ) {
        ctx.diagnostics.report(
          'SVC2059',
          `ref_column_type "${fk.refColumnType}" of "${field.field.name}" does not match ${referenced.name}.${referenced.primaryKey} (${pkType})`,
          {
            span: fk.refColumnTypeSpan,
            hint: `write "ref_column_type": "${pkType === 'id_field' ? 'id_field' : pkType}"`,
          },
        );
      }
      if (
        !claimed.has(field) &&
        !failedPairs.has(pairKey(model.name, referenced.name)) &&
        !failedPairs.has(`${referenced.name}|*`)
      ) {
        ctx.diagnostics.report(
          'SVC2060',
          `foreign key "${field.field.name}" of ${model.name} is not used by any relationship`,
          { span: field.nameSpan, hint: unusedKeyHint(model, referenced, field.field.name) },
        );
      }
    }
  }
}

/**
 * The relationship that would use an unused foreign key. Its backref is the key's name without its
 * suffix (`account_id` → `account`). A key with none (`account`) would name its backref as itself,
 * which SVC2052 then refuses: the key takes the suffix instead. Where another field has that name,
 * the backref takes another.
 */
function unusedKeyHint(model: ModelDraft, referenced: ModelDraft, key: string): string {
  const base = key.replace(/_[a-z]+$/, '');
  const taken = (name: string) => model.fields.some((f) => f.field.name === name);
  const backref = base === key || !taken(base) ? base : `${base}_link`;
  const relationship = `"${model.plural}": {"_db_settings": {"type": "relationship", "document": "${model.name}", "backref_name": "${backref}"}}`;
  if (base === key && !taken(`${key}_id`))
    return `rename the foreign key to "${key}_id" (a relationship's backref "${key}" would take the name it has now), and add a relationship to ${referenced.name}'s schema, e.g. ${relationship}`;
  return `add a relationship to ${referenced.name}'s schema, e.g. ${relationship}`;
}

/**
 * `ondelete` / `backref_ondelete` on a relationship were MongoDB's rules in Ramses (SQL ignored
 * them). svcgen applies one rule on every engine, the foreign key's `ref_ondelete`: a relationship
 * that asks for another is told so, with the line to write, rather than quietly keeping children a
 * schema says are deleted with their parent.
 */
function warnOfIgnoredDeleteRule(
  ctx: Context,
  decl: RelationshipDecl,
  parent: ModelDraft,
  fk: FoundKey,
  effective: ReferentialAction,
): void {
  const asked = [decl.onDelete, decl.backrefOnDelete].find((rule) => rule !== null && rule !== effective);
  if (!asked || !decl.onDeleteSpan) return;
  const words = { cascade: 'CASCADE', restrict: 'RESTRICT', nullify: 'NULLIFY' } as const;
  const does = { cascade: 'deletes', restrict: 'is refused while it has', nullify: 'unlinks' } as const;
  const key = `${fk.model.name}.${fk.field.field.name}`;
  ctx.diagnostics.report(
    'SVC2069',
    `deleting a ${parent.name} ${does[effective]} its ${fk.model.name} objects (${words[effective]}, the rule of the foreign key ${key}, on every engine), not ${words[asked]} as this relationship says`,
    {
      span: decl.onDeleteSpan,
      hint: `add "ref_ondelete": "${words[asked]}" to the _db_settings of ${key}`,
    },
  );
}
