import { readFileSync, statSync } from 'node:fs';
import type { DiagnosticBag } from '../diagnostics/diagnostic.js';
import type { SourceFile, Span } from '../diagnostics/source.js';
import { limits } from './budget.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads one input file as UTF-8 text, refusing what cannot be an API description (too large,
 * binary, not UTF-8). Problems are reported at `at` (the `!include`), or without a location for
 * the root file.
 */
export function readSource(path: string, diagnostics: DiagnosticBag, includedAt: Span | undefined, shownAs: string): SourceFile | undefined {
  // Problems with the root file point at the file itself (line 1), so they are located too.
  const at = includedAt ?? { source: { path, text: '' }, start: 0, end: 0 };
  let size: number;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) {
      diagnostics.report('SVC1015', `${shownAs} is not a regular file`, { span: at });
      return undefined;
    }
    size = stat.size;
  } catch (error) {
    diagnostics.report('SVC1001', `cannot read ${shownAs}: ${describeFsError(error)}`, { span: at });
    return undefined;
  }
  if (size > limits.maxFileBytes) {
    diagnostics.report('SVC1002', `${shownAs} is ${formatBytes(size)}; the limit is ${formatBytes(limits.maxFileBytes)}`, { span: at });
    return undefined;
  }
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    diagnostics.report('SVC1001', `cannot read ${shownAs}: ${describeFsError(error)}`, { span: at });
    return undefined;
  }
  const text = decodeText(bytes);
  if (text === undefined) {
    diagnostics.report('SVC1003', `${shownAs} is not UTF-8 text`, { span: at, hint: 'RAML and JSON inputs must be UTF-8 text files' });
    return undefined;
  }
  return { path, text };
}

/** UTF-8 text without a byte-order mark, or undefined for binary data. */
export function decodeText(bytes: Uint8Array): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    const text = utf8.decode(bytes);
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  } catch {
    return undefined;
  }
}

export function describeFsError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'it is a directory';
    case 'ELOOP':
      return 'too many symbolic links';
    default:
      return code ?? (error instanceof Error ? error.message : String(error));
  }
}

function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${(n / (1024 * 1024)).toFixed(1)} MiB` : `${Math.ceil(n / 1024)} KiB`;
}
