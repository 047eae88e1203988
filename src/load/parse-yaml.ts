/**
 * One YAML file → one located `YNode` tree, with every problem reported as a diagnostic.
 * `!include` scalars are handed to the caller (the loader), which splices in the included content.
 */
import {
  Alias,
  isAlias,
  isMap as isYamlMap,
  isPair,
  isScalar as isYamlScalar,
  isSeq as isYamlSeq,
  parseAllDocuments,
  type Document,
  type Node as YamlNode,
  type Scalar,
} from 'yaml';
import type { DiagnosticBag } from '../diagnostics/diagnostic.js';
import { span, type SourceFile, type Span } from '../diagnostics/source.js';
import { limits } from './budget.js';
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

const includeTag = { tag: INCLUDE_TAG, resolve: (value: string) => value };

/** Parse a YAML file. Returns undefined when the file cannot be used (its errors are reported). */
export function parseYaml(options: ParseYamlOptions): YNode | undefined {
  const { source, diagnostics } = options;
  let documents: Document.Parsed[];
  try {
    documents = parseAllDocuments(source.text, {
      customTags: [includeTag],
      uniqueKeys: true,
      prettyErrors: false,
      strict: true,
    }) as Document.Parsed[];
  } catch (error) {
    // The yaml package recurses while composing; absurd nesting overflows the stack.
    if (error instanceof RangeError) {
      diagnostics.report('SVC1009', `the file nests too deeply to be read`, { span: span(source, 0, 0) });
      return undefined;
    }
    throw error;
  }
  if (!Array.isArray(documents)) documents = [documents];
  const first = documents[0];
  if (!first) return emptyNode(source);
  for (const extra of documents.slice(1)) {
    const at = extra.range[0];
    diagnostics.report('SVC1006', 'a RAML file holds one YAML document; found another one', { span: span(source, at, at + 3) });
  }
  const ok = reportYamlProblems(first, source, diagnostics);
  if (!ok) return undefined;
  const converter = new Converter(options, first);
  return first.contents ? converter.node(first.contents, 0) : emptyNode(source);
}

function emptyNode(source: SourceFile): YScalar {
  return scalar(null, span(source, 0, 0));
}

/** Reports parse errors and warnings; returns false when the document cannot be used. */
function reportYamlProblems(doc: Document.Parsed, source: SourceFile, diagnostics: DiagnosticBag): boolean {
  for (const error of doc.errors) {
    const [start, end] = error.pos;
    const message = firstLine(error.message);
    if (/call stack/i.test(message)) {
      // The yaml package recurses while composing and reports absurd nesting this way.
      diagnostics.report('SVC1009', 'the file nests too deeply to be read', { span: span(source, start, end) });
    } else if (error.code === 'DUPLICATE_KEY') {
      const key = /^[^:\r\n]*/.exec(source.text.slice(start))?.[0].trim() ?? '';
      diagnostics.report('SVC1005', key ? `duplicate key "${key}"` : 'duplicate key', {
        span: span(source, start, start + Math.max(1, key.length)),
        hint: 'a repeated key would silently replace the first one; merge the two entries',
      });
    } else {
      diagnostics.report('SVC1004', message, { span: span(source, start, end) });
    }
  }
  for (const warning of doc.warnings) {
    const [start, end] = warning.pos;
    if (warning.code === 'TAG_RESOLVE_FAILED') {
      const tag = source.text.slice(start, end).match(/^!\S*/)?.[0] ?? firstLine(warning.message);
      if (tag === INCLUDE_TAG) continue; // `!include` on a mapping or list: reported when converting
      diagnostics.report('SVC1007', `unknown tag ${tag}`, {
        span: span(source, start, end),
        hint: tagHint(tag),
      });
    } else {
      diagnostics.report('SVC1004', firstLine(warning.message), { span: span(source, start, end), severity: 'warning' });
    }
  }
  return !doc.errors.some((e) => e.code !== 'DUPLICATE_KEY');
}

function tagHint(tag: string): string | undefined {
  const rest = tag.slice(INCLUDE_TAG.length);
  if (tag.startsWith(INCLUDE_TAG) && /[/.]/.test(rest)) return `put a space between the tag and the path: \`${INCLUDE_TAG} ${rest}\``;
  if (tag.startsWith('!inc') || tag.startsWith('!Inc')) return `did you mean \`${INCLUDE_TAG}\`?`;
  return 'RAML understands only `!include`';
}

function firstLine(message: string): string {
  const line = message.split('\n')[0] ?? message;
  return line.replace(/ at line \d+, column \d+:?$/, '');
}

class Converter {
  readonly #memo = new Map<YamlNode, YNode>();
  #size = 0;
  #tooLarge = false;
  #tooDeep = false;

  constructor(
    readonly options: ParseYamlOptions,
    readonly doc: Document.Parsed,
  ) {}

  get source(): SourceFile {
    return this.options.source;
  }

  node(node: YamlNode, depth: number): YNode {
    const memo = this.#memo.get(node);
    if (memo) return this.reuse(memo, node);
    const built = this.build(node, depth);
    this.#memo.set(node, built);
    return built;
  }

  /** A node seen before (through an alias): shared, but it still counts toward the size limit. */
  reuse(node: YNode, at: YamlNode): YNode {
    const size = this.options.sizes.get(node) ?? 1;
    return this.charge(size, this.spanOf(at)) ? node : this.nullAt(at);
  }

