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

/** Whether a document says which groups it names (`x-svcgen-groups`), not only where they are let in. */
function namesGroups(doc: Json): boolean {
  return Array.isArray(doc[GROUPS_EXTENSION]);
}

/**
 * Both versions' callers of an operation, comparable: a group one version names and the other does
 * not is a plain member in the other, let in where `member` is. Where that other is a document
 * from before `x-svcgen-groups`, a group it lists nowhere may have been named there only to be
 * denied: it cannot be told, so that group is left out of the comparison.
 */
function comparableCallers(
  was: readonly string[],
  is: readonly string[],
  before: Json,
  after: Json,
): [readonly string[], readonly string[]] {
  const untold = new Set<string>();
  const side = (callers: readonly string[], doc: Json, other: Json) => {
    const own = groupsOf(doc);
    const unnamed = [...groupsOf(other)].filter((g) => !own.has(g));
    if (!namesGroups(doc)) unnamed.forEach((g) => untold.add(g));
    return namesGroups(doc) && callers.includes('member') ? [...callers, ...unnamed] : [...callers];
  };
  const a = side(was, before, after);
  const b = side(is, after, before);
  return [a.filter((c) => !untold.has(c)), b.filter((c) => !untold.has(c))];
}

/** The kinds of caller of `x-svcgen-access` in words (`owner` alone read as a field of the model to a new user). */
const CALLER_WORDS: Readonly<Record<string, string>> = {
  anonymous: 'anonymous callers',
  member: 'members',
  owner: 'members a {{principal}} lets in (owners)',
  admin: 'admins',
};

function callersText(callers: readonly string[]): string {
  return callers.map((c) => CALLER_WORDS[c] ?? c).join(', ');
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
    const [a, b] = comparableCallers(declaredBefore, declaredAfter, before, after);
    const refused = a.filter((c) => !b.includes(c));
    const admitted = b.filter((c) => !a.includes(c));
    if (refused.length)
      out.push(
        change(
          'access-narrowed',
          place,
          // Who is let in now, as the document says: the comparison leaves out the groups it cannot
          // compare (a version without auth named none), whom a probe was told were refused.
          `is refused now to: ${callersText(refused)} (allowed: ${callersText(declaredAfter) || 'nobody'})`,
          'those callers get 401 or 403 where they got an answer. Where it closes access that was never meant (a hole), refusing it is the fix: generate with --allow-breaking',
        ),
      );
    if (admitted.length) out.push(change('access-widened', place, `is open now to: ${callersText(admitted)}`));
    return;
  }
  const anonymous = { was: anonymousAllowed(before, was.operation), is: anonymousAllowed(after, is.operation) };
  if (anonymous.was && !anonymous.is)
    out.push(
      change('access-narrowed', place, 'now needs credentials', 'callers with none get 401 where they got an answer'),
    );
  else if (!anonymous.was && anonymous.is) out.push(change('access-widened', place, 'no longer needs credentials'));
}
