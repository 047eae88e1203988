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

/**
 * The file's text (below its header) with an entry for `changes` on top; the earlier entries as they
 * were. An entry of the same title on top (each regeneration before a release is "Unreleased") takes
 * the new changes above its own instead, so that one release has one entry; so does an Unreleased
 * one for a `--release`, which it is then titled by.
 */
export function changelogWithEntry(
  previous: string | undefined,
  changes: readonly ApiChange[],
  release?: string,
): string {
  const title = release?.trim() ? releaseTitle(release) : UNRELEASED;
  const earlier = earlierEntries(previous);
  const [top, rest] = splitTopEntry(earlier);
  const lines = {
    breaking: changes.filter((c) => c.breaking).map(line),
    compatible: changes.filter((c) => !c.breaking).map(line),
  };
  // A release takes in what was written as Unreleased since the last one: one entry, its name.
  const merged = top !== undefined && (top.title === title || top.title === UNRELEASED);
  const items = merged
    ? { breaking: union(lines.breaking, top.breaking), compatible: union(lines.compatible, top.compatible) }
    : lines;
  const after = merged ? rest : earlier;
  return `${PREAMBLE}\n${entry(title, items).trimEnd()}\n${after ? `\n${after}` : ''}`;
}

const UNRELEASED = 'Unreleased';

/**
 * Whether `--release <name>` names a release the file already has, below its newest entry (the
 * newest may be named again: a run of the same release adds to it).
 */
export function releasedBefore(previous: string | undefined, release: string): boolean {
  const titles = [...earlierEntries(previous).matchAll(/^## (.+)$/gm)].map((m) => m[1]!.trim());
  return titles.slice(1).includes(releaseTitle(release));
}

/** Whether the file's newest entry is the release `--release <name>` names (a run of it again). */
export function isNewestRelease(previous: string | undefined, release: string): boolean {
  return newestEntry(previous) === releaseTitle(release);
}

/** Whether the file's newest entry is the one of changes not yet released, which `--release` names. */
export function hasUnreleased(previous: string | undefined): boolean {
  return newestEntry(previous) === UNRELEASED;
}

/** The title of the file's newest entry (`Unreleased`, or a release's name). */
function newestEntry(previous: string | undefined): string | undefined {
  return splitTopEntry(earlierEntries(previous))[0]?.title;
}

/** A release's name as its entry's title has it: spaces in it made one. */
function releaseTitle(release: string): string {
  return release.trim().replace(/\s+/g, ' ');
}

interface EntryItems {
  readonly breaking: readonly string[];
  readonly compatible: readonly string[];
}

function entry(title: string, items: EntryItems): string {
  const section = (heading: string, lines: readonly string[]) =>
    lines.length ? `### ${heading}\n\n${lines.map((l) => `- ${l}`).join('\n')}\n\n` : '';
  return `## ${title}\n\n${section('Breaking', items.breaking)}${section('Compatible', items.compatible)}`;
}

/** The first entry of `entries` (its title and items) and the entries after it; none when it is not one this file writes. */
function splitTopEntry(entries: string): [(EntryItems & { readonly title: string }) | undefined, string] {
  const match = /^## (.+)\n/.exec(entries);
  if (!match) return [undefined, entries];
  const next = entries.slice(match[0].length).search(/^## /m);
  const body = next === -1 ? entries.slice(match[0].length) : entries.slice(match[0].length, match[0].length + next);
  const rest = next === -1 ? '' : entries.slice(match[0].length + next);
  const items: { breaking: string[]; compatible: string[] } = { breaking: [], compatible: [] };
  let into: string[] | undefined;
  for (const text of body.split('\n')) {
    if (text === '### Breaking') into = items.breaking;
    else if (text === '### Compatible') into = items.compatible;
    else if (text.startsWith('- ') && into) into.push(text.slice(2));
    // Anything else (a note the user wrote under it) makes it theirs: it is kept as it is.
    else if (text.trim() !== '') return [undefined, entries];
  }
  return [{ title: match[1]!, ...items }, rest];
}

/** `first`, then what `then` has that it does not. */
function union(first: readonly string[], then: readonly string[]): string[] {
  return [...new Set([...first, ...then])];
}

function line(c: ApiChange): string {
  const at = locationOf(c);
  return at ? `\`${at.replace(/`/g, "'")}\`: ${changeText(c, escape)}` : changeText(c, escape);
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
