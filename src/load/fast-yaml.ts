/**
 * A fast reader for the YAML that RAML files are made of: block mappings and sequences, plain,
 * quoted and block scalars, flow collections, comments and `!include`. It is strict on purpose:
 * anything outside that subset, and anything that might be an error, throws `Unsupported`, and
 * the caller reads the file with the `yaml` package instead, which handles all of YAML 1.2 and
 * reports errors precisely. So this reader only ever decides easy, valid cases, and it must decide
 * them exactly as the `yaml` package does (test/load/fast-yaml.test.ts compares the two).
 *
 * Why it exists: the `yaml` package spends most of svcgen's front-end time composing documents
 * (see bench/parse-instagram.mjs); this reader is several times faster on typical RAML.
 */
import { coreScalar } from './core-schema.js';
import type { RawEntry, RawMap, RawNode, RawScalar, RawSeq } from './raw-yaml.js';

/** The input needs the full YAML reader. Not an error in the input by itself. */
export class Unsupported extends Error {}

function unsupported(): never {
  throw new Unsupported();
}

interface Line {
  readonly start: number;
  /** End of the line's text, before the line break. */
  readonly end: number;
  /** Start of the next line (after the line break). */
  readonly next: number;
  /** Offset of the first non-space character, or -1 for a blank line. */
  readonly content: number;
  readonly indent: number;
}

interface Parsed<T extends RawNode = RawNode> {
  readonly node: T;
  /** Where the node ends including trailing spaces, comment and line break (the `yaml` package's range[2]). */
  readonly nodeEnd: number;
  /** Index of the last line the node occupies. */
  readonly lastLine: number;
}

const MAX_DEPTH = 200;
const FLOW_INDICATORS = ',[]{}';
const TAG_INCLUDE = '!include';

/** Reads `text`; returns null for an empty document. Throws `Unsupported` for anything unusual. */
export function readYamlFast(text: string): RawNode | null {
  return new FastYaml(text).document();
}

class FastYaml {
  readonly lines: Line[] = [];
  depth = 0;

  constructor(readonly text: string) {
    if (text.includes('\r') || text.includes('\t') || text.includes('\u0000')) unsupported();
    let start = 0;
    while (start <= text.length) {
      const newline = text.indexOf('\n', start);
      const end = newline === -1 ? text.length : newline;
      let content = start;
      while (content < end && text.charCodeAt(content) === 32) content++;
      this.lines.push({
        start,
        end,
        next: newline === -1 ? text.length : newline + 1,
        content: content === end ? -1 : content,
        indent: content - start,
      });
      if (newline === -1) break;
      start = newline + 1;
    }
  }

  document(): RawNode | null {
    let i = this.nextContent(0);
    if (i < this.lines.length) {
      const line = this.lines[i]!;
      if (this.text[line.content] === '%') unsupported();
      if (this.isMarker(line, '---')) {
        if (this.restOfLine(line, line.content + 3) !== line.end) unsupported();
        i = this.nextContent(i + 1);
      }
    }
    if (i >= this.lines.length) return null;
    const line = this.lines[i]!;
    const parsed = this.node(i, line.content, -1);
    const after = this.nextContent(parsed.lastLine + 1);
    if (after < this.lines.length) unsupported(); // more content, a second document, or an error
    for (let j = parsed.lastLine + 1; j < this.lines.length; j++) {
      const l = this.lines[j]!;
      if (l.content !== -1 && (this.isMarker(l, '---') || this.isMarker(l, '...'))) unsupported();
    }
    return parsed.node;
  }

  // --- lines ---------------------------------------------------------------------------------

  isBlankOrComment(line: Line): boolean {
    return line.content === -1 || this.text.charCodeAt(line.content) === 35; /* # */
  }

  /** The first line at or after `i` with content (not blank, not only a comment). */
  nextContent(i: number): number {
    while (i < this.lines.length && this.isBlankOrComment(this.lines[i]!)) i++;
    return i;
  }

  /**
   * The line of a value that starts below its key or dash on line `i`. A comment line between
   * them that is less indented than the value ends the collection for the `yaml` package (it
   * then reports an error): hand over.
   */
  valueBelow(i: number): number {
    const next = this.nextContent(i + 1);
    const indent = this.lines[next]?.indent ?? 0;
    for (let j = i + 1; j < next; j++) {
      const line = this.lines[j]!;
      if (line.content !== -1 && line.indent < indent) unsupported();
    }
    return next;
  }

