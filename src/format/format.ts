/**
 * Rendered TypeScript goes through prettier with the generated project's own settings (the
 * `.prettierrc.json` it ships), so a user who runs prettier on the project changes nothing.
 * Prettier is loaded on first use: `validate` and `inspect` never pay for it. It runs in this
 * thread: sharing files out to worker threads cost each worker its own loading and warming of
 * prettier and, on the shared 2-core machines measured, made generation slower, not faster
 * (bench/RESULTS.md).
 */
import type * as Prettier from 'prettier';
import type { Options } from 'prettier';

export const PRETTIER_OPTIONS = { printWidth: 120, singleQuote: true, trailingComma: 'all' } as const satisfies Options;

let prettier: Promise<typeof Prettier> | undefined;

export async function formatSource(path: string, text: string): Promise<string> {
  const options = prettierOptions(path);
  if (!options) return text;
  return (await loadPrettier()).format(text, options);
}

/** Starts loading prettier (once): called early, the loading overlaps the work before formatting. */
export function loadPrettier(): Promise<typeof Prettier> {
  prettier ??= import('prettier');
  return prettier;
}

/**
 * The options for a file, or undefined when prettier leaves it alone. TypeScript is parsed with
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
