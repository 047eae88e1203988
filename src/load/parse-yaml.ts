/**
 * One YAML file → one located `YNode` tree, with every problem reported as a diagnostic.
 *
 * The file is read by the fast reader when it can (`fast-yaml.ts`), else by the `yaml` package,
 * which handles all of YAML 1.2 and reports its errors. Either way the result is a raw tree that
 * `Converter` turns into `YNode`s: `!include`s are handed to the caller (the loader), aliases are
 * shared, and the expanded size and nesting depth are bounded.
 */
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import type { Document, Node as YamlNode, Scalar, YAMLError } from 'yaml';
import type { DiagnosticBag } from '../diagnostics/diagnostic.js';
import { span, type SourceFile, type Span } from '../diagnostics/source.js';
import { limits } from './budget.js';
import { readYamlFast, Unsupported } from './fast-yaml.js';
import type { RawEntry, RawNode, RawScalar } from './raw-yaml.js';
import { scalar, type YEntry, type YNode, type YScalar } from './ynode.js';

export interface ParseYamlOptions {
  readonly source: SourceFile;
  readonly diagnostics: DiagnosticBag;
  /** Resolves an `!include` found at `at`; returns the node to splice in. */
  readonly include: (path: string, at: Span) => YNode;
  /** Logical size (node count with aliases and includes expanded) of every node built so far. */
  readonly sizes: WeakMap<YNode, number>;
  /**
   * Shared by all files of one load: set once a size or depth limit was hit (and reported), after
   * which the document is not read any further.
   */
  readonly limitState: { reported: boolean };
}

export const INCLUDE_TAG = '!include';

/** Parse a YAML file. Returns undefined when the file cannot be used (its errors are reported). */
export function parseYaml(options: ParseYamlOptions): YNode | undefined {
  const raw = readRaw(options.source, options.diagnostics);
  if (raw === undefined) return undefined;
  if (raw === null) return scalar(null, span(options.source, 0, 0));
  return new Converter(options).node(raw, 0);
}

/** The raw tree of a file: null for an empty document, undefined when it is unusable. */
export function readRaw(source: SourceFile, diagnostics: DiagnosticBag): RawNode | null | undefined {
  try {
    return readYamlFast(source.text);
  } catch (error) {
    if (!(error instanceof Unsupported)) throw error;
  }
  return readWithYamlPackage(source, diagnostics);
}

// --- the `yaml` package ----------------------------------------------------------------------

/** Loaded on first use: most files never need it, and loading it costs ~20 ms per run. */
let yamlPackage: typeof Yaml | undefined;
function yaml(): typeof Yaml {
  yamlPackage ??= createRequire(import.meta.url)('yaml') as typeof Yaml;
  return yamlPackage;
}

const includeTag = { tag: INCLUDE_TAG, resolve: (value: string) => value };

export function readWithYamlPackage(source: SourceFile, diagnostics: DiagnosticBag): RawNode | null | undefined {
  let documents: Document.Parsed[];
  try {
    documents = yaml().parseAllDocuments(source.text, {
      customTags: [includeTag],
      uniqueKeys: true,
      prettyErrors: false,
      strict: true,
    }) as Document.Parsed[];
  } catch (error) {
    // The yaml package recurses while composing; absurd nesting overflows the stack.
    if (error instanceof RangeError) {
      diagnostics.report('SVC1009', 'the file nests too deeply to be read', { span: span(source, 0, 0) });
      return undefined;
    }
    throw error;
  }
  if (!Array.isArray(documents)) documents = [documents];
  const first = documents[0];
  if (!first) return null;
  for (const extra of documents.slice(1)) {
    const at = extra.range[0];
    diagnostics.report('SVC1006', 'a RAML file holds one YAML document; found another one', {
      span: span(source, at, at + 3),
    });
  }
  if (!reportYamlProblems(first, source, diagnostics)) return undefined;
  return first.contents ? new YamlAdapter(source, diagnostics, first).node(first.contents, 0) : null;
}

/**
 * Where the line a "must start at the same column" error is about begins: the yaml package puts it
 * at the end of the line before, or at the line's column 1, not at its first character (a new user's
 * caret sat under the indentation of the line it meant). The first non-blank character from
 * `offset` on, past the rest of its line where that is blank.
 */
function lineStartAfter(text: string, offset: number): number | undefined {
  const found = /\S/.exec(text.slice(offset));
  return found ? offset + found.index : undefined;
}

