/**
 * The components the paths use, and nothing else: every component a document lists but no
 * operation reaches (`Token` without API tokens, `UserUpdate` where users cannot be changed, a
 * `*Collection` no route lists) would be a dead type in every client generated from it, and
 * linters flag it (redocly's no-unused-components, spectral's oas3-unused-component).
 * lib/http/openapi.ts prunes the same way the document it serves with auth off.
 */
import type { Json } from './context.js';

const PRUNED = ['schemas', 'parameters', 'responses', 'headers', 'requestBodies', 'examples'] as const;

export function withoutUnusedComponents(document: Json): Json {
  const components = document['components'] as Record<string, Json | undefined>;
  const used = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === 'object') {
      for (const [key, v] of Object.entries(value)) {
        if (key === '$ref' && typeof v === 'string') follow(v);
        else visit(v);
      }
    }
  };
  const follow = (ref: string): void => {
    if (used.has(ref)) return;
    used.add(ref);
    const [, , kind, name] = ref.split('/');
    if (kind && name) visit(components[kind]?.[decodePointer(name)]);
  };
  visit(document['paths']);
  const kept: Json = { ...components };
  for (const kind of PRUNED) {
    const all = components[kind];
    if (!all) continue;
    const reached = Object.entries(all).filter(([name]) => used.has(`#/components/${kind}/${encodePointer(name)}`));
    if (reached.length) kept[kind] = Object.fromEntries(reached);
    else delete kept[kind];
  }
  return { ...document, components: kept };
}

function decodePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

function encodePointer(name: string): string {
  return name.replace(/~/g, '~0').replace(/\//g, '~1');
}
