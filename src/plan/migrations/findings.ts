/**
 * What a schema change does to stored data, as diagnostics located at the model or field that
 * causes it: data loss is an error unless `--allow-data-loss` (then a warning, and the migration
 * says what it drops); the rest cannot be written as a migration at all.
 */
import type { DiagnosticBag } from '../../diagnostics/diagnostic.js';
import type { DiagnosticCode } from '../../diagnostics/codes.js';
import type { IrSources } from '../../ir/sources.js';
import type { Finding } from './storage/diff.js';

const CODES: Readonly<Record<Finding['kind'], DiagnosticCode>> = {
  dataLoss: 'SVC3101',
  needsFill: 'SVC3102',
  checkedFill: 'SVC3108',
  checkedUnique: 'SVC3117',
  computedFill: 'SVC3116',
  rename: 'SVC3103',
  unsupported: 'SVC3104',
};

export function reportMigrationFindings(
  findings: readonly Finding[],
  sources: IrSources | undefined,
  allowDataLoss: boolean,
  bag: DiagnosticBag,
): void {
  for (const finding of findings) {
    // A field still in the schema: its property. One that is gone: the schema's `properties`, in
    // the schema file where it was (not the `!include` that names the file). A model that is gone:
    // the RAML's title, the one place left to point at. One about the out-dir (no model): none.
    const span =
      (finding.field
        ? (sources?.fields.get(`${finding.model}.${finding.field}`) ?? sources?.properties.get(finding.model))
        : undefined) ??
      sources?.models.get(finding.model) ??
      (finding.model ? sources?.document : undefined);
    const allowed = finding.kind === 'dataLoss' && allowDataLoss;
    bag.report(CODES[finding.kind], allowed ? `${finding.message} (allowed by --allow-data-loss)` : finding.message, {
      span,
      ...(allowed ? { severity: 'warning' as const } : finding.hint ? { hint: finding.hint } : {}),
      ...(finding.warning ? { severity: 'warning' as const } : {}),
    });
  }
}