/** Reports parse errors and warnings; returns false when the document cannot be used. */
function reportYamlProblems(doc: Document.Parsed, source: SourceFile, diagnostics: DiagnosticBag): boolean {
  for (const error of rootCauses(doc.errors)) {
    const [start, end] = error.pos;
    const message = firstLine(error.message);
    if (/call stack/i.test(message)) {
      // The yaml package recurses while composing and reports absurd nesting this way.
      diagnostics.report('SVC1009', 'the file nests too deeply to be read', { span: span(source, start, end) });
    } else if (error.code === 'DUPLICATE_KEY') {
      const at = keyStart(source.text, start);
      const key = /^[^:\r\n]*/.exec(source.text.slice(at))?.[0].trim() ?? '';
      const first = firstKeyBefore(doc, at);
      diagnostics.report('SVC1005', key ? `duplicate key "${key}"` : 'duplicate key', {
        span: span(source, at, at + Math.max(1, key.length)),
        hint: 'a repeated key would silently replace the first one; merge the two entries',
        related:
          first === undefined ? undefined : { span: span(source, first[0], first[1]), message: 'first written here' },
      });
    } else {
      const misplaced = /same column/i.test(message) ? lineStartAfter(source.text, start) : undefined;
      diagnostics.report('SVC1004', message, {
        span: misplaced === undefined ? span(source, start, end) : span(source, misplaced, misplaced + 1),
        ...(error.code === 'TAB_AS_INDENT'
          ? { hint: 'indent with spaces: YAML reads a tab as no indentation, so what follows may not parse either' }
          : error.code === 'BAD_INDENT' || /same column|implicit map key/i.test(message)
            ? { hint: 'YAML nests by indentation: indent this line as the other keys or items of the same level' }
            : {}),
      });
    }
  }
  for (const warning of doc.warnings) {
    const [start, end] = warning.pos;
    if (warning.code === 'TAG_RESOLVE_FAILED') {
      const tag = source.text.slice(start, end).match(/^!\S*/)?.[0] ?? firstLine(warning.message);
      if (tag === INCLUDE_TAG) continue; // `!include` on a mapping or list: reported when converting
      diagnostics.report('SVC1007', `unknown tag ${tag}`, { span: span(source, start, end), hint: tagHint(tag) });
    } else {
      diagnostics.report('SVC1004', firstLine(warning.message), {
        span: span(source, start, end),
        severity: 'warning',
      });
    }
  }
  return !doc.errors.some((e) => e.code !== 'DUPLICATE_KEY');
}

/**
 * The errors to report: after a structural error (a line indented wrong, a tab used as
 * indentation) the parser loses track of the structure and reports follow-on errors for what
 * follows (a tab in the tenth line gave eight; one list item indented wrong, six): those would
 * hide the one thing to fix. So the first structural error stays, with the tabs and the duplicate
 * keys (which break nothing) wherever they are.
 */
function rootCauses(errors: readonly YAMLError[]): readonly YAMLError[] {
  const tab = errors.find((e) => e.code === 'TAB_AS_INDENT');
  if (tab) return errors.filter((e) => e.code === 'TAB_AS_INDENT' || e.pos[0] < tab.pos[0]);
  const first = errors.find((e) => e.code !== 'DUPLICATE_KEY');
  return errors.filter((e) => e.code === 'DUPLICATE_KEY' || e === first);
}

/** Where the first of two equal keys is, given where the repeat starts (the yaml package keeps both pairs). */
function firstKeyBefore(doc: Document.Parsed, repeatAt: number): [number, number] | undefined {
  const { isScalar: isYamlScalar, visit } = yaml();
  let found: [number, number] | undefined;
  visit(doc, {
    Map(_, map) {
      const keys = map.items
        .map((pair) => pair.key)
        .filter((key): key is Scalar => isYamlScalar(key) && key.range !== undefined && key.range !== null);
      const repeat = keys.find((key) => key.range![0] === repeatAt);
      if (!repeat) return undefined;
      const first = keys.find((key) => key.value === repeat.value);
      if (first && first !== repeat) found = [first.range![0], first.range![1]];
      return visit.BREAK;
    },
  });
  return found;
}

/**
 * The yaml package places a repeated key's error where the previous value ends, which is the end
 * of the previous line when that value is empty (`get:`): the key itself comes after the blanks
 * and comments from there.
 */
