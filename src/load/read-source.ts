import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import type { DiagnosticBag } from '../diagnostics/diagnostic.js';
import type { SourceFile, Span } from '../diagnostics/source.js';
import { limits } from './budget.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** One buffer for all reads: a file is read in one call, up to one byte past the limit. */
let scratch: Buffer | undefined;

/**
 * Reads one input file as UTF-8 text, refusing what cannot be an API description (too large,
 * binary, not UTF-8). Problems are reported at `includedAt` (the `!include`), or at the file itself
 * for the root file.
 */
export function readSource(
  path: string,
  diagnostics: DiagnosticBag,
  includedAt: Span | undefined,
  shownAs: string,
): SourceFile | undefined {
  // Problems with the root file point at the file itself (line 1), so they are located too.
  const at = includedAt ?? { source: { path, text: '' }, start: 0, end: 0 };
  let length: number;
  let fd: number | undefined;
  try {
    // Without blocking, then only a regular file is read: opening a named pipe waited for a writer
    // forever (an attacker probe's `!include fifo.txt` hung validate), and a device never ends.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    if (!fstatSync(fd).isFile()) throw Object.assign(new Error('not a regular file'), { code: 'EISDIR' });
    length = readAll(fd);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EISDIR')
      diagnostics.report('SVC1015', `${shownAs} is not a regular file`, { span: at });
    else diagnostics.report('SVC1001', `cannot read ${shownAs}: ${describeFsError(error)}`, { span: at });
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  if (length > limits.maxFileBytes) {
    diagnostics.report('SVC1002', `${shownAs} is larger than the limit of ${formatBytes(limits.maxFileBytes)}`, {
      span: at,
    });
    return undefined;
  }
  const text = decodeText(scratch!.subarray(0, length));
  if (text === undefined) {
    diagnostics.report('SVC1003', `${shownAs} is not UTF-8 text`, {
      span: at,
      hint: 'RAML and JSON inputs must be UTF-8 text files',
    });
    return undefined;
  }
  return { path, text };
}

/** Reads the file into `scratch`, stopping one byte past the size limit. */
function readAll(fd: number): number {
  scratch ??= Buffer.allocUnsafe(limits.maxFileBytes + 1);
  let length = 0;
  while (length < scratch.length) {
    const n = readSync(fd, scratch, length, scratch.length - length, null);
    if (n === 0) break;
    length += n;
  }
  return length;
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