  charge(size: number, at: Span): boolean {
    if (this.#tooLarge) return false;
    this.#size += size;
    if (this.#size <= limits.maxNodes) return true;
    this.#tooLarge = true;
    if (this.options.limitState.reported) return false;
    this.options.limitState.reported = true;
    this.options.diagnostics.report('SVC1008', `the document expands to more than ${limits.maxNodes.toLocaleString('en-US')} nodes`, {
      span: at,
      hint: 'look for aliases or includes that repeat large parts many times',
    });
    return false;
  }

  build(node: YamlNode, depth: number): YNode {
    if (depth > limits.maxDepth) {
      if (!this.#tooDeep && !this.options.limitState.reported) {
        this.#tooDeep = true;
        this.options.limitState.reported = true;
        this.options.diagnostics.report('SVC1009', `nesting deeper than ${limits.maxDepth} levels`, { span: this.spanOf(node) });
      }
      return this.nullAt(node);
    }
    if (isAlias(node)) return this.alias(node, depth);
    if (isYamlScalar(node)) return this.scalarNode(node);
    if (isYamlMap(node)) return this.map(node, depth);
    if (isYamlSeq(node)) return this.seq(node, depth);
    return this.nullAt(node);
  }

  alias(node: Alias, depth: number): YNode {
    const target = node.resolve(this.doc);
    if (!target) return this.nullAt(node);
    // Repeated aliases share one converted tree, but each use counts toward the size limit.
    const converted = this.#memo.get(target);
    return converted ? this.reuse(converted, node) : this.node(target, depth);
  }

  scalarNode(node: Scalar): YNode {
    const at = this.spanOf(node);
    if (node.tag === INCLUDE_TAG) return this.includeNode(node, at);
    if (!this.charge(1, at)) return scalar(null, at);
    // An unknown tag was reported while parsing; its value means nothing to us.
    if (node.tag && !node.tag.startsWith('tag:yaml.org,2002:')) return { ...scalar(null, at), alreadyReported: true };
    const value = node.value;
    const plainValue: YScalar['value'] =
      value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : String(value);
    const style = node.type === 'PLAIN' ? 'plain' : node.type === 'BLOCK_FOLDED' || node.type === 'BLOCK_LITERAL' ? 'block' : 'quoted';
    const text = node.type === 'PLAIN' ? (node.source ?? (plainValue === null ? '' : String(plainValue))) : String(plainValue ?? '');
    const result: YScalar = { kind: 'scalar', value: plainValue, text, style, span: at };
    this.options.sizes.set(result, 1);
    return result;
  }

  includeNode(node: Scalar, valueSpan: Span): YNode {
    const tagStart = this.source.text.lastIndexOf(INCLUDE_TAG, valueSpan.start);
    const at = tagStart >= 0 && valueSpan.start - tagStart < 200 ? span(this.source, tagStart, valueSpan.end) : valueSpan;
    const path = typeof node.value === 'string' ? node.value.trim() : '';
    const included = this.options.include(path, at);
    const size = this.options.sizes.get(included) ?? 1;
    return this.charge(size, at) ? included : scalar(null, at);
  }

  map(node: import('yaml').YAMLMap, depth: number): YNode {
    const at = this.spanOf(node);
    if (node.tag === INCLUDE_TAG) return this.includeOnCollection(at);
    if (!this.charge(1, at)) return scalar(null, at);
    const entries: YEntry[] = [];
    let size = 1;
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      const key = this.key(pair.key as YamlNode | null);
      if (!key) continue;
      const value = pair.value ? this.node(pair.value as YamlNode, depth + 1) : scalar(null, span(this.source, key.span.end, key.span.end));
      size += (this.options.sizes.get(value) ?? 1) + 1;
      entries.push({ key, value });
    }
    const result: YNode = { kind: 'map', entries, span: at };
    this.options.sizes.set(result, size);
    return result;
  }

  seq(node: import('yaml').YAMLSeq, depth: number): YNode {
    const at = this.spanOf(node);
    if (node.tag === INCLUDE_TAG) return this.includeOnCollection(at);
    if (!this.charge(1, at)) return scalar(null, at);
    const items: YNode[] = [];
    let size = 1;
    for (const item of node.items) {
      const value = item ? this.node(item as YamlNode, depth + 1) : scalar(null, at);
      size += this.options.sizes.get(value) ?? 1;
      items.push(value);
    }
    const result: YNode = { kind: 'seq', items, span: at };
    this.options.sizes.set(result, size);
    return result;
  }

  includeOnCollection(at: Span): YNode {
    this.options.diagnostics.report('SVC1014', `${INCLUDE_TAG} must be followed by a file path`, { span: at });
    return scalar(null, at);
  }

  /** Keys are scalars; anything else (and the YAML 1.1 merge key `<<`) is refused. */
  key(node: YamlNode | null): YScalar | undefined {
    if (node === null) {
      return undefined;
    }
    if (!isYamlScalar(node) || node.tag === INCLUDE_TAG) {
      this.options.diagnostics.report('SVC1006', 'mapping keys must be plain scalars', { span: this.spanOf(node) });
      return undefined;
    }
    const at = this.spanOf(node);
    const text = node.type === 'PLAIN' ? (node.source ?? String(node.value ?? '')) : String(node.value ?? '');
    if (text === '<<' && node.type === 'PLAIN') {
      this.options.diagnostics.report('SVC1006', 'YAML merge keys (`<<`) are not part of YAML 1.2', {
        span: at,
        hint: 'write the keys out, or use a resource type or trait',
      });
      return undefined;
    }
    const value = node.value === null || typeof node.value === 'number' || typeof node.value === 'boolean' ? node.value : text;
    return { kind: 'scalar', value: value as YScalar['value'], text, style: node.type === 'PLAIN' ? 'plain' : 'quoted', span: at };
  }

  spanOf(node: YamlNode | Alias): Span {
    const range = node.range;
    if (!range) return span(this.source, 0, 0);
    return span(this.source, range[0], range[1]);
  }

  nullAt(node: YamlNode | Alias): YScalar {
    return scalar(null, this.spanOf(node));
  }
}
