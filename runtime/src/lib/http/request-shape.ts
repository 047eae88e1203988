/**
 * What no request may hold, whatever its route: text (or a key) with U+0000, which PostgreSQL
 * text and jsonb cannot store, and JSON nested deeper than any API needs, which would exhaust the
 * stack of whatever walks it next. Checked before validation, without recursion, so that the
 * answer is a 400 naming where, on every engine, and never a 500.
 */
import { badRequest, type HttpError } from '../errors.js';

/** Levels of objects and lists in one value. */
export const MAX_DEPTH = 64;

interface Node {
  readonly value: unknown;
  readonly key: string;
  readonly parent: Node | null;
  readonly depth: number;
}

/** The 400 for the first problem found in the parts of a request given (its body, query or path parameters), or null. */
export function requestShapeProblem(parts: { body?: unknown; query?: unknown; path?: unknown }): HttpError | null {
  // Nearly every request is clean: said by a walk that allocates nothing; only a problem is looked
  // for again, with the bookkeeping that names where it is.
  if (isClean(parts.body, 0) && isClean(parts.query, 0) && isClean(parts.path, 0)) return null;
  const stack: Node[] = [{ value: parts, key: '', parent: null, depth: -1 }];
  for (let node = stack.pop(); node; node = stack.pop()) {
    const { value, depth } = node;
    if (typeof value === 'string') {
      if (value.includes('\0')) return nulCharacter(node);
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_DEPTH) return tooDeep(node);
    for (const [key, child] of Object.entries(value)) {
      const entry = { value: child, key, parent: node, depth: depth + 1 };
      if (key.includes('\0')) return nulCharacter(entry);
      stack.push(entry);
    }
  }
  return null;
}

/** No NUL character in any text or key, and no deeper than MAX_DEPTH (so the recursion is bounded too). */
function isClean(value: unknown, depth: number): boolean {
  if (typeof value === 'string') return !value.includes('\0');
  if (value === null || typeof value !== 'object') return true;
  if (depth >= MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    for (const item of value as unknown[]) if (!isClean(item, depth + 1)) return false;
    return true;
  }
  for (const key of Object.keys(value)) {
    if (key.includes('\0') || !isClean((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

/** `body.links.home`: where a node is, from the part of the request it is in. */
function pathOf(node: Node): string[] {
  const keys: string[] = [];
  for (let n: Node | null = node; n && n.parent; n = n.parent) keys.unshift(n.key);
  return keys;
}

function nulCharacter(node: Node): HttpError {
  const [part, ...field] = pathOf(node);
  const where = field.join('.');
  return badRequest(`${part}.${where} contains the NUL character (\\u0000), which no text may hold`, [
    { field: where, message: 'contains the NUL character' },
  ]);
}

function tooDeep(node: Node): HttpError {
  const [part, first] = pathOf(node);
  return badRequest(`${part}.${first} is nested deeper than ${MAX_DEPTH} levels`, [
    { field: first ?? part ?? '(body)', message: `is nested deeper than ${MAX_DEPTH} levels` },
  ]);
}
