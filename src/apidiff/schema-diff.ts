/**
 * Comparing two JSON Schemas of the same place in the API, in the direction clients use it:
 * what they send (a request body, a query parameter) may only accept more; what they receive
 * (an answer) may only promise more. A schema both sent and received must keep both rules.
 */
import { change, type ApiChange, type ChangeKind } from './change.js';
import { isObject, objectAt, refName, type Direction, type Json } from './document.js';
import { FIELD_AUDIENCES, READ_ONLY_MARK, VISIBLE_TO_MARK, WRITE_ONCE_MARK } from '../plan/openapi/limits.js';

export interface SchemaPlace {
  readonly operations: readonly string[];
  readonly schema?: string | undefined;
  /** The field path inside the schema (`''` at its root). */
  readonly path: string;
}

export interface SchemaComparison {
  readonly directions: ReadonlySet<Direction>;
  readonly out: ApiChange[];
  /** Fields renamed at the schema's root (old name → new), said so instead of removed and added. */
  readonly renames?: ReadonlyMap<string, string> | undefined;
  /** How deep in the schema this comparison is (see MAX_DEPTH). */
  readonly depth?: number;
  /** Both documents say who sees each answer's field (`x-svcgen-field-audiences`): compare it. */
  readonly visibility?: boolean;
}

/**
 * The documents are untrusted (an out-dir's openapi.json may come from a pull request): nesting
 * deeper than any API needs is not followed, rather than exhausting the stack.
 */
export const MAX_DEPTH = 64;

export function compareSchemas(before: unknown, after: unknown, place: SchemaPlace, cmp: SchemaComparison): void {
  if (!isObject(before) || !isObject(after) || (cmp.depth ?? 0) > MAX_DEPTH) return;
  const refBefore = refName(before);
  const refAfter = refName(after);
  // Component schemas are compared once each, apart (classify.ts): a reference to the same one is equal here.
  if (refBefore !== undefined && refBefore === refAfter) return;
  compareTypes(before, after, place, cmp);
  compareEnums(before, after, place, cmp);
  compareFormats(before, after, place, cmp);
  if (cmp.directions.has('request')) compareConstraints(before, after, place, cmp);
  compareProperties(before, after, place, cmp);
  if (isObject(before['items']) && isObject(after['items']))
    compareSchemas(
      before['items'],
      after['items'],
      { ...place, path: `${place.path}[]` },
      { ...cmp, renames: undefined, depth: (cmp.depth ?? 0) + 1 },
    );
}

const sends = (cmp: SchemaComparison) => cmp.directions.has('request');
const receives = (cmp: SchemaComparison) => cmp.directions.has('response');

function report(cmp: SchemaComparison, kind: ChangeKind, place: SchemaPlace, message: string, hint?: string): void {
  cmp.out.push(change(kind, place, message, hint));
}