  isMarker(line: Line, marker: string): boolean {
    if (line.indent !== 0 || !this.text.startsWith(marker, line.start)) return false;
    const after = line.start + marker.length;
    return after === line.end || this.text.charCodeAt(after) === 32;
  }

  /** From `pos`: skip spaces; if a comment follows, skip it. Returns the offset reached (≤ line.end). */
  restOfLine(line: Line, pos: number): number {
    while (pos < line.end && this.text.charCodeAt(pos) === 32) pos++;
    if (
      pos < line.end &&
      this.text.charCodeAt(pos) === 35 &&
      (pos === line.start || this.text.charCodeAt(pos - 1) === 32)
    )
      return line.end;
    return pos;
  }

  /** Throws unless only spaces and a comment follow `pos` on the line. */
  expectLineEnd(line: Line, pos: number): void {
    if (this.restOfLine(line, pos) !== line.end) unsupported();
  }

  /**
   * The `yaml` package stretches a collection's range over comment lines that follow its last
   * entry; rather than copy that rule, leave such files to it.
   */
  noTrailingComments(lastLine: number): void {
    for (let j = lastLine + 1; j < this.lines.length; j++) {
      const line = this.lines[j]!;
      if (line.content === -1) continue;
      if (this.text.charCodeAt(line.content) === 35) unsupported();
      return;
    }
  }

  lineAt(offset: number, from: number): number {
    let i = from;
    while (i < this.lines.length - 1 && this.lines[i]!.next <= offset) i++;
    return i;
  }

  // --- block nodes ---------------------------------------------------------------------------

  /**
   * A node starting at offset `pos` on line `i`, owned by a block whose indentation (a column)
   * is `owner`. Offsets index the text; columns are only used to compare indentation.
   */
  node(i: number, pos: number, owner: number, afterKey = false): Parsed {
    if (++this.depth > MAX_DEPTH) unsupported();
    try {
      const line = this.lines[i]!;
      const c = this.text[pos];
      const isSeq = c === '-' && this.isSpaceOrEnd(line, pos + 1);
      const isMap = !isSeq && this.keyEnd(line, pos) !== -1;
      // `key: other: value` and `key: - item` are not YAML; let the full reader say so.
      if (afterKey && (isSeq || isMap)) unsupported();
      if (isSeq) return this.blockSeq(i, pos);
      if (c === '[' || c === '{') return this.flowValue(i, pos, owner);
      if (c === '|' || c === '>') return this.blockScalar(i, pos, owner);
      if (c === '!') return this.include(i, pos, owner);
      if (isMap) return this.blockMap(i, pos);
      if (c === '"' || c === "'") return this.quotedValue(i, pos, owner);
      return this.plainValue(i, pos, owner);
    } finally {
      this.depth--;
    }
  }

  isSpaceOrEnd(line: Line, pos: number): boolean {
    return pos >= line.end || this.text.charCodeAt(pos) === 32;
  }

  blockMap(first: number, start: number): Parsed<RawMap> {
    const entries: RawEntry[] = [];
    const seen = new Set<string>();
    const col = start - this.lines[first]!.start;
    let i = first;
    let pos = start;
    let last: Parsed | undefined;
    for (;;) {
      const line = this.lines[i]!;
      const colon = this.keyEnd(line, pos);
      if (colon === -1) unsupported();
      const key = this.key(line, pos, colon);
      if (seen.has(keyIdentity(key)) || key.text === '<<' || key.text === '') unsupported();
      seen.add(keyIdentity(key));
      last = this.mapValue(i, colon + 1, col);
      entries.push({ key, value: last.node });
      const next = this.nextContent(last.lastLine + 1);
      if (next >= this.lines.length) break;
      const nextLine = this.lines[next]!;
      if (nextLine.indent < col) break;
      if (nextLine.indent > col) unsupported();
      if (this.text[nextLine.content] === '-' && this.isSpaceOrEnd(nextLine, nextLine.content + 1)) unsupported();
      i = next;
      pos = nextLine.content;
    }
    this.noTrailingComments(last.lastLine);
    const node: RawMap = { kind: 'map', entries, start: entries[0]!.key.start, end: last.nodeEnd };
    return { node, nodeEnd: last.nodeEnd, lastLine: last.lastLine };
  }

