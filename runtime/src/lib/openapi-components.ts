/**
 * The components an OpenAPI document's paths and webhooks use, and nothing else: a component no operation
 * reaches (`Token` without API tokens, `UserUpdate` where users cannot be changed) would be a dead
 * type in every client generated from it, and linters flag it (redocly's no-unused-components,
 * spectral's oas3-unused-component). svcgen prunes the document it generates with this, and
 * lib/http/openapi.ts the one it serves with auth off. It imports nothing: svcgen reads it too.
 */
type Json = Record<string, unknown>;

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
  visit(document['webhooks']);
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
