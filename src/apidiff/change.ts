/**
 * A client-visible difference between two OpenAPI documents of a service: what changed, where,
 * and whether a client written against the older document can break on the newer one.
 */

/** Every kind of change the classifier tells apart, and whether it breaks clients. */
export const CHANGE_KINDS = {
  'base-path-changed': { breaking: true, title: 'base path changed' },
  'route-removed': { breaking: true, title: 'route removed' },
  'method-removed': { breaking: true, title: 'method removed' },
  'path-parameter-renamed': { breaking: true, title: 'path parameter renamed' },
  'response-field-removed': { breaking: true, title: 'response field removed' },
  'response-field-renamed': { breaking: true, title: 'response field renamed' },
  'response-field-nullable': { breaking: true, title: 'response field made nullable' },
  'response-field-optional': { breaking: true, title: 'response field made optional' },
  'response-field-hidden': { breaking: true, title: 'response field hidden from callers' },
  'response-changed': { breaking: true, title: 'response changed' },
  'type-changed': { breaking: true, title: 'field type changed' },
  'type-narrowed': { breaking: true, title: 'field type narrowed' },
  'format-changed': { breaking: true, title: 'field format changed' },
  'enum-value-removed': { breaking: true, title: 'enum value removed' },
  'constraint-tightened': { breaking: true, title: 'constraint tightened' },
  'request-field-removed': { breaking: true, title: 'request field removed' },
  'request-field-renamed': { breaking: true, title: 'request field renamed' },
  'request-field-required': { breaking: true, title: 'request field made required' },
  'request-field-read-only': { breaking: true, title: 'request field made read-only' },
  'request-field-write-once': { breaking: true, title: 'request field made write-once' },
  'request-field-added-required': { breaking: true, title: 'required request field added' },
  'request-body-required': { breaking: true, title: 'request body made required' },
  'query-parameter-removed': { breaking: true, title: 'query parameter removed' },
  'query-operator-removed': { breaking: true, title: 'query operator removed' },
  'parameter-required': { breaking: true, title: 'parameter made required' },
  'access-narrowed': { breaking: true, title: 'route guarded more strictly' },
  'page-size-lowered': { breaking: true, title: 'page size lowered' },
  'route-added': { breaking: false, title: 'route added' },
  'method-added': { breaking: false, title: 'method added' },
  'response-field-added': { breaking: false, title: 'response field added' },
  'response-field-shown': { breaking: false, title: 'response field shown to more callers' },
  'request-field-added': { breaking: false, title: 'optional request field added' },
  'request-field-optional': { breaking: false, title: 'request field made optional' },
  'request-field-writable': { breaking: false, title: 'request field made writable' },
  'type-widened': { breaking: false, title: 'field type widened' },
  'response-narrowed': { breaking: false, title: 'response field narrowed' },
  'enum-value-added': { breaking: false, title: 'enum value added' },
  'constraint-relaxed': { breaking: false, title: 'constraint relaxed' },
  'query-parameter-added': { breaking: false, title: 'query parameter added' },
  'query-operator-added': { breaking: false, title: 'query operator added' },
  'access-widened': { breaking: false, title: 'route opened to more callers' },
  'page-size-raised': { breaking: false, title: 'page size raised' },
} as const satisfies Record<string, { readonly breaking: boolean; readonly title: string }>;

export type ChangeKind = keyof typeof CHANGE_KINDS;

export interface ApiChange {
  readonly kind: ChangeKind;
  readonly breaking: boolean;
  /**
   * Where clients meet it: `GET /posts/{slug}` for an operation; for a component schema, the
   * operations that use it (`schema` names it).
   */
  readonly operations: readonly string[];
  /** The component schema the change is in, when it is in one. */
  readonly schema?: string;
  /** The field, parameter or part: `title`, `tags[]`, `query status__in`, `201 body`. */
  readonly path: string;
  /** What changed, as a sentence fragment: "was removed", "type integer → string". */
  readonly message: string;
  readonly hint?: string;
}

export function change(
  kind: ChangeKind,
  where: { readonly operations: readonly string[]; readonly schema?: string | undefined; readonly path: string },
  message: string,
  hint?: string,
): ApiChange {
  return {
    kind,
    breaking: CHANGE_KINDS[kind].breaking,
    operations: where.operations,
    ...(where.schema ? { schema: where.schema } : {}),
    path: where.path,
    message,
    ...(hint ? { hint } : {}),
  };
}

/**
 * The model and field a change of a component schema is in, as svcgen names its schemas after their
 * model (`Post`, `PostCreate`, `PostUpdate`, `PostReplace`, `PostCollection`): `PostCreate.title` is Post's
 * `title`; a model named like a body (`AutoUpdate`) is itself. Undefined for a change of no schema.
 */
export function changedField(
  c: ApiChange,
  isModel: (name: string) => boolean,
): { readonly model: string; readonly field: string } | undefined {
  if (c.schema === undefined) return undefined;
  const model = isModel(c.schema) ? c.schema : c.schema.replace(/(Create|Update|Collection|Replace)_*$/, '');
  return { model, field: c.path.split(/[.[]/)[0] ?? '' };
}

/** Where a change is, in one line: `PostCreate.title (POST /posts, PUT /posts/{slug})`. */
export function locationOf(c: ApiChange): string {
  const shown = c.operations.slice(0, 3).join(', ') + (c.operations.length > 3 ? `, +${c.operations.length - 3}` : '');
  if (c.schema) return `${c.schema}${c.path ? `.${c.path}` : ''}${shown ? ` (${shown})` : ''}`;
  return `${shown}${c.path ? ` ${c.path}` : ''}`.trim();
}

/** A stable order: breaking first, then by location and kind. */
export function sortChanges(changes: readonly ApiChange[]): ApiChange[] {
  const key = (c: ApiChange) => `${c.breaking ? 0 : 1}\0${locationOf(c)}\0${c.kind}\0${c.message}`;
  return [...changes].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/**
 * The change's kind and what it says beyond it: `route removed`, not `route removed — was
 * removed`; `type changed — integer → string`. `escape` readies the message for where it goes.
 */
export function changeText(c: ApiChange, escape: (text: string) => string = (text) => text): string {
  const title = CHANGE_KINDS[c.kind].title;
  return SAYS_NO_MORE.has(c.message) ? title : `${title} — ${escape(c.message)}`;
}

/** Messages that only repeat what a kind's title says. */
const SAYS_NO_MORE = new Set(['was removed', 'is new']);