/** The kinds of value a schema allows: JSON types, `ref:Name` for a component, `any` when unconstrained. */
export function typeSet(schema: Json, depth = 0): Set<string> {
  const types = new Set<string>();
  const name = refName(schema);
  if (name !== undefined) return new Set([`ref:${name}`]);
  const type = schema['type'];
  if (typeof type === 'string') types.add(type);
  if (Array.isArray(type)) for (const t of type) if (typeof t === 'string') types.add(t);
  const values = Array.isArray(schema['enum']) ? schema['enum'] : 'const' in schema ? [schema['const']] : undefined;
  if (values && types.size === 0) for (const v of values) types.add(jsonType(v));
  for (const key of ['anyOf', 'oneOf'] as const) {
    const alternatives = schema[key];
    if (Array.isArray(alternatives) && depth < MAX_DEPTH)
      for (const alt of alternatives) if (isObject(alt)) for (const t of typeSet(alt, depth + 1)) types.add(t);
  }
  if (types.size === 0) types.add('any');
  return types;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** Whether every value of type set `inner` is a value of `outer` (a number takes integers; `any` takes all). */
function covers(outer: ReadonlySet<string>, inner: ReadonlySet<string>): boolean {
  if (outer.has('any')) return true;
  return [...inner].every((t) => outer.has(t) || (t === 'integer' && outer.has('number')));
}

function shown(types: ReadonlySet<string>): string {
  return [...types].map((t) => t.replace(/^ref:/, '')).join(' | ');
}

function compareTypes(before: Json, after: Json, place: SchemaPlace, cmp: SchemaComparison): void {
  const was = typeSet(before);
  const is = typeSet(after);
  const nullable = { was: was.delete('null'), is: is.delete('null') };
  const what = `type ${shown(was)} → ${shown(is)}`;
  const wider = covers(is, was);
  const narrower = covers(was, is);
  if (!(wider && narrower)) {
    if (wider && !receives(cmp)) report(cmp, 'type-widened', place, `${what} (accepts more)`);
    else if (narrower && !sends(cmp))
      report(cmp, 'response-narrowed', place, `${what} (answers hold fewer kinds of value)`);
    else if (narrower) report(cmp, 'type-narrowed', place, `${what}: values clients send today are refused`);
    else
      report(
        cmp,
        'type-changed',
        place,
        what,
        'clients written against the old type read or send the wrong kind of value',
      );
  }
  if (!nullable.was && nullable.is) {
    if (receives(cmp))
      report(cmp, 'response-field-nullable', place, 'may now be null', 'clients that read it must handle null');
    else report(cmp, 'type-widened', place, 'now accepts null');
  } else if (nullable.was && !nullable.is) {
    if (sends(cmp)) report(cmp, 'type-narrowed', place, 'no longer accepts null: clients that send null are refused');
    else report(cmp, 'response-narrowed', place, 'is never null now');
  }
}

function enumValues(schema: Json): unknown[] | undefined {
  const values = schema['enum'];
  return Array.isArray(values) ? values.filter((v) => v !== null) : undefined;
}

function compareEnums(before: Json, after: Json, place: SchemaPlace, cmp: SchemaComparison): void {
  const was = enumValues(before);
  const is = enumValues(after);
  if (!was && !is) return;
  if (was && !is) {
    report(cmp, sends(cmp) ? 'constraint-relaxed' : 'type-changed', place, 'is no longer limited to a list of values');
    return;
  }
  if (!was && is) {
    if (sends(cmp))
      report(
        cmp,
        'constraint-tightened',
        place,
        `is now limited to ${list(is)}`,
        'clients that send other values are refused',
      );
    else report(cmp, 'response-narrowed', place, `is now one of ${list(is)}`);
    return;
  }
  const text = (v: unknown) => JSON.stringify(v);
  const removed = was!.filter((v) => !is!.some((w) => text(w) === text(v)));
  const added = is!.filter((v) => !was!.some((w) => text(w) === text(v)));
  if (removed.length) {
    if (sends(cmp))
      report(cmp, 'enum-value-removed', place, `no longer takes ${list(removed)}`, 'clients that send it are refused');
    else report(cmp, 'response-narrowed', place, `no longer answers ${list(removed)}`);
  }
  if (added.length) report(cmp, 'enum-value-added', place, `takes ${list(added)} too`);
}

function list(values: readonly unknown[]): string {
  return values.map((v) => JSON.stringify(v)).join(', ');
}

function compareFormats(before: Json, after: Json, place: SchemaPlace, cmp: SchemaComparison): void {
  const was = typeof before['format'] === 'string' ? before['format'] : undefined;
  const is = typeof after['format'] === 'string' ? after['format'] : undefined;
  if (was === is) return;
  const what = `format ${was ?? '(none)'} → ${is ?? '(none)'}`;
  if ((sends(cmp) && is !== undefined) || (receives(cmp) && was !== undefined))
    report(cmp, 'format-changed', place, what, 'clients parse or send the value in the old format');
  else report(cmp, sends(cmp) ? 'constraint-relaxed' : 'response-narrowed', place, what);
}

/** Limits on what clients send: an upper bound that falls (or appears) refuses what it took. */
const UPPER = ['maxLength', 'maxItems', 'maxProperties'] as const;
const LOWER = ['minLength', 'minItems', 'minProperties'] as const;

function compareConstraints(before: Json, after: Json, place: SchemaPlace, cmp: SchemaComparison): void {
  const num = (schema: Json, key: string) => (typeof schema[key] === 'number' ? schema[key] : undefined);
  compareRange(before, after, place, cmp, 'upper');
  compareRange(before, after, place, cmp, 'lower');
  for (const key of [...UPPER, ...LOWER]) {
    const was = num(before, key);
    const is = num(after, key);
    if (was === is) continue;
    const upper = (UPPER as readonly string[]).includes(key);
    const tighter = is !== undefined && (was === undefined || (upper ? is < was : is > was));
    report(
      cmp,
      tighter ? 'constraint-tightened' : 'constraint-relaxed',
      place,
      `${key} ${was ?? '(none)'} → ${is ?? '(none)'}`,
    );
  }
  for (const key of ['pattern', 'multipleOf', 'const'] as const) {
    const was = before[key];
    const is = after[key];
    if (JSON.stringify(was) === JSON.stringify(is)) continue;
    // One regular expression for another: whether the new one takes every value the old one took
    // cannot be told in general, so it is said as breaking, and why.
    const unknowable = key === 'pattern' && was !== undefined && is !== undefined;
    report(
      cmp,
      is === undefined ? 'constraint-relaxed' : 'constraint-tightened',
      place,
      `${key} ${show(was)} → ${show(is)}`,
      unknowable
        ? 'svcgen cannot tell whether the new pattern takes every value the old one did; if it does, nothing breaks: generate with --allow-breaking'
        : undefined,
    );
  }
}

/** A number's bound on one side: `maximum` and `exclusiveMaximum` are one bound, the tighter of the two. */
interface Bound {
  readonly key: string;
  readonly value: number;
  readonly exclusive: boolean;
}

function boundOf(schema: Json, side: 'upper' | 'lower'): Bound | undefined {
  const [inclusive, exclusive] = side === 'upper' ? ['maximum', 'exclusiveMaximum'] : ['minimum', 'exclusiveMinimum'];
  const bounds = [
    { key: inclusive, value: schema[inclusive], exclusive: false },
    { key: exclusive, value: schema[exclusive], exclusive: true },
  ].filter((b): b is Bound => typeof b.value === 'number');
  return bounds.reduce<Bound | undefined>((a, b) => (a === undefined || tighter(b, a, side) ? b : a), undefined);
}

/** Whether bound `a` refuses a value bound `b` takes. */
function tighter(a: Bound, b: Bound, side: 'upper' | 'lower'): boolean {
  if (a.value !== b.value) return side === 'upper' ? a.value < b.value : a.value > b.value;
  return a.exclusive && !b.exclusive;
}

/**
 * A number's range on one side, as one bound: `maximum 2147483647` → `exclusiveMaximum
 * 9999999999.995` (an integer made a decimal) takes more, not less (a probe's was said breaking).
 */
function compareRange(
  before: Json,
  after: Json,
  place: SchemaPlace,
  cmp: SchemaComparison,
  side: 'upper' | 'lower',
): void {
  const was = boundOf(before, side);
  const is = boundOf(after, side);
  if (was?.value === is?.value && was?.exclusive === is?.exclusive) return;
  const what =
    was && is && was.key !== is.key
      ? `${was.key} ${was.value} → ${is.key} ${is.value}`
      : `${(was ?? is)!.key} ${was?.value ?? '(none)'} → ${is?.value ?? '(none)'}`;
  const narrower = is !== undefined && (was === undefined || tighter(is, was, side));
  report(cmp, narrower ? 'constraint-tightened' : 'constraint-relaxed', place, what);
}

function show(value: unknown): string {
  return value === undefined ? '(none)' : JSON.stringify(value);
}

function requiredOf(schema: Json): Set<string> {
  return new Set(Array.isArray(schema['required']) ? schema['required'].filter((r) => typeof r === 'string') : []);
}

/** Who writes a request field: any caller, any caller in a create only (write-once), admins and the service only. */
type WriteRule = 'free' | 'once' | 'read-only';
const WRITE_RULE_RANK: Readonly<Record<WriteRule, number>> = { free: 0, once: 1, 'read-only': 2 };

/**
 * A request field clients sent that only admins and the service may write now (read-only), or
 * change once written (write-once); or the reverse.
 */
function compareWriteRule(before: unknown, after: unknown, place: SchemaPlace, cmp: SchemaComparison): void {
  if (!sends(cmp) || receives(cmp)) return;
  const was = writeRule(before);
  const is = writeRule(after);
  if (was === is) return;
  if (WRITE_RULE_RANK[is] < WRITE_RULE_RANK[was])
    report(
      cmp,
      'request-field-writable',
      place,
      was === 'once'
        ? 'may be changed now, not only set by a create'
        : is === 'free'
          ? 'may be sent now'
          : 'may be sent in a create now',
    );
  else if (is === 'read-only')
    report(
      cmp,
      'request-field-read-only',
      place,
      'is read-only now: a body that sends it is refused (403) but for admins',
      'clients must stop sending it; the service sets it',
    );
  else
    report(
      cmp,
      'request-field-write-once',
      place,
      'is write-once now: a change to it is refused (403) but for admins',
      'clients may send it when they create an object, and must stop changing it',
    );
}

/**
 * Who sees an answer's field (`x-svcgen-visible-to`; every caller where it is not said): callers who
 * saw it and no longer do read nothing there (a narrower `_public_fields`, `_auth_fields` or
 * `_group_fields`).
 */
function compareVisibility(before: unknown, after: unknown, place: SchemaPlace, cmp: SchemaComparison): void {
  if (!receives(cmp) || !cmp.visibility) return;
  const was = visibleTo(before);
  const is = visibleTo(after);
  if (was === undefined && is === undefined) return;
  const [seen, seenNow] = [was ?? FIELD_AUDIENCES, is ?? FIELD_AUDIENCES];
  const lost = seen.filter((c) => !includesCaller(seenNow, c));
  const gained = seenNow.filter((c) => !includesCaller(seen, c));
  if (lost.length)
    report(
      cmp,
      'response-field-hidden',
      place,
      `is no longer shown to: ${lost.join(', ')}`,
      'those callers no longer get it in answers',
    );
  if (gained.length) report(cmp, 'response-field-shown', place, `is shown now to: ${gained.join(', ')}`);
}

/** Whether `callers` takes in `caller`: a group (`g:registrar`, `_group_fields`) is among the members. */
function includesCaller(callers: readonly string[], caller: string): boolean {
  return callers.includes(caller) || (caller.startsWith('g:') && callers.includes('member'));
}

function visibleTo(schema: unknown): readonly string[] | undefined {
  const mark = typeof schema === 'object' && schema !== null ? (schema as Json)[VISIBLE_TO_MARK] : undefined;
  return Array.isArray(mark) ? mark.filter((c): c is string => typeof c === 'string') : undefined;
}

function writeRule(schema: unknown): WriteRule {
  if (typeof schema !== 'object' || schema === null) return 'free';
  if ((schema as Json)[READ_ONLY_MARK] === true) return 'read-only';
  return (schema as Json)[WRITE_ONCE_MARK] === true ? 'once' : 'free';
}

function compareProperties(before: Json, after: Json, place: SchemaPlace, cmp: SchemaComparison): void {
  const was = objectAt(before, 'properties');
  const is = objectAt(after, 'properties');
  const required = { was: requiredOf(before), is: requiredOf(after) };
  const at = (name: string): SchemaPlace => ({ ...place, path: place.path ? `${place.path}.${name}` : name });
  const renamedTo = new Map([...(cmp.renames ?? [])].filter(([old, now]) => old in was && now in is && !(now in was)));
  const renamedFrom = new Set(renamedTo.values());
  // An old name given to a new field (phone → mobile, and a new phone): clients that still use it
  // read and write the other field, which a comparison by name called "made nullable" (a probe's).
  const reused = new Set([...renamedTo.keys()].filter((old) => old in is));
  for (const name of Object.keys(was)) {
    const renamed = renamedTo.get(name);
    if (renamed !== undefined)
      report(
        cmp,
        receives(cmp) ? 'response-field-renamed' : 'request-field-renamed',
        at(name),
        `was renamed to ${renamed} (renamed_from keeps the stored data, but the JSON field name clients use changed)${
          reused.has(name) ? `; ${name} is now another field, which clients that still use ${name} read and write` : ''
        }`,
        `clients must read and send ${renamed}; keep ${name} in the API too if they cannot change yet`,
      );
    else if (!(name in is)) {
      if (receives(cmp))
        report(cmp, 'response-field-removed', at(name), 'was removed', 'clients that read it get nothing');
      else report(cmp, 'request-field-removed', at(name), 'was removed: clients that send it are refused');
      continue;
    }
    // Whatever else changed, with the name or without (a renamed field made required, a link to one
    // that became a list of keys): compared under its name now.
    const now = renamed ?? name;
    compareSchemas(was[name], is[now], at(now), { ...cmp, renames: undefined, depth: (cmp.depth ?? 0) + 1 });
    if (receives(cmp) && required.was.has(name) && !required.is.has(now))
      report(
        cmp,
        'response-field-optional',
        at(now),
        'may now be missing from answers',
        'clients that read it must handle its absence',
      );
    if (sends(cmp) && !required.was.has(name) && required.is.has(now))
      report(cmp, 'request-field-required', at(now), 'is now required', 'clients that leave it out are refused');
    if (sends(cmp) && !receives(cmp) && required.was.has(name) && !required.is.has(now))
      report(cmp, 'request-field-optional', at(now), 'is optional now');
    compareWriteRule(was[name], is[now], at(now), cmp);
    compareVisibility(was[name], is[now], at(now), cmp);
  }
  for (const name of Object.keys(is)) {
    if ((name in was && !reused.has(name)) || renamedFrom.has(name)) continue;
    const what = reused.has(name)
      ? `is new, under the name ${renamedTo.get(name)} had before its rename: clients that still use ${name} read and write this one`
      : 'is new';
    if (sends(cmp) && required.is.has(name))
      report(
        cmp,
        'request-field-added-required',
        at(name),
        `${what}, and required`,
        'clients that do not send it are refused',
      );
    else report(cmp, receives(cmp) ? 'response-field-added' : 'request-field-added', at(name), what);
  }
}
