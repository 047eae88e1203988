/**
 * Whether an x-ACL lets every caller of an audience view objects by a fixed line: the first line
 * that names `view` for all of them (`everyone`; for members `authenticated` too) allows it. Lines
 * for a group, a user or a `{{principal}}` name only some of them, and are passed over. Read as an
 * item's rules are (its item lines, then the collection's), as a list is decided too.
 */
import { decidingLines } from '../ir/model-route.js';
import type { ListedAudience } from '../ir/privacy.js';
import type { Route, ServiceIR } from '../ir/types.js';

/** The callers privacy lists and x-ACL lines both tell apart, named as the warnings name them. */
export const AUDIENCES: readonly (readonly [ListedAudience, string])[] = [
  ['anonymous', 'anonymous callers'],
  ['member', 'members'],
];

export function viewsEvery(ir: ServiceIR, route: Route, audience: ListedAudience): boolean {
  const acl = route.acl === null ? undefined : ir.acls.find((a) => a.name === route.acl);
  if (!acl) return false;
  for (const line of decidingLines(acl, 'item')) {
    if (!line.permissions.includes('view')) continue;
    const kind = line.principal.kind;
    if (kind === 'everyone' || (audience !== 'anonymous' && kind === 'authenticated')) return line.action === 'allow';
  }
  return false;
}
