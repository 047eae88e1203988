/**
 * The contract clients were last given: the out-dir's `openapi.json` (what the previous run
 * generated, or what the pull request commits) and `API-CHANGES.md`, the record of the changes
 * clients were told about. Both are untrusted input: a file that cannot be read or parsed means
 * there is nothing to compare with, said as a warning located at the file; never an exception.
 */
import { join } from 'node:path';
import type { DiagnosticBag } from '../diagnostics/diagnostic.js';
import { checkReadPaths, fileAt, type OutDir } from './out-dir.js';
import { readText } from './previous.js';

export const CONTRACT_FILE = 'openapi.json';
export const CHANGELOG_FILE = 'API-CHANGES.md';

export interface PreviousContract {
  /** The last generated OpenAPI document; absent at the first generation or when unreadable (reported). */
  readonly document?: Record<string, unknown>;
  /** Its text, as it is on disk (an unchanged contract is not compared at all). */
  readonly text?: string;
  /** API-CHANGES.md as it is on disk, when it is there. */
  readonly changelog?: string;
}

export function readPreviousContract(out: OutDir, bag: DiagnosticBag): PreviousContract {
  if (!checkReadPaths(out, [CONTRACT_FILE, CHANGELOG_FILE], bag)) return {};
  const changelog = readText(join(out.real, CHANGELOG_FILE));
  const text = readText(join(out.real, CONTRACT_FILE));
  const document = text === undefined ? undefined : parseDocument(text, join(out.shown, CONTRACT_FILE), bag);
  return {
    ...(document && text !== undefined ? { document, text } : {}),
    ...(changelog === undefined ? {} : { changelog }),
  };
}

function parseDocument(text: string, shown: string, bag: DiagnosticBag): Record<string, unknown> | undefined {
  const unreadable = (why: string) => {
    bag.report('SVC3112', `cannot tell what changes for clients: ${CONTRACT_FILE} ${why}`, {
      span: fileAt(shown),
      hint: `restore ${CONTRACT_FILE} from version control to compare the API with it; svcgen writes the new one either way`,
    });
    return undefined;
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not the parser's message: it differs between Node versions, and the file is not the user's input.
    return unreadable('is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return unreadable('is not a JSON object');
  const paths = (parsed as Record<string, unknown>)['paths'];
  if (typeof paths !== 'object' || paths === null || Array.isArray(paths))
    return unreadable('has no `paths`: it is not an OpenAPI document');
  return parsed as Record<string, unknown>;
}
