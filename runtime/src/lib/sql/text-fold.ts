/**
 * Case-insensitive `__contains`/`__startswith` on SQLite beyond ASCII, as MongoDB ignores case:
 * by Unicode's case folding, a letter at a time (PCRE2's caseless UTF matching, and JavaScript's
 * regular expressions with `iu`). SQLite's `LIKE` folds the 26 ASCII letters only, so
 * `name__contains=é` missed "Éclair"; then both sides were lower-cased by JavaScript, which is not
 * folding: "ΣΟΦΙΑΣ" became "σοφιας" (a final sigma) and "σοφίασ" found it on MongoDB only, and
 * "İ" became "i̇" (two characters), found on SQLite only. Now a pattern of ASCII characters keeps
 * `LIKE` for the rows that are ASCII alone (where it folds as MongoDB does, and costs no call per
 * row), and any other row or pattern is matched by a regular expression with `iu`.
 */

/** The SQL function: whether a text holds (or, anchored, starts with) a needle, case folded. */
export const SQLITE_HOLDS = 'svc_holds';

/** A value SQLite hands a function (a number or blob is left as it is: LIKE reads it as text). */
type SqliteValue = string | number | bigint | Buffer | null;

/** What this module uses of a better-sqlite3 `Database`. */
export interface SqliteFunctions {
  function(
    name: string,
    options: { deterministic: boolean },
    fn: (value: SqliteValue, needle: SqliteValue, anchored: SqliteValue) => SqliteValue,
  ): unknown;
}

/** Registers SQLITE_HOLDS on `db` (each connection has its own functions). */
export function addTextFold(db: SqliteFunctions): void {
  // One needle per query, asked of every row: its expression is made once.
  let last: { key: string; pattern: RegExp } | undefined;
  db.function(SQLITE_HOLDS, { deterministic: true }, (value, needle, anchored) => {
    // A number is read as its text, as LIKE reads it; a blob holds no text.
    const text = typeof value === 'number' || typeof value === 'bigint' ? String(value) : value;
    if (typeof text !== 'string' || typeof needle !== 'string') return null;
    const key = `${anchored ? '^' : ''}${needle}`;
    if (last?.key !== key) last = { key, pattern: new RegExp(`${anchored ? '^' : ''}${escapeRegExp(needle)}`, 'iu') };
    return last.pattern.test(text) ? 1 : 0;
  });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** True where SQLite's `LIKE` folds every letter of `pattern` itself. */
export function likeFolds(pattern: string): boolean {
  for (let i = 0; i < pattern.length; i++) if (pattern.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** A GLOB that a text with any character outside printable ASCII matches. */
export const NOT_ASCII = '*[^ -~]*';