  /**
   * Where the `:` of a mapping key starting at `pos` is, or -1 when the line is not `key: …`.
   * Quoted keys and plain keys without `: ` or ` #` inside are recognised.
   */
  keyEnd(line: Line, pos: number): number {
    const t = this.text;
    const c = t[pos];
    if (c === '"' || c === "'") {
      const close = this.quoteEnd(line, pos);
      if (close === -1) return -1;
      let p = close;
      while (p < line.end && t.charCodeAt(p) === 32) p++;
      return t[p] === ':' && this.isSpaceOrEnd(line, p + 1) ? p : -1;
    }
    if (c === undefined || '-?:,[]{}#&*!|>%@`'.includes(c))
      return c === '-' || c === '?' || c === ':' ? this.plainKeyEnd(line, pos, true) : -1;
    return this.plainKeyEnd(line, pos, false);
  }

  plainKeyEnd(line: Line, pos: number, indicatorStart: boolean): number {
    const t = this.text;
    if (indicatorStart && this.isSpaceOrEnd(line, pos + 1)) return -1;
    for (let p = pos; p < line.end; p++) {
      const ch = t.charCodeAt(p);
      if (ch === 58 /* : */ && this.isSpaceOrEnd(line, p + 1)) return p;
      if (ch === 35 /* # */ && t.charCodeAt(p - 1) === 32) return -1;
    }
    return -1;
  }

  key(line: Line, pos: number, colon: number): RawScalar {
    const c = this.text[pos];
    if (c === '"' || c === "'") {
      const close = this.quoteEnd(line, pos);
      return this.quoted(pos, close);
    }
    let end = colon;
    while (end > pos && this.text.charCodeAt(end - 1) === 32) end--;
    const text = this.text.slice(pos, end);
    if (text.includes(': ') || text.includes(' #')) unsupported();
    return { kind: 'scalar', value: coreScalar(text), text, style: 'plain', start: pos, end };
  }

  /** The value after `key:` at `pos` on line `i`, for a mapping at indentation `mapIndent`. */
  mapValue(i: number, pos: number, mapIndent: number): Parsed {
    const line = this.lines[i]!;
    const valueStart = this.restOfLine(line, pos);
    if (valueStart < line.end) return this.node(i, valueStart, mapIndent, true);
    let afterSpaces = pos;
    while (afterSpaces < line.end && this.text.charCodeAt(afterSpaces) === 32) afterSpaces++;
    const next = this.valueBelow(i);
    if (next < this.lines.length) {
      const nextLine = this.lines[next]!;
      const isSeq = this.text[nextLine.content] === '-' && this.isSpaceOrEnd(nextLine, nextLine.content + 1);
      if (nextLine.indent > mapIndent || (nextLine.indent === mapIndent && isSeq))
        return this.node(next, nextLine.content, mapIndent);
    }
    return this.empty(afterSpaces, i);
  }

  /** An empty value. With a comment after it, the `yaml` package's ranges get intricate: hand over. */
  empty(at: number, i: number): Parsed<RawScalar> {
    if (at < this.lines[i]!.end) unsupported();
    return {
      node: { kind: 'scalar', value: null, text: '', style: 'plain', start: at, end: at },
      nodeEnd: at,
      lastLine: i,
    };
  }

  blockSeq(first: number, start: number): Parsed<RawSeq> {
    const items: RawNode[] = [];
    const col = start - this.lines[first]!.start;
    let i = first;
    let last: Parsed | undefined;
    for (;;) {
      const line = this.lines[i]!;
      const dash = i === first ? start : line.content;
      const itemStart = this.restOfLine(line, dash + 1);
      if (itemStart < line.end) {
        last = this.node(i, itemStart, col);
      } else {
        const next = this.valueBelow(i);
        const nextLine = this.lines[next];
        last = nextLine && nextLine.indent > col ? this.node(next, nextLine.content, col) : this.empty(dash + 1, i);
      }
      items.push(last.node);
      const next = this.nextContent(last.lastLine + 1);
      if (next >= this.lines.length) break;
      const nextLine = this.lines[next]!;
      if (nextLine.indent < col) break;
      if (nextLine.indent > col) unsupported();
      if (!(this.text[nextLine.content] === '-' && this.isSpaceOrEnd(nextLine, nextLine.content + 1))) break;
      i = next;
    }
    this.noTrailingComments(last.lastLine);
    const node: RawSeq = { kind: 'seq', items, start, end: last.nodeEnd };
    return { node, nodeEnd: last.nodeEnd, lastLine: last.lastLine };
  }

