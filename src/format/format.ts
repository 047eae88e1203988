/**
 * Rendered files are printed in prettier's layout with the generated project's own settings (the
 * `.prettierrc.json` it ships), so a user who runs prettier on the project changes nothing.
 *
 * oxfmt prints them: a formatter in Rust that prints what prettier prints, at about a tenth of its
 * cost (bench/RESULTS.md, "Cold generation"), which is what brings a cold generation under two
 * seconds. test/format/formatter.test.ts holds it to that: every file of every fixture's project,
 * as oxfmt prints it, is what prettier prints. Where oxfmt cannot run (a platform its native
 * binding does not cover) or refuses a file, prettier formats it: the same output, slower.
 * `SVCGEN_FORMATTER=prettier` chooses prettier outright (the test compares the two that way).
 *
 * Both are loaded on first use: `validate` and `inspect` never pay for them.
 */
import type * as Prettier from 'prettier';
import type { Options } from 'prettier';

export const PRETTIER_OPTIONS = { printWidth: 120, singleQuote: true, trailingComma: 'all' } as const satisfies Options;

type FormatFile = (path: string, text: string) => Promise<string | undefined>;

let prettier: Promise<typeof Prettier> | undefined;
let oxfmt: Promise<FormatFile | undefined> | undefined;

export async function formatSource(path: string, text: string): Promise<string> {
  const options = prettierOptions(path);
  if (!options) return text;
  const fast = await loadFormatter();
  return (await fast?.(path, text)) ?? (await loadPrettier()).format(text, options);
}

/** Starts loading the formatter (once): called early, the loading overlaps the work before formatting. */
export function loadFormatter(): Promise<FormatFile | undefined> {
  oxfmt ??= process.env['SVCGEN_FORMATTER'] === 'prettier' ? Promise.resolve(undefined) : loadOxfmt();
  return oxfmt;
}

async function loadOxfmt(): Promise<FormatFile | undefined> {
  try {
    const { format } = await import('oxfmt');
    // A file oxfmt reports errors for goes to prettier, whose error (if any) is the one users know.
    return async (path, text) => {
      const result = await format(path, text, { ...PRETTIER_OPTIONS });
      return result.errors.length === 0 ? result.code : undefined;
    };
  } catch {
    return undefined;
  }
}

export function loadPrettier(): Promise<typeof Prettier> {
  prettier ??= import('prettier');
  return prettier;
}

/**
 * The options for a file, or undefined when it is left as rendered. TypeScript is parsed with
 * babel-ts: half again as fast as prettier's `typescript` parser, and the same output for the
 * code svcgen generates (the golden trees are formatted with it).
 */
export function prettierOptions(path: string): Options | undefined {
  const parser = parserOf(path);
  return parser ? { ...PRETTIER_OPTIONS, parser, filepath: path } : undefined;
}

function parserOf(path: string): string | undefined {
  if (path.endsWith('.ts')) return 'babel-ts';
  if (path.endsWith('.json')) return 'json';
  if (path.endsWith('.md')) return 'markdown';
  return undefined;
}
