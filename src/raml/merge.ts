/**
 * How a resource type or trait combines with the resource or method it is applied to. RAML 0.8
 * leaves this unspecified (raml-spec#68); svcgen follows raml-1-parser, which the TCK encodes:
 *
 * - the target wins: a value already present on the resource/method is kept;
 * - mappings merge key by key, recursively; a null target (`get:`) counts as an empty mapping;
 * - sequences are united, target items first, without duplicates (`enum`, `is`, `securedBy`);
 * - an optional key `name?` of the template applies only if the target has `name` once all
 *   templates are merged: until then it is kept as `name?` (so a later template that brings
 *   `name` picks it up), and `dropOptionalKeys` removes what is left.
 */
import { isMap, isNull, type YEntry, type YMap, type YNode, type YSeq } from '../load/ynode.js';
import { toPlain } from '../load/ynode.js';

export function isOptionalKey(key: string): boolean {
  return key.length > 1 && key.endsWith('?');
}

export function requiredKey(key: string): string {
  return isOptionalKey(key) ? key.slice(0, -1) : key;
}

/** Merge `template` into `target`; values of `target` win. */
export function mergeInto(target: YNode | undefined, template: YNode): YNode {
  if (target === undefined || isNull(target)) return isNull(template) && target ? target : template;
  if (isNull(template)) return target;
  if (target.kind === 'map' && template.kind === 'map') return mergeMaps(target, template);
  if (target.kind === 'seq' && template.kind === 'seq') return uniteSequences(target, template);
  return target;
}

function mergeMaps(target: YMap, template: YMap): YMap {
  const entries: YEntry[] = [...target.entries];
  const indexOf = (key: string) => entries.findIndex((e) => e.key.text === key);
  for (const { key, value } of template.entries) {
    const name = key.text;
    if (isOptionalKey(name)) {
      const real = indexOf(requiredKey(name));
      const pending = real === -1 ? indexOf(name) : -1;
      if (real !== -1) entries[real] = withValue(entries[real]!, mergeInto(entries[real]!.value, value));
      else if (pending !== -1)
        entries[pending] = withValue(entries[pending]!, mergeInto(entries[pending]!.value, value));
      else entries.push({ key, value });
      continue;
    }
    const existing = indexOf(name);
    if (existing !== -1) {
      entries[existing] = withValue(entries[existing]!, mergeInto(entries[existing]!.value, value));
      continue;
    }
    // A `name?` merged earlier came from a template that ranks above this one, so it wins.
    const pending = indexOf(`${name}?`);
    if (pending !== -1) {
      const merged = mergeInto(asMapOrNull(entries[pending]!.value), value);
      entries[pending] = { key, value: merged };
      continue;
    }
    entries.push({ key, value });
  }
  return { kind: 'map', entries, span: target.span };
}

function asMapOrNull(node: YNode): YNode | undefined {
  return isNull(node) ? undefined : node;
}

function withValue(entry: YEntry, value: YNode): YEntry {
  return value === entry.value ? entry : { key: entry.key, value };
}

function uniteSequences(target: YSeq, template: YSeq): YNode {
  const seen = new Set(target.items.map(canonical));
  const items = [...target.items];
  for (const item of template.items) {
    const key = canonical(item);
    if (seen.has(key)) continue;
    seen.add(key);
    items.push(item);
  }
  return { kind: 'seq', items, span: target.span };
}

function canonical(node: YNode): string {
  return JSON.stringify(toPlain(node));
}

/** Removes the optional keys no template turned into real ones, at every level of a mapping. */
export function dropOptionalKeys(node: YNode): YNode {
  if (!isMap(node)) return node;
  let changed = false;
  const entries: YEntry[] = [];
  for (const e of node.entries) {
    if (isOptionalKey(e.key.text)) {
      changed = true;
      continue;
    }
    const value = dropOptionalKeys(e.value);
    if (value !== e.value) changed = true;
    entries.push(value === e.value ? e : { key: e.key, value });
  }
  return changed ? { kind: 'map', entries, span: node.span } : node;
}