function keyStart(text: string, from: number): number {
  const rest = /^(?:\s|#[^\n]*)*/.exec(text.slice(from))?.[0] ?? '';
  return from + rest.length;
}

function tagHint(tag: string): string {
  const rest = tag.slice(INCLUDE_TAG.length);
  if (tag.startsWith(INCLUDE_TAG) && /[/.]/.test(rest))
    return `put a space between the tag and the path: \`${INCLUDE_TAG} ${rest}\``;
  if (tag.startsWith('!inc') || tag.startsWith('!Inc')) return `did you mean \`${INCLUDE_TAG}\`?`;
  return 'RAML understands only `!include`';
}

function firstLine(message: string): string {
  const line = message.split('\n')[0] ?? message;
  return line.replace(/ at line \d+, column \d+:?$/, '');
}

/** `yaml` package nodes → raw nodes; aliases become shared raw nodes. */
class YamlAdapter {
  readonly #memo = new Map<YamlNode, RawNode>();

  constructor(
    readonly source: SourceFile,
    readonly diagnostics: DiagnosticBag,
    readonly doc: Document.Parsed,
  ) {}

  node(node: YamlNode, depth: number): RawNode {
    const memo = this.#memo.get(node);
    if (memo) return memo;
    const built = this.build(node, depth);
    this.#memo.set(node, built);
    return built;
  }

  build(node: YamlNode, depth: number): RawNode {
    const { isAlias, isMap: isYamlMap, isPair, isScalar: isYamlScalar, isSeq: isYamlSeq } = yaml();
    const [start, end] = node.range ?? [0, 0];
    // Past the limit, stop descending; the converter reports the depth.
    if (depth > limits.maxDepth + 1) return { kind: 'scalar', value: null, text: '', style: 'plain', start, end };
    if (isAlias(node)) {
      const target = node.resolve(this.doc);
      if (target) return { kind: 'alias', target: this.node(target, depth), start, end };
      // The yaml package reads it as null until asked for its value: a probe's `get: *nope` was
      // an empty `get:`, a forward alias too.
      this.diagnostics.report('SVC1004', `the alias *${node.source} names no anchor (&${node.source}) before it`, {
        span: span(this.source, start, end),
        hint: `an alias repeats a node marked &${node.source} earlier in the same file: mark it before the alias (a file cannot alias an anchor of the file that includes it)`,
      });
      return { kind: 'scalar', value: null, text: '', style: 'plain', start, end };
    }
    if (isYamlScalar(node)) return this.scalar(node, start, end);
    if (isYamlMap(node) || isYamlSeq(node)) {
      if (node.tag === INCLUDE_TAG) return { kind: 'include-on-collection', start, end };
    }
    if (isYamlMap(node)) {
      const entries: RawEntry[] = [];
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const key = this.key(pair.key as YamlNode | null);
        if (!key) continue;
        const value = pair.value
          ? this.node(pair.value as YamlNode, depth + 1)
          : ({ kind: 'scalar', value: null, text: '', style: 'plain', start: key.end, end: key.end } as const);
        entries.push({ key, value });
      }
      return { kind: 'map', entries, start, end };
    }
    if (isYamlSeq(node)) {
      const items = node.items.map((item) =>
        item
          ? this.node(item as YamlNode, depth + 1)
          : ({ kind: 'scalar', value: null, text: '', style: 'plain', start, end } as const),
      );
      return { kind: 'seq', items, start, end };
    }
    return { kind: 'scalar', value: null, text: '', style: 'plain', start, end };
  }

  scalar(node: Scalar, start: number, end: number): RawScalar {
    const value = node.value;
    const plainValue: RawScalar['value'] =
      value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
        ? value
        : scalarText(value);
    const style =
      node.type === 'PLAIN'
        ? 'plain'
        : node.type === 'BLOCK_FOLDED' || node.type === 'BLOCK_LITERAL'
          ? 'block'
          : 'quoted';
    const text =
      node.type === 'PLAIN'
        ? (node.source ?? (plainValue === null ? '' : String(plainValue)))
        : String(plainValue ?? '');
    if (node.tag === INCLUDE_TAG) {
      const tagStart = this.source.text.lastIndexOf(INCLUDE_TAG, start);
      const path = typeof node.value === 'string' ? node.value : '';
      return {
        kind: 'scalar',
        value: path,
        text: path,
        style: 'plain',
        start,
        end,
        includeTagStart: tagStart >= 0 && start - tagStart < 200 ? tagStart : start,
      };
    }
    // An unknown tag was reported while parsing; its value means nothing to us.
    const unknownTag = node.tag !== undefined && !node.tag.startsWith('tag:yaml.org,2002:');
    return {
      kind: 'scalar',
      value: unknownTag ? null : plainValue,
      text,
      style,
      start,
      end,
      ...(unknownTag ? { unknownTag: true } : {}),
    };
  }

  /** Keys are scalars; anything else (and the YAML 1.1 merge key `<<`) is refused. */
  key(node: YamlNode | null): RawScalar | undefined {
    if (node === null) return undefined;
    const [start, end] = node.range ?? [0, 0];
    if (!yaml().isScalar(node) || node.tag === INCLUDE_TAG) {
      this.diagnostics.report('SVC1006', 'mapping keys must be plain scalars', { span: span(this.source, start, end) });
      return undefined;
    }
    const text = node.type === 'PLAIN' ? (node.source ?? scalarText(node.value)) : scalarText(node.value);
    if (text === '<<' && node.type === 'PLAIN') {
      this.diagnostics.report('SVC1006', 'YAML merge keys (`<<`) are not part of YAML 1.2', {
        span: span(this.source, start, end),
        hint: 'write the keys out, or use a resource type or trait',
      });
      return undefined;
    }
    const value =
      node.value === null || typeof node.value === 'number' || typeof node.value === 'boolean' ? node.value : text;
    return { kind: 'scalar', value, text, style: node.type === 'PLAIN' ? 'plain' : 'quoted', start, end };
  }
}

