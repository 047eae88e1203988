/**
 * What no request may hold, whatever its route: text (or a key) with U+0000, which PostgreSQL
 * text and jsonb cannot store, or with half of a surrogate pair (`"\ud800"` in JSON), which is
 * no character and which UTF-8 cannot hold (it would be stored as U+FFFD, not as sent); and JSON
 * nested deeper than any API needs, which would exhaust the stack of whatever walks it next.
 * Checked before validation, without recursion, so that the answer is a 400 naming where, on
 * every engine, and never a 500.
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
      if (!isStorable(value)) return unstorable(node, value);
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_DEPTH) return tooDeep(node);
    for (const [key, child] of Object.entries(value)) {
      const entry = { value: child, key, parent: node, depth: depth + 1 };
      if (!isStorable(key)) return unstorable(entry, key);
      stack.push(entry);
    }
  }
  return null;
}

/** No NUL character or lone surrogate in any text or key, and no deeper than MAX_DEPTH (so the recursion is bounded too). */
function isClean(value: unknown, depth: number): boolean {
  if (typeof value === 'string') return isStorable(value);
  if (value === null || typeof value !== 'object') return true;
  if (depth >= MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    for (const item of value as unknown[]) if (!isClean(item, depth + 1)) return false;
    return true;
  }
  for (const key of Object.keys(value)) {
    if (!isStorable(key) || !isClean((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

/** `body.links.home`: where a node is, from the part of the request it is in. */
function pathOf(node: Node): string[] {
  const keys: string[] = [];
  for (let n: Node | null = node; n && n.parent; n = n.parent) keys.unshift(n.key);
  return keys;
}

/** Characters a message would show as nothing: control characters and lone surrogates. */
// oxlint-disable-next-line no-control-regex -- control characters are what it looks for
const UNSEEN = /[\0-\x1f\p{Cs}]/gu;

/** A lone surrogate is a code point of category Cs once the `u` flag pairs the halves that match. */
const LONE_SURROGATE = /\p{Cs}/u;

/** Text a database can keep: no NUL character (PostgreSQL refuses it) and no lone surrogate. */
export function isStorable(text: string): boolean {
  return !text.includes('\0') && !LONE_SURROGATE.test(text);
}

function unstorable(node: Node, text: string): HttpError {
  const [part, ...field] = pathOf(node);
  const where = field.join('.');
  // A key may hold the character itself: the message shows it escaped (`query.\u0000`), not unseen.
  const shown = where.replace(UNSEEN, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const what = text.includes('\0')
    ? ['the NUL character (\\u0000)', 'the NUL character']
    : ['half of a surrogate pair (\\ud800-\\udfff alone)', 'half of a surrogate pair'];
  return badRequest(`${part}.${shown} contains ${what[0]}, which no text may hold`, [
    { field: where, message: `contains ${what[1]}` },
  ]);
}

function tooDeep(node: Node): HttpError {
  const [part, first] = pathOf(node);
  return badRequest(`${part}.${first} is nested deeper than ${MAX_DEPTH} levels`, [
    { field: first ?? part ?? '(body)', message: `is nested deeper than ${MAX_DEPTH} levels` },
  ]);
}
