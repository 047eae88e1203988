/**
 * Who may call an operation. svcgen's documents say it per operation in `x-svcgen-access` (the
 * kinds of caller the ACL lets in: anonymous, member, owner, admin, and `g:<group>` for the other
 * groups the x-ACLs name — plan/openapi/security.ts);
 * other documents only say whether credentials are needed (`security`). A caller who could call
 * the route before and is refused now is a breaking change.
 */
import { change, type ApiChange } from './change.js';
import { isObject, objectAt, operationsOf, type Json, type OperationEntry } from './document.js';
import { ACCESS_EXTENSION, GROUPS_EXTENSION } from '../plan/openapi/security.js';

const EVERYONE = ['anonymous', 'member', 'owner', 'admin'];

/** Per document, the groups its `x-svcgen-access` may name. */
const groupColumns = new WeakMap<Json, ReadonlySet<string>>();

/**
 * The groups a document's access lists may name: its `x-svcgen-groups`, or, in a document from
 * before it, every group some operation lets in.
 */
function groupsOf(doc: Json): ReadonlySet<string> {
  let groups = groupColumns.get(doc);
  if (groups) return groups;
  const declared = doc[GROUPS_EXTENSION];
  const named = Array.isArray(declared)
    ? declared.filter((g): g is string => typeof g === 'string').map((g) => `g:${g}`)
    : [...operationsOf(doc).values()].flatMap(({ operation }) => accessOf(doc, operation) ?? []);
  groups = new Set(named.filter((c) => c.startsWith('g:')));
  groupColumns.set(doc, groups);
  return groups;
}

/**
 * `callers` with the groups `other` names and `doc` does not: their members are plain members in
 * `doc`, let in where `member` is.
 */
function withUnnamedGroups(callers: readonly string[], doc: Json, other: Json): readonly string[] {
  if (!callers.includes('member')) return callers;
  const own = groupsOf(doc);
  const unnamed = [...groupsOf(other)].filter((g) => !own.has(g) && !callers.includes(g));
  return unnamed.length ? [...callers, ...unnamed] : callers;
}

function effectiveSecurity(doc: Json, operation: Json): unknown {
  return 'security' in operation ? operation['security'] : doc['security'];
}

/** Whether a caller with no credentials may call it, as `security` says. */
function anonymousAllowed(doc: Json, operation: Json): boolean {
  const security = effectiveSecurity(doc, operation);
  if (!Array.isArray(security) || security.length === 0) return true;
  return security.some((requirement) => isObject(requirement) && Object.keys(requirement).length === 0);
}

/** The callers let in, when the document says: its extension, or everyone in an API without security schemes. */
function accessOf(doc: Json, operation: Json): readonly string[] | undefined {
  const declared = operation[ACCESS_EXTENSION];
  if (Array.isArray(declared)) return declared.filter((c): c is string => typeof c === 'string');
  const schemes = objectAt(objectAt(doc, 'components'), 'securitySchemes');
  return Object.keys(schemes).length === 0 && anonymousAllowed(doc, operation) ? EVERYONE : undefined;
}

export function compareAccess(
  before: Json,
  after: Json,
  was: OperationEntry,
  is: OperationEntry,
  out: ApiChange[],
): void {
  const place = { operations: [was.key], path: '' };
  const declaredBefore = accessOf(before, was.operation);
  const declaredAfter = accessOf(after, is.operation);
  if (declaredBefore && declaredAfter) {
    const a = withUnnamedGroups(declaredBefore, before, after);
    const b = withUnnamedGroups(declaredAfter, after, before);
    const refused = a.filter((c) => !b.includes(c));
    const admitted = b.filter((c) => !a.includes(c));
    if (refused.length)
      out.push(
        change(
          'access-narrowed',
          place,
          `is refused now to: ${refused.join(', ')} (allowed: ${b.join(', ') || 'nobody'})`,
          'those callers get 401 or 403 where they got an answer',
        ),
      );
    if (admitted.length) out.push(change('access-widened', place, `is open now to: ${admitted.join(', ')}`));
    return;
  }
  const anonymous = { was: anonymousAllowed(before, was.operation), is: anonymousAllowed(after, is.operation) };
  if (anonymous.was && !anonymous.is)
    out.push(
      change('access-narrowed', place, 'now needs credentials', 'callers with none get 401 where they got an answer'),
    );
  else if (!anonymous.was && anonymous.is) out.push(change('access-widened', place, 'no longer needs credentials'));
}