  // --- scalars -------------------------------------------------------------------------------

  plainValue(i: number, col: number, owner: number): Parsed<RawScalar> {
    const line = this.lines[i]!;
    const t = this.text;
    let end = col;
    for (let p = col; p < line.end; p++) {
      const ch = t.charCodeAt(p);
      if (ch === 35 /* # */ && t.charCodeAt(p - 1) === 32) break;
      if (ch === 58 /* : */ && this.isSpaceOrEnd(line, p + 1)) unsupported();
      if (ch !== 32) end = p + 1;
    }
    const first = t[col]!;
    if ('-?:'.includes(first) && this.isSpaceOrEnd(line, col + 1)) unsupported();
    if (',[]{}#&*!|>\'"%@`'.includes(first)) unsupported();
    this.noContinuation(i, owner);
    const text = t.slice(col, end);
    return {
      node: { kind: 'scalar', value: coreScalar(text), text, style: 'plain', start: col, end },
      nodeEnd: line.next,
      lastLine: i,
    };
  }

  /** A plain or quoted scalar that goes on over the next lines is left to the full reader. */
  noContinuation(i: number, owner: number): void {
    const next = this.nextContent(i + 1);
    const nextLine = this.lines[next];
    if (nextLine && nextLine.indent > owner) unsupported();
  }

  quotedValue(i: number, col: number, owner: number): Parsed<RawScalar> {
    const line = this.lines[i]!;
    const close = this.quoteEnd(line, col);
    if (close === -1) unsupported();
    this.expectLineEnd(line, close);
    this.noContinuation(i, owner);
    return { node: this.quoted(col, close), nodeEnd: line.next, lastLine: i };
  }

  /** Offset after the closing quote of a quoted scalar opening at `pos` on `line`, or -1. */
  quoteEnd(line: Line, pos: number): number {
    return closingQuote(this.text, pos, line.end);
  }

  quoted(start: number, end: number): RawScalar {
    const raw = this.text.slice(start + 1, end - 1);
    const value = this.text[start] === "'" ? raw.replaceAll("''", "'") : unescapeDouble(raw);
    return { kind: 'scalar', value, text: value, style: 'quoted', start, end };
  }

  include(i: number, col: number, owner: number): Parsed<RawScalar> {
    const line = this.lines[i]!;
    if (!this.text.startsWith(`${TAG_INCLUDE} `, col)) unsupported();
    const pathStart = this.restOfLine(line, col + TAG_INCLUDE.length);
    if (pathStart >= line.end) unsupported();
    const parsed = this.plainValue(i, pathStart, owner);
    if (typeof parsed.node.value !== 'string') unsupported();
    return { ...parsed, node: { ...parsed.node, value: parsed.node.text, includeTagStart: col } };
  }

  /** `|` and `>` scalars with clip or strip chomping and automatic indentation. */
  blockScalar(i: number, col: number, owner: number): Parsed<RawScalar> {
    const line = this.lines[i]!;
    const t = this.text;
    const folded = t[col] === '>';
    let p = col + 1;
    let strip = false;
    if (t[p] === '-') {
      strip = true;
      p++;
    }
    if (p < line.end && t.charCodeAt(p) !== 32) unsupported(); // keep chomping, indentation indicators
    this.expectLineEnd(line, p);
    let indent = -1;
    let last = i;
    const content: string[] = [];
    for (let j = i + 1; j < this.lines.length; j++) {
      const l = this.lines[j]!;
      if (l.content === -1) {
        if (indent !== -1 && l.end - l.start > indent) unsupported(); // spaces beyond the indentation
        if (indent === -1 && l.end - l.start > owner + 1) unsupported();
        content.push('');
        continue;
      }
      if (indent === -1) {
        if (l.indent <= owner) break;
        indent = l.indent;
      }
      if (l.indent < indent) break;
      if (folded && l.indent > indent) unsupported(); // more-indented lines fold differently
      content.push(t.slice(l.start + indent, l.end));
      last = j;
    }
    const lines = content.slice(0, last - i);
    while (lines.length && lines[lines.length - 1] === '') lines.pop();
    if (lines.length === 0) unsupported(); // the `yaml` package spans empty block scalars differently
    const body = folded ? fold(lines) : lines.join('\n');
    const value = lines.length === 0 ? '' : strip ? body : `${body}\n`;
    const end = last === i ? line.next : this.lines[last]!.next;
    return {
      node: { kind: 'scalar', value, text: value, style: 'block', start: col, end },
      nodeEnd: end,
      lastLine: last,
    };
  }

