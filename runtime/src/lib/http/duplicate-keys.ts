/**
 * A body that names a key twice in one object (`{"nickname": "a", "nickname": "b"}`) is refused:
 * JSON.parse keeps the last, where a proxy or a firewall in front of the service may have read
 * the first. What a client means by it cannot be told, so it is a 400 like any other malformed body.
 */

/** The first key that an object of `text` (JSON that parsed to `value`) has twice; undefined when none does. */
export function duplicateKey(text: string, value: unknown): string | undefined {
  // Each key is followed by a colon: where there are no more colons than keys parsed, none was
  // written twice (colons inside strings only add to the count, then the text is read).
  if (colonsIn(text) <= keysIn(value)) return undefined;
  return firstDuplicate(text);
}

function colonsIn(text: string): number {
  let count = 0;
  for (let at = text.indexOf(':'); at !== -1; at = text.indexOf(':', at + 1)) count++;
  return count;
}

/** The keys of every object in `value`, however deep (one at a time: a long list overflows no stack). */
function keysIn(value: unknown): number {
  let count = 0;
  const pending = [value];
  while (pending.length) {
    const next = pending.pop();
    if (next === null || typeof next !== 'object') continue;
    if (!Array.isArray(next)) count += Object.keys(next).length;
    for (const item of Object.values(next)) pending.push(item);
  }
  return count;
}

/** Reads valid JSON: for each object, the keys it has seen; a key seen again is the answer. */
function firstDuplicate(text: string): string | undefined {
  // One entry per open object or array: an object's keys so far, or null for an array.
  const open: (Set<string> | null)[] = [];
  let expectingKey = false;
  for (let at = 0; at < text.length; at++) {
    const c = text[at];
    if (c === '"') {
      const end = stringEnd(text, at);
      const top = open[open.length - 1];
      if (expectingKey && top) {
        const raw = text.slice(at, end + 1);
        const key = raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
        if (top.has(key)) return key;
        top.add(key);
        expectingKey = false;
      }
      at = end;
    } else if (c === '{') {
      open.push(new Set());
      expectingKey = true;
    } else if (c === '[') {
      open.push(null);
    } else if (c === '}' || c === ']') {
      open.pop();
    } else if (c === ',') {
      expectingKey = open[open.length - 1] !== null;
    }
  }
  return undefined;
}

/** Where the string that opens at `start` (a `"`) closes. */
function stringEnd(text: string, start: number): number {
  for (let at = start + 1; at < text.length; at++) {
    const c = text[at];
    if (c === '\\') at++;
    else if (c === '"') return at;
  }
  return text.length - 1;
}
