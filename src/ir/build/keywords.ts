/**
 * JSON Schema keywords written nearly right (`readonly`, `maxlenght`, `requried`). JSON Schema
 * takes any unknown key as an annotation, so a misspelt keyword is silently no rule at all: a
 * `readonly` link stays writable, a `requried` list requires nothing. A key that is near a keyword
 * svcgen reads is said (SVC2087), with the keyword; one near none is left alone (an annotation).
 */
import type { DiagnosticBag } from '../../diagnostics/diagnostic.js';
import type { YMap } from '../../load/ynode.js';
import { closest } from '../../util/suggest.js';
import { VALIDATION_KEYWORDS } from './validation.js';

/** What a property may say besides `_db_settings`: its validation keywords (validation.ts) and these. */
export const PROPERTY_KEYWORDS = [
  ...VALIDATION_KEYWORDS,
  'type',
  'description',
  'title',
  'readOnly',
  'writeOnly',
  'default',
  'examples',
  'deprecated',
  'definitions',
  'anyOf',
  'oneOf',
  'allOf',
  'not',
];

/**
 * Keywords that are rules of the property (who may write it, what a value must be): written inside
 * `_db_settings` they are no rule at all (SVC2090), where a misplaced `description` only documents.
 */
export const RULE_KEYWORDS: ReadonlySet<string> = new Set(
  PROPERTY_KEYWORDS.filter((k) => !['description', 'title', 'examples', 'deprecated', 'definitions'].includes(k)),
);

/** What a model schema's root may say besides svcgen's own `_` keys. */
const ROOT_KEYWORDS = ['title', 'description', 'type', 'required', 'properties', 'definitions', 'additionalProperties'];

/**
 * svcgen's own keys of a property, beside `_db_settings` (whose misspellings SVC2082 says, as a
 * field meant): a `_write_onse` would leave the field writable by every member who may update it.
 */
export const OWN_PROPERTY_KEYS: readonly string[] = ['_processors', '_backref_processors', '_write_once'];

/** Reports the keys of `node` (a property's, or the root's) that are nearly a keyword. */
export function checkKeywordSpelling(diagnostics: DiagnosticBag, node: YMap, where: 'property' | 'root'): void {
  const keywords = where === 'property' ? PROPERTY_KEYWORDS : ROOT_KEYWORDS;
  for (const { key } of node.entries) {
    const text = key.text;
    if (where === 'property' && text.startsWith('_')) {
      checkOwnKeySpelling(diagnostics, key);
      continue;
    }
    if (text.startsWith('_') || text.startsWith('$') || text.startsWith('x-') || keywords.includes(text)) continue;
    // `writeOnce`, `write_once`: svcgen's own key without its `_` (JSON Schema's nearest is `writeOnly`).
    const meant = (where === 'property' ? ownKeyUnmarked(text) : undefined) ?? closest(text, keywords);
    if (meant === undefined) continue;
    diagnostics.report('SVC2087', `"${text}" is no JSON Schema keyword, so it says nothing here`, {
      span: key.span,
      hint: `did you mean \`${meant}\`?`,
    });
  }
}

/** The own key `text` is, written without its `_` or in another case (`write-once`, `Processors`). */
export function ownKeyUnmarked(text: string): string | undefined {
  const squashed = squash(text);
  return OWN_PROPERTY_KEYS.find((key) => squash(key) === squashed);
}

function squash(key: string): string {
  return key.toLowerCase().replace(/[_-]/g, '');
}

function checkOwnKeySpelling(diagnostics: DiagnosticBag, key: YMap['entries'][number]['key']): void {
  const text = key.text;
  if (text === '_db_settings' || OWN_PROPERTY_KEYS.includes(text) || closest(text, ['_db_settings'])) return;
  const meant = closest(text, OWN_PROPERTY_KEYS);
  if (meant === undefined) return;
  diagnostics.report('SVC2087', `"${text}" is no key svcgen reads, so it says nothing here`, {
    span: key.span,
    hint: `did you mean \`${meant}\`?`,
  });
}
