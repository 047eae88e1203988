/**
 * Who may call an operation. svcgen's documents say it per operation in `x-svcgen-access` (the
 * kinds of caller the ACL lets in: anonymous, member, owner, admin, and `g:<group>` for the other
 * groups the x-ACLs name — plan/openapi/security.ts);
 * other documents only say whether credentials are needed (`security`). A caller who could call
 * the route before and is refused now is a breaking change.
 */
import { change, type ApiChange } from './change.js';
import { isObject, objectAt, type Json, type OperationEntry } from './document.js';

import { ACCESS_EXTENSION } from '../plan/openapi/security.js';
const EVERYONE = ['anonymous', 'member', 'owner', 'admin'];

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
  const a = accessOf(before, was.operation);
  const b = accessOf(after, is.operation);
  if (a && b) {
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
