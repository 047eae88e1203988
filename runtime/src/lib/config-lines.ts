/**
 * What service.ini says beside its settings' values, read before `ini` parses it: what the parser
 * would take silently.
 *
 * - A line that is no `name = value`: `system.password: Hunter2` (Python configparser's form, which
 *   Ramses read) became a setting named after the whole line, whose "not a setting" warning wrote
 *   the password to the log, and the system user was left unset; so did a value continued on an
 *   indented line below it (configparser's too), and a bare word. An error, naming the line by its
 *   number, and by its name only when that is a setting's: the rest of it may be a secret.
 * - A `;` or `#` in a value, which the parser takes for the start of a comment and cuts the value
 *   at: `system.password = CorrectHorse;Battery9` made the password `CorrectHorse`, unsaid. An
 *   error, unless the value is quoted or the character escaped (`\;`).
 * - A name set twice: the last held, and nothing said so (`auth = true`, later `auth = false`).
 */
export interface IniLines {
  /** What is wrong with a line (an error), or undefined. */
  readonly problem?: string;
  /** Names set more than once, each with its lines: the last one holds. */
  readonly repeated: readonly string[];
}

/** `known`: whether a name is a setting's, which a message may show. */
export function readIniLines(file: string, text: string, known: (name: string) => boolean): IniLines {
  let section = '';
  const lines = new Map<string, number[]>();
  const rows = text.split(/\r?\n/);
  for (const [index, row] of rows.entries()) {
    const line = row.trim();
    if (line === '' || line.startsWith(';') || line.startsWith('#')) continue;
    const heading = /^\[(.*)\]$/.exec(line);
    if (heading) {
      section = heading[1]!.trim();
      continue;
    }
    const at = `${file} line ${index + 1}`;
    const equals = line.indexOf('=');
    if (equals < 0) return { problem: notNameValue(at, line, known), repeated: [] };
    const name = line.slice(0, equals).trim();
    const key = section ? `${section}.${name}` : name;
    if (cutByComment(line.slice(equals + 1).trim()))
      return {
        problem: `${at}: the value of ${key} holds ; or #, where service.ini starts a comment and would cut the value short (quote the value, "…", or escape the character, \\;)`,
        repeated: [],
      };
    if (name.endsWith('[]')) continue; // a list, of one item per line
    lines.set(key, [...(lines.get(key) ?? []), index + 1]);
  }
  const repeated = [...lines]
    .filter(([, at]) => at.length > 1)
    .map(([key, at]) => `${file} sets ${key} on lines ${at.join(', ')}: the last one holds`);
  return { repeated };
}

/** A line with no `=`: its name said only when it is a setting's (a line continued below one may be a secret). */
function notNameValue(at: string, line: string, known: (name: string) => boolean): string {
  const first = line.split(/[\s:]/)[0]!;
  const shown = known(first) ? `"${first} …" ` : '';
  return `${at}: ${shown}is not "name = value" (write each setting as name = value, on one line; the line is not shown, as it may hold a secret)`;
}

/** Whether the parser would cut `value` at a `;` or `#` (not in quotes, not escaped). */
function cutByComment(value: string): boolean {
  if (value.length > 1 && /^(".*"|'.*')$/.test(value)) return false;
  for (let i = 0; i < value.length; i++) {
    if (value[i] === '\\') i++;
    else if (value[i] === ';' || value[i] === '#') return true;
  }
  return false;
}

/**
 * Of `cors.allow_origins`, the entries that can match no browser's `Origin`, with the one they
 * meant: the header is a scheme, host and port alone, lower-case, without a default port (RFC 6454),
 * and it is compared whole. `https://app.example.com/` (a trailing slash) and `https://*.example.com`
 * matched nothing, and nothing said so.
 */
export function unmatchableOrigins(origins: readonly string[]): string[] {
  return origins.flatMap((origin) => {
    if (origin === '*' || origin.toLowerCase() === 'null') return [];
    if (origin.includes('*')) return [`"${origin}" (a pattern: the origins are compared whole, list each one)`];
    let parsed: URL;
    try {
      parsed = new URL(origin);
    } catch {
      return [`"${origin}" (no origin: write its scheme, host and port, as https://app.example.com)`];
    }
    if (parsed.origin === origin) return [];
    return [
      parsed.origin === 'null'
        ? `"${origin}" (no origin: write its scheme, host and port, as https://app.example.com)`
        : `"${origin}" (a browser sends ${parsed.origin})`,
    ];
  });
}
