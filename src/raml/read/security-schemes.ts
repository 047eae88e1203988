/** RAML 0.8 §Security: `securitySchemes` declarations. */
import { isNull, isScalar, type YEntry, type YMap, type YScalar } from '../../load/ynode.js';
import { didYouMean } from '../../util/suggest.js';
import { declarationEntries } from '../expand.js';
import type { SecurityScheme } from '../model.js';
import {
  checkDeclarationList,
  mapValue,
  readEntries,
  report,
  requiredStringValue,
  stringValue,
  type ReadContext,
} from './context.js';
import { readMethod } from './method.js';
import type { Building } from '../../util/mutable.js';

export const STANDARD_SCHEME_TYPES = [
  'OAuth 1.0',
  'OAuth 2.0',
  'Basic Authentication',
  'Digest Authentication',
] as const;

/** Settings each standard scheme type requires (RAML 0.8 §Settings). */
const REQUIRED_SETTINGS: Readonly<Record<string, readonly string[]>> = {
  'OAuth 1.0': ['requestTokenUri', 'authorizationUri', 'tokenCredentialsUri'],
  'OAuth 2.0': ['accessTokenUri', 'authorizationUri'],
};

export function readSecuritySchemes(ctx: ReadContext, e: YEntry): SecurityScheme[] {
  checkDeclarationList(ctx, e);
  const schemes: SecurityScheme[] = [];
  const seen = new Map<string, YScalar>();
  for (const d of declarationEntries(e.value)) {
    const first = seen.get(d.key.text);
    if (first) {
      report(ctx, 'SVC1210', `security scheme "${d.key.text}" is declared twice`, {
        span: d.key.span,
        hint: 'rename one of them: `securedBy` names a scheme by its name',
        related: { span: first.span, message: 'first declared here' },
      });
      continue;
    }
    seen.set(d.key.text, d.key);
    const map = mapValue(ctx, d, 'a security scheme (type, description, describedBy, settings)');
    if (map) schemes.push(readScheme(ctx, d, map));
  }
  return schemes;
}

function readScheme(ctx: ReadContext, d: YEntry, map: YMap): SecurityScheme {
  const scheme: Building<SecurityScheme> = { name: d.key.text, nameNode: d.key, node: map };
  let settingsEntry: YEntry | undefined;
  let typeEntry: YEntry | undefined;
  readEntries(ctx, map, `security scheme "${d.key.text}"`, {
    type: (x) => {
      typeEntry = x;
      scheme.type = requiredStringValue(
        ctx,
        x,
        `use one of ${STANDARD_SCHEME_TYPES.join(', ')}, or a custom type starting with "x-"`,
      );
    },
    description: (x) => (scheme.description = stringValue(ctx, x)),
    describedBy: (x) => {
      const method = mapValue(ctx, x, 'a partial method (headers, queryParameters, responses, …)');
      if (method)
        scheme.describedBy = readMethod(ctx, 'describedBy', method, {
          where: 'describedBy (methods cannot be declared here)',
        });
    },
    settings: (x) => {
      settingsEntry = x;
      const settings = mapValue(ctx, x, 'a mapping of settings');
      if (settings) scheme.settings = settings;
    },
  });
  checkType(ctx, d, scheme.type, typeEntry);
  if (settingsEntry) checkSettings(ctx, scheme.type, settingsEntry, scheme.settings);
  return scheme as SecurityScheme;
}

function checkType(ctx: ReadContext, d: YEntry, type: string | undefined, typeEntry: YEntry | undefined): void {
  if (type === undefined) {
    if (!typeEntry)
      report(ctx, 'SVC1104', `security scheme "${d.key.text}" has no type`, {
        span: d.key.span,
        hint: `add \`type: x-…\` or one of ${STANDARD_SCHEME_TYPES.join(', ')}`,
      });
    return;
  }
  if ((STANDARD_SCHEME_TYPES as readonly string[]).includes(type) || type.startsWith('x-')) return;
  report(ctx, 'SVC1302', `unknown security scheme type "${type}"`, {
    span: typeEntry?.value.span,
    hint:
      didYouMean(type, [...STANDARD_SCHEME_TYPES, 'x-Ticket', 'x-ApiKey', 'x-ACL']) ??
      `use ${STANDARD_SCHEME_TYPES.join(', ')} or a custom type starting with "x-"`,
  });
}

function checkSettings(ctx: ReadContext, type: string | undefined, at: YEntry, settings: YMap | undefined): void {
  const required = type ? REQUIRED_SETTINGS[type] : undefined;
  // Without any `settings` raml-1-parser accepts the scheme, so only a present block is checked.
  if (!required || (settings === undefined && !isNull(at.value))) return;
  for (const name of required) {
    const value = settings?.entries.find((s) => s.key.text === name)?.value;
    if (value && !(isScalar(value) && value.value === null)) continue;
    report(ctx, 'SVC1303', `${type} requires the setting "${name}"`, { span: at.key.span });
  }
}
