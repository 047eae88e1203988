/**
 * What service.ini says beside its settings' values, read before `ini` parses it: what the parser
 * would take silently.
 *
 * - A line that is no `name = value`: `system.password: Hunter2` (Python configparser's form, which
 *   Ramses read) became a setting named after the whole line, whose "not a setting" warning wrote
 *   the password to the log, and the system user was left unset. An error, naming the line by its
 *   number and its name alone: the rest of it may be a secret.
 * - A name set twice: the last held, and nothing said so (`auth = true`, later `auth = false`).
 */
export interface IniLines {
  /** What is wrong with a line (an error), or undefined. */
  readonly problem?: string;
  /** Names set more than once, each with its lines: the last one holds. */
  readonly repeated: readonly string[];
}

export function readIniLines(file: string, text: string): IniLines {
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
    const equals = line.indexOf('=');
    const name = (equals < 0 ? line : line.slice(0, equals)).trim();
    // A bare name (`auth`) is true to the parser; one followed by more text is a value written wrong.
    if (equals < 0 && /[\s:]/.test(name)) {
      const shown = name.split(/[\s:]/)[0]!;
      return {
        problem: `${file} line ${index + 1}: "${shown} …" is not "name = value" (write ${shown} = <its value>; the rest of the line is not shown, as it may be a secret)`,
        repeated: [],
      };
    }
    if (name.endsWith('[]')) continue; // a list, of one item per line
    const key = section ? `${section}.${name}` : name;
    lines.set(key, [...(lines.get(key) ?? []), index + 1]);
  }
  const repeated = [...lines]
    .filter(([, at]) => at.length > 1)
    .map(([key, at]) => `${file} sets ${key} on lines ${at.join(', ')}: the last one holds`);
  return { repeated };
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
