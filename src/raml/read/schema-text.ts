/**
 * A light check of schema text at the RAML level: a bare word that names no declared schema is
 * probably a typo. (JSON syntax is checked once the model is read: see `checkBodySchemas` in
 * schema-document.ts.)
 */
import type { DiagnosticBag } from '../../diagnostics/diagnostic.js';
import type { YScalar } from '../../load/ynode.js';
import { didYouMean } from '../../util/suggest.js';

export function checkSchemaText(
  diagnostics: DiagnosticBag,
  node: YScalar,
  text: string,
  declaredNames: Iterable<string>,
): void {
  const trimmed = text.trim();
  if (/^[\w.-]+$/.test(trimmed) && node.style !== 'include') {
    // `schema: "item "`: a declared name with blanks around it, which name no schema (a probe was told to declare `item`).
    const padded = trimmed !== text && [...declaredNames].includes(trimmed);
    diagnostics.report(
      'SVC1118',
      padded
        ? `${JSON.stringify(text)} is neither a declared schema nor JSON or XML schema text: the schema "${trimmed}" is named without the blanks around it`
        : `"${trimmed}" is neither a declared schema nor JSON or XML schema text`,
      {
        span: node.span,
        hint: padded
          ? `write schema: ${trimmed}`
          : (didYouMean(trimmed, declaredNames) ??
            'declare it under `schemas:` at the root, or write the schema itself'),
      },
    );
  }
}
