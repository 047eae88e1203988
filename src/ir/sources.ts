/**
 * Where the IR's objects come from in the RAML and the schemas. Kept beside the IR, not inside
 * it (the IR is what `inspect --ir` prints), for the stages after building that report problems
 * at the places the user has to change: the checks, and the migration findings of plan.
 */
import type { Span } from '../diagnostics/source.js';
import type { YScalar } from '../load/ynode.js';
import type { AclEntry } from './types.js';

export interface IrSources {
  readonly models: ReadonlyMap<string, Span>;
  /** Model → its schema's `properties`, in the schema file (models svcgen adds have none). */
  readonly properties: ReadonlyMap<string, Span>;
  /** `Model.field` → the property name in the schema. */
  readonly fields: ReadonlyMap<string, Span>;
  /** `Model.field` → its name in the schema's root `required` array, where that names it. */
  readonly required?: ReadonlyMap<string, Span>;
  /** `Model.group` → the group's key in the model's `_group_fields` (`"g:staff"`). */
  readonly groupFields: ReadonlyMap<string, Span>;
  /** Route path → the RAML resource key. */
  readonly routes: ReadonlyMap<string, Span>;
  /** What gives the base path: `version` where `baseUri` names `{version}`, else `baseUri` (absent without one). */
  readonly basePath?: Span;
  /**
   * The RAML document's `title` (else its first key): where a finding about what the API no longer
   * has at all (a model removed with its routes) is located, for editors that jump to it.
   */
  readonly document?: Span;
  readonly acls: ReadonlyMap<string, Span>;
  readonly aclEntries: ReadonlyMap<AclEntry, Span>;
  readonly handlers: readonly (HandlerUse & { readonly model: string })[];
  /** What the build left out because of a reported error: the checks say nothing more about it. */
  readonly poisoned: PoisonedView;
  /** The schemas read as models' schemas: their problems are the build's errors, not the RAML stage's warnings. */
  readonly modelSchemas: ReadonlySet<YScalar>;
}

/** An event handler named in a model's schema (`_event_handlers`). */
export interface HandlerUse {
  readonly name: string;
  readonly tag: string;
  readonly span: Span;
}

/** What the stages after building may ask of what an error left out (ir/build/poisoned.ts). */
export interface PoisonedView {
  hasModel(name: string): boolean;
  /** Whether the model's field `name` (declared or a backref) was left out or is unknown because of a reported error. */
  hasField(model: string, name: string): boolean;
  /** For a name the model's schema does not declare: it may be the backref of a relationship in a schema that was not read. */
  mayBeBackref(model: string, name: string): boolean;
  /** The models whose schema was not read, whose backrefs are unknown. */
  unreadModels(): readonly string[];
  hasAcl(name: string): boolean;
}
