/**
 * Rendered TypeScript goes through prettier with the generated project's own settings (the
 * `.prettierrc.json` it ships), so a user who runs prettier on the project changes nothing.
 * Prettier is loaded on first use: `validate` and `inspect` never pay for it.
 */
import type { Options } from 'prettier';

export const PRETTIER_OPTIONS = { printWidth: 120, singleQuote: true, trailingComma: 'all' } as const satisfies Options;

let prettier: Promise<typeof import('prettier')> | undefined;

export async function formatSource(path: string, text: string): Promise<string> {
  const parser = parserOf(path);
  if (!parser) return text;
  prettier ??= import('prettier');
  return (await prettier).format(text, { ...PRETTIER_OPTIONS, parser, filepath: path });
}

function parserOf(path: string): string | undefined {
  if (path.endsWith('.ts')) return 'typescript';
  if (path.endsWith('.json')) return 'json';
  if (path.endsWith('.md')) return 'markdown';
  return undefined;
}
