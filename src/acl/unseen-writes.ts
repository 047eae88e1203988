/**
 * Whether a change of one object may be made by a caller who may not view it. The service then
 * answers that the change was made and shows nothing of the object (runtime/src/lib/http/route-context.ts
 * `shownChange`), so the OpenAPI document and the typed client say that the answer may be a
 * status body instead.
 *
 * With auth on, each permission is decided by the first line that names it and matches the caller
 * (item rules, then collection rules; none denies). A caller may `update` without `view` only if
 * some line allows `update` and not `view` (it decides the update; the view is decided later, or
 * not at all: denied), or denies `view` and not `update` (it decides the view; a later line may
 * allow the update). Any other line decides both alike, for every caller it matches; and once a
 * line allows `view` to everyone with none before it denying it, nobody is refused it. Which
 * callers the other lines match is not looked at: where it can happen at all, it is said.
 */
import { decidingLines } from '../ir/model-route.js';
import type { Acl, AclEntry, Route, ServiceIR } from '../ir/types.js';

export function changesUnseen(ir: ServiceIR, route: Route): boolean {
  if (!ir.auth || route.kind === 'collection') return false;
  const acl: Acl | undefined = route.acl ? ir.acls.find((a) => a.name === route.acl) : undefined;
  // No x-ACL: admins only, who view everything.
  if (!acl) return false;
  const lines = reachable(decidingLines(acl, 'item'));
  if (everyoneViews(lines)) return false;
  return lines.some(splitsViewFromUpdate);
}

/**
 * The lines up to the first that decides both `view` and `update` for everyone (`deny everyone
 * all` at the end of the item rules): no caller gets past it, so what comes after (the collection
 * rules) decides nothing on an item.
 */
function reachable(lines: readonly AclEntry[]): readonly AclEntry[] {
  const last = lines.findIndex(
    (line) =>
      line.principal.kind === 'everyone' && line.permissions.includes('view') && line.permissions.includes('update'),
  );
  return last === -1 ? lines : lines.slice(0, last + 1);
}

/** `allow everyone view` with no line before it that denies `view` to anyone: nobody is refused it. */
function everyoneViews(lines: readonly AclEntry[]): boolean {
  for (const line of lines) {
    if (!line.permissions.includes('view')) continue;
    if (line.action === 'deny') return false;
    if (line.principal.kind === 'everyone') return true;
  }
  return false;
}

function splitsViewFromUpdate(entry: AclEntry): boolean {
  const view = entry.permissions.includes('view');
  const update = entry.permissions.includes('update');
  return entry.action === 'allow' ? update && !view : view && !update;
}
