/**
 * Groups no user can be in. Where the user model's `groups` lists its `choices`, a group an x-ACL
 * line or `_group_fields` names beyond them is for no one: a slip (`g:recepionist`) leaves
 * receptionists without what the line meant, silently, where a misspelt keyword is an error.
 */
import type { DiagnosticBag } from '../diagnostics/diagnostic.js';
import type { Span } from '../diagnostics/source.js';
import type { IrSources } from '../ir/sources.js';
import type { ServiceIR } from '../ir/types.js';
import { groupsField } from '../ir/users.js';
import { closest } from '../util/suggest.js';

export function checkGroupNames(diagnostics: DiagnosticBag, ir: ServiceIR, sources: IrSources): void {
  const choices = groupsField(ir)?.choices;
  if (!ir.auth || !choices?.length) return;
  const known = new Set(['admin', ...choices.flatMap((c) => (typeof c === 'string' ? [c.toLowerCase()] : []))]);
  const report = (group: string, where: string, span: Span | undefined) => {
    const near = closest(group, known);
    diagnostics.report('SVC2098', `${where} names g:${group}, which no user can be in`, {
      span,
      hint: `${near === undefined ? '' : `did you mean g:${near}? `}the user model's groups are ${[...known].join(', ')}`,
    });
  };
  for (const acl of ir.acls)
    for (const entry of [...acl.collection, ...acl.item])
      if (entry.principal.kind === 'group' && !known.has(entry.principal.group))
        report(entry.principal.group, `x-ACL ${acl.name}'s line "${entry.text}"`, sources.aclEntries.get(entry));
  for (const model of ir.models)
    for (const { group } of model.groupFields)
      if (!known.has(group))
        report(
          group,
          `_group_fields of ${model.name}`,
          sources.groupFields.get(`${model.name}.${group}`) ?? sources.models.get(model.name),
        );
}