  // --- flow collections ----------------------------------------------------------------------

  flowValue(i: number, col: number, owner: number): Parsed {
    const flow = new FlowReader(this, col, owner);
    const node = flow.collection();
    const endLine = this.lineAt(flow.pos - 1, i);
    const line = this.lines[endLine]!;
    this.expectLineEnd(line, flow.pos);
    return { node, nodeEnd: line.next, lastLine: endLine };
  }
}

/** Flow collections (`[a, b: c]`, `{a: b}`), possibly over several lines. */
class FlowReader {
  pos: number;
  depth = 0;

  constructor(
    readonly yaml: FastYaml,
    start: number,
    readonly owner: number,
  ) {
    this.pos = start;
  }

  get text(): string {
    return this.yaml.text;
  }

  collection(): RawMap | RawSeq {
    if (++this.depth > MAX_DEPTH) unsupported();
    const open = this.text[this.pos];
    return open === '[' ? this.seq() : this.map();
  }

  /** Skips spaces, line breaks and comments; continuation lines must be indented past the owner. */
  space(): void {
    const t = this.text;
    for (;;) {
      const c = t.charCodeAt(this.pos);
      if (c === 32) this.pos++;
      else if (c === 10) {
        this.pos++;
        let p = this.pos;
        while (t.charCodeAt(p) === 32) p++;
        // Continuation lines of a flow collection must be indented past the block that owns it.
        if (p - this.pos <= this.owner && t[p] !== '\n' && t[p] !== undefined && t[p] !== '#') unsupported();
      } else if (c === 35 && (t.charCodeAt(this.pos - 1) === 32 || t.charCodeAt(this.pos - 1) === 10)) {
        while (this.pos < t.length && t.charCodeAt(this.pos) !== 10) this.pos++;
      } else return;
    }
  }

  seq(): RawSeq {
    const start = this.pos++;
    const items: RawNode[] = [];
    for (;;) {
      this.space();
      if (this.text[this.pos] === ']') break;
      const item = this.item();
      this.space();
      if (this.text[this.pos] === ':') items.push(this.implicitPair(item));
      else items.push(item);
      if (!this.separator(']')) break;
    }
    this.pos++;
    return { kind: 'seq', items, start, end: this.pos };
  }

  /** `[key: value]`: a single-pair mapping inside a flow sequence. */
  implicitPair(key: RawNode): RawMap {
    // `<<` is a merge key to the yaml package, wherever it is (`[<<: x]` included).
    if (key.kind !== 'scalar' || key.text === '<<') unsupported();
    this.pos++; // ':'
    this.space();
    const value = this.valueOrEmpty(']');
    return { kind: 'map', entries: [{ key, value }], start: key.start, end: value.end };
  }

  map(): RawMap {
    const start = this.pos++;
    const entries: RawEntry[] = [];
    const seen = new Set<string>();
    for (;;) {
      this.space();
      if (this.text[this.pos] === '}') break;
      const key = this.item();
      if (key.kind !== 'scalar' || seen.has(keyIdentity(key)) || key.text === '<<') unsupported();
      seen.add(keyIdentity(key));
      this.space();
      if (this.text[this.pos] !== ':') unsupported();
      this.pos++;
      this.space();
      entries.push({ key, value: this.valueOrEmpty('}') });
      if (!this.separator('}')) break;
    }
    this.pos++;
    return { kind: 'map', entries, start, end: this.pos };
  }

  /** After an item: true past a `,` (more may follow), false at `close`; anything else is handed over. */
  separator(close: string): boolean {
    this.space();
    if (this.text[this.pos] === ',') {
      this.pos++;
      return true;
    }
    if (this.text[this.pos] !== close) unsupported();
    return false;
  }

  valueOrEmpty(close: string): RawNode {
    const c = this.text[this.pos];
    if (c === ',' || c === close)
      return { kind: 'scalar', value: null, text: '', style: 'plain', start: this.pos, end: this.pos };
    return this.item();
  }

