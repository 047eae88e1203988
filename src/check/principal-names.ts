/**
 * A `{{principal}}` named once, one slip away from another the x-ACLs name (`{{ridr}}` beside
 * `{{rider}}`): each names a user function of its own, so the slip gets a stub that matches no one
 * until written, and the line it is on quietly lets no one in (a probe's did, unseen by `validate`).
 */
import type { DiagnosticBag } from '../diagnostics/diagnostic.js';
import type { IrSources } from '../ir/sources.js';
import type { AclEntry, ServiceIR } from '../ir/types.js';
import { closest } from '../util/suggest.js';

export function checkPrincipalNames(diagnostics: DiagnosticBag, ir: ServiceIR, sources: IrSources): void {
  const uses = new Map<string, AclEntry[]>();
  for (const acl of ir.acls)
    for (const entry of [...acl.collection, ...acl.item])
      if (entry.principal.kind === 'dynamic')
        uses.set(entry.principal.name, [...(uses.get(entry.principal.name) ?? []), entry]);
  const order = [...uses.keys()];
  for (const [name, entries] of uses) {
    if (entries.length !== 1) continue;
    // Named more often, or (each named once: `{{ownr}}` on one line, `{{owner}}` on another) named first.
    const others = order.filter(
      (other) =>
        other !== name &&
        (uses.get(other)!.length > 1 || order.indexOf(other) < order.indexOf(name)) &&
        oneWordApart(name, other),
    );
    const near = closest(name, others);
    if (near === undefined) continue;
    const times = uses.get(near)!.length;
    diagnostics.report(
      'SVC2100',
      times > 1
        ? `{{${name}}} is named once, and {{${near}}} ${times} times`
        : `{{${name}}} and {{${near}}} are each named once, a slip apart`,
      {
        span: sources.aclEntries.get(entries[0]!),
        // Each named once: which is the slip cannot be told, so neither is offered as the fix.
        hint:
          times > 1
            ? `did you mean {{${near}}}? Each name is a function of its own (src/custom/principals/), and a stub lets no one in`
            : `if they are one principal, write one of the two names on both lines: each name is a function of its own (src/custom/principals/), and a stub lets no one in`,
      },
    );
  }
}

/**
 * Whether two names of as many words (`_`-separated) differ in one word only, and there by a slip
 * (`{{ridr}}`, `{{rider}}`): `{{household_guest}}` beside `{{household_owner}}` shares most of its
 * letters, yet names another role. Names of other word counts are left to the edit distance.
 */
function oneWordApart(a: string, b: string): boolean {
  const [left, right] = [a.split('_'), b.split('_')];
  if (left.length !== right.length) return true;
  const differing = left.flatMap((word, i) => (word === right[i] ? [] : [[word, right[i]!] as const]));
  return differing.length === 1 && closest(differing[0]![0], [differing[0]![1]]) !== undefined;
}
