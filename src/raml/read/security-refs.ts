/** `protocols` (RAML 0.8 §Protocols) and `securedBy` (§Usage: Applying a Security Scheme). */
import type { Span } from '../../diagnostics/source.js';
import { isMap, isNull, isScalar, isSeq, toPlain, type YEntry } from '../../load/ynode.js';
import { didYouMean } from '../../util/suggest.js';
import type { SecurityReference } from '../model.js';
import { describe, entrySpan, hasParameters, report, type ReadContext } from './context.js';

const PROTOCOLS = ['HTTP', 'HTTPS'];

export function readProtocols(ctx: ReadContext, e: YEntry): readonly string[] | undefined {
  if (!isSeq(e.value) || e.value.items.length === 0) {
    report(ctx, 'SVC1116', '"protocols" must be a non-empty list of HTTP and/or HTTPS', {
      span: entrySpan(e),
      hint: 'write `protocols: [HTTP, HTTPS]`',
    });
    return undefined;
  }
  const out: string[] = [];
  for (const item of e.value.items) {
    const text = isScalar(item) ? item.text : '';
    if (PROTOCOLS.includes(text)) out.push(text);
    else
      report(ctx, 'SVC1105', `"${text || describe(item)}" is not a protocol; use HTTP or HTTPS`, {
        span: item.span,
        hint: PROTOCOLS.includes(text.toUpperCase())
          ? `protocol names are upper case: ${text.toUpperCase()}`
          : undefined,
      });
  }
  return out;
}

export function readSecuredBy(ctx: ReadContext, e: YEntry): readonly SecurityReference[] | undefined {
  if (!isSeq(e.value)) {
    report(ctx, 'SVC1304', `"securedBy" must be a list, not ${describe(e.value)}`, {
      span: entrySpan(e),
      hint: isScalar(e.value) && e.value.value !== null ? `write \`securedBy: [${e.value.text}]\`` : undefined,
    });
    return undefined;
  }
  const refs: SecurityReference[] = [];
  for (const item of e.value.items) {
    if (isNull(item)) {
      refs.push(null);
      continue;
    }
    if (isScalar(item)) {
      checkKnown(ctx, item.text, item.span);
      refs.push({ name: item.text, node: item });
      continue;
    }
    if (isMap(item) && item.entries.length === 1) {
      const only = item.entries[0]!;
      checkKnown(ctx, only.key.text, only.key.span);
      refs.push(
        isNull(only.value)
          ? { name: only.key.text, node: item }
          : { name: only.key.text, parameters: toPlain(only.value), node: item },
      );
      continue;
    }
    report(ctx, 'SVC1304', 'each "securedBy" entry is a scheme name, null, or {name: {parameters}}', {
      span: item.span,
    });
  }
  return refs;
}

function checkKnown(ctx: ReadContext, name: string, span: Span): void {
  if (ctx.securitySchemes.has(name) || (ctx.template && hasParameters(name))) return;
  report(ctx, 'SVC1301', `unknown security scheme "${name}"`, {
    span,
    hint:
      didYouMean(name, ctx.securitySchemes) ??
      (ctx.securitySchemes.size
        ? `declared: ${[...ctx.securitySchemes].join(', ')}`
        : 'declare it under `securitySchemes:`'),
  });
}