// --- raw nodes → YNodes -------------------------------------------------------------------------

class Converter {
  readonly #memo = new Map<RawNode, YNode>();
  #size = 0;
  #tooLarge = false;

  constructor(readonly options: ParseYamlOptions) {}

  get source(): SourceFile {
    return this.options.source;
  }

  /** Converts `raw`; an aliased node is converted once and shared, but each alias counts toward the size limit. */
  node(raw: RawNode, depth: number): YNode {
    if (raw.kind === 'alias') {
      const shared = this.#memo.get(raw.target);
      if (!shared) return this.node(raw.target, depth);
      return this.charge(this.options.sizes.get(shared) ?? 1, this.span(raw)) ? shared : this.nullAt(raw);
    }
    const built = this.build(raw, depth);
    this.#memo.set(raw, built);
    return built;
  }

  charge(size: number, at: Span): boolean {
    if (this.#tooLarge) return false;
    this.#size += size;
    if (this.#size <= limits.maxNodes) return true;
    this.#tooLarge = true;
    if (this.options.limitState.reported) return false;
    this.options.limitState.reported = true;
    this.options.diagnostics.report(
      'SVC1008',
      `the document expands to more than ${limits.maxNodes.toLocaleString('en-US')} nodes`,
      {
        span: at,
        hint: 'look for aliases or includes that repeat large parts many times',
      },
    );
    return false;
  }

  build(raw: Exclude<RawNode, { kind: 'alias' }>, depth: number): YNode {
    const at = this.span(raw);
    if (depth > limits.maxDepth) {
      if (!this.options.limitState.reported) {
        this.options.limitState.reported = true;
        this.options.diagnostics.report('SVC1009', `nesting deeper than ${limits.maxDepth} levels`, { span: at });
      }
      return scalar(null, at);
    }
    switch (raw.kind) {
      case 'include-on-collection':
        this.options.diagnostics.report('SVC1014', `${INCLUDE_TAG} must be followed by a file path`, { span: at });
        return scalar(null, at);
      case 'scalar':
        return raw.includeTagStart === undefined ? this.scalarNode(raw, at) : this.includeNode(raw, at);
      case 'map': {
        if (!this.charge(1, at)) return scalar(null, at);
        const entries: YEntry[] = [];
        let size = 1;
        for (const e of raw.entries) {
          const key = this.scalarNode(e.key, this.span(e.key));
          const value = this.node(e.value, depth + 1);
          size += (this.options.sizes.get(value) ?? 1) + 1;
          entries.push({ key, value });
        }
        const result: YNode = { kind: 'map', entries, span: at };
        this.options.sizes.set(result, size);
        return result;
      }
      case 'seq': {
        if (!this.charge(1, at)) return scalar(null, at);
        const items: YNode[] = [];
        let size = 1;
        for (const item of raw.items) {
          const value = this.node(item, depth + 1);
          size += this.options.sizes.get(value) ?? 1;
          items.push(value);
        }
        const result: YNode = { kind: 'seq', items, span: at };
        this.options.sizes.set(result, size);
        return result;
      }
    }
  }

  scalarNode(raw: RawScalar, at: Span): YScalar {
    if (!this.charge(1, at)) return scalar(null, at);
    if (raw.unknownTag) return { ...scalar(null, at), alreadyReported: true };
    const result: YScalar = { kind: 'scalar', value: raw.value, text: raw.text, style: raw.style, span: at };
    this.options.sizes.set(result, 1);
    return result;
  }

  includeNode(raw: RawScalar, valueSpan: Span): YNode {
    const at = span(this.source, raw.includeTagStart!, valueSpan.end);
    const included = this.options.include(raw.text.trim(), at);
    const size = this.options.sizes.get(included) ?? 1;
    return this.charge(size, at) ? included : scalar(null, at);
  }

  span(raw: { readonly start: number; readonly end: number }): Span {
    return span(this.source, raw.start, raw.end);
  }

  nullAt(raw: RawNode): YScalar {
    return scalar(null, this.span(raw));
  }
}

/**
 * A scalar's value as text. The yaml package's core schema gives strings, numbers, booleans, null
 * and, for huge integers, bigints; anything else (no tag svcgen accepts makes one) reads as ''.
 */
function scalarText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return '';
}
