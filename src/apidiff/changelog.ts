/**
 * API-CHANGES.md: what each regeneration that changed the API changed for clients, newest first.
 * Each entry is prepended to what the file already holds, which is kept as it is. Deterministic:
 * no dates; an entry is titled by `--release <name>` or is "Unreleased".
 */
import { changeText, locationOf, type ApiChange } from './change.js';

export const CHANGELOG_TITLE = '# API changes';

const PREAMBLE = `${CHANGELOG_TITLE}

What each regeneration changed for the clients of this API, newest first: breaking changes (clients written against the earlier version may fail) and compatible ones. \`svcgen generate\` adds an entry whenever it writes a version of the API that clients see differently (one with breaking changes only with \`--allow-breaking\`); \`svcgen diff\` shows the changes between any two versions.
`;

/** The file's text (below its header) with an entry for `changes` on top; the earlier entries as they were. */
export function changelogWithEntry(
  previous: string | undefined,
  changes: readonly ApiChange[],
  release?: string,
): string {
  const earlier = earlierEntries(previous);
  return `${PREAMBLE}\n${entry(changes, release).trimEnd()}\n${earlier ? `\n${earlier}` : ''}`;
}

function entry(changes: readonly ApiChange[], release: string | undefined): string {
  const section = (title: string, items: readonly ApiChange[]) =>
    items.length ? `### ${title}\n\n${items.map((c) => `- ${line(c)}`).join('\n')}\n\n` : '';
  const title = release?.trim() ? release.trim().replace(/\s+/g, ' ') : 'Unreleased';
  return `## ${title}\n\n${section(
    'Breaking',
    changes.filter((c) => c.breaking),
  )}${section(
    'Compatible',
    changes.filter((c) => !c.breaking),
  )}`;
}

function line(c: ApiChange): string {
  return `\`${locationOf(c).replace(/`/g, "'")}\`: ${changeText(c, escape)}`;
}

/** Markdown would read `*` and a `_` that starts a word as emphasis, `<` as HTML and `[` as a link. */
function escape(text: string): string {
  return text.replace(/[\\`*<>[\]]|(?<![A-Za-z0-9_])_/g, (ch) => `\\${ch}`);
}

/** Everything from the first entry (`## `) of the file as it was: its header and preamble are written anew. */
function earlierEntries(previous: string | undefined): string {
  if (!previous) return '';
  const at = previous.search(/^## /m);
  return at === -1 ? '' : previous.slice(at).replace(/\s*$/, '\n');
}