  item(): RawNode {
    const t = this.text;
    const c = t[this.pos];
    if (c === '[' || c === '{') {
      const node = this.collection();
      this.depth--;
      return node;
    }
    if (c === '"' || c === "'") return this.quoted();
    return this.plain();
  }

  quoted(): RawScalar {
    const t = this.text;
    const start = this.pos;
    const q = t[start];
    const lineEnd = t.indexOf('\n', start);
    // Multi-line quoted scalars fold; leave them to the full reader.
    const end = closingQuote(t, start, lineEnd < 0 ? t.length : lineEnd);
    if (end < 0) unsupported();
    this.pos = end;
    const raw = t.slice(start + 1, end - 1);
    const value = q === "'" ? raw.replaceAll("''", "'") : unescapeDouble(raw);
    return { kind: 'scalar', value, text: value, style: 'quoted', start, end: this.pos };
  }

  plain(): RawScalar {
    const t = this.text;
    const start = this.pos;
    const first = t[start];
    if (first === undefined || '#&*!|>\'"%@`'.includes(first) || first === ',' || first === ']' || first === '}')
      unsupported();
    if ('-?:'.includes(first) && ' ,[]{}\n'.includes(t[start + 1] ?? ' ')) unsupported();
    let end = start;
    let p = start;
    for (; p < t.length; p++) {
      const c = t[p]!;
      if (c === '\n') break;
      if (FLOW_INDICATORS.includes(c)) break;
      if (c === ':' && ' ,[]{}\n'.includes(t[p + 1] ?? ' ')) break;
      if (c === '#' && t[p - 1] === ' ') break;
      if (c !== ' ') end = p + 1;
    }
    if (t[p] === '\n') {
      // A plain scalar may continue on the next line in flow context; leave that to the full reader.
      let q = p + 1;
      while (t[q] === ' ') q++;
      if (t[q] !== undefined && !',]}:#\n'.includes(t[q]!)) unsupported();
    }
    this.pos = end;
    const text = t.slice(start, end);
    if (text === '') unsupported();
    return { kind: 'scalar', value: coreScalar(text), text, style: 'plain', start, end };
  }
}

/** Keys are unique by value, as the `yaml` package compares them (`1` and `01` are the same key). */
/**
 * Offset after the quote that closes the quoted scalar opening at `pos` (`\"` escapes in double
 * quotes, `''` in single ones), looking before `end` only; -1 when there is none.
 */
function closingQuote(t: string, pos: number, end: number): number {
  const q = t[pos];
  for (let p = pos + 1; p < end; p++) {
    const c = t[p];
    if (q === '"' && c === '\\') {
      p++;
      continue;
    }
    if (c === q) {
      if (q === "'" && t[p + 1] === "'") {
        p++;
        continue;
      }
      return p + 1;
    }
  }
  return -1;
}

function keyIdentity(key: RawScalar): string {
  return key.style === 'plain' && typeof key.value !== 'string'
    ? `${typeof key.value}:${String(key.value)}`
    : `string:${String(key.value)}`;
}

/** Folded block scalar: line breaks between lines become spaces, empty lines become breaks. */
function fold(lines: readonly string[]): string {
  let out = '';
  let pendingBreaks = 0;
  let started = false;
  for (const line of lines) {
    if (line === '') {
      pendingBreaks++;
      continue;
    }
    if (started) out += pendingBreaks > 0 ? '\n'.repeat(pendingBreaks) : ' ';
    else out += '\n'.repeat(pendingBreaks);
    out += line;
    pendingBreaks = 0;
    started = true;
  }
  return out;
}

const ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\',
  '"': '"',
  '/': '/',
  n: '\n',
  t: '\t',
  r: '\r',
  b: '\b',
  f: '\f',
  '0': '\0',
  ' ': ' ',
};

function unescapeDouble(raw: string): string {
  if (!raw.includes('\\')) return raw;
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = raw[++i];
    if (e === undefined) unsupported();
    if (e === 'u') {
      const hex = raw.slice(i + 1, i + 5);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) unsupported();
      out += String.fromCharCode(parseInt(hex, 16));
      i += 4;
      continue;
    }
    const replacement = ESCAPES[e];
    if (replacement === undefined) unsupported();
    out += replacement;
  }
  return out;
}
