/**
 * The located YAML tree every later stage reads. It is our own small, immutable node type rather
 * than the `yaml` package's: includes are already spliced in (each node keeps the span of the file
 * it came from), aliases are resolved, and nodes copied out of resource types and traits keep the
 * span of the template they came from, so any diagnostic can point at the right file and line.
 */
import type { SourceFile, Span } from '../diagnostics/source.js';

export type ScalarValue = string | number | boolean | null;

export interface YScalar {
  readonly kind: 'scalar';
  /** The value as YAML 1.2 (core schema) reads it: `10` is a number, `yes` a string, `~` null. */
  readonly value: ScalarValue;
  /**
   * The scalar as written: the source text of a plain scalar (`1.0` stays `1.0`), the decoded
   * text of a quoted or block scalar, or the content of a text include. RAML properties that are
   * strings use this, so `version: 1.0` is the string `1.0`.
   */
  readonly text: string;
  readonly style: 'plain' | 'quoted' | 'block' | 'include';
  readonly span: Span;
  /** For `!include` of a non-YAML file: the included file, whose text is `value`. */
  readonly includedFile?: SourceFile;
  /**
   * The value is unusable and that was already reported (an `!include` that failed, a value with
   * an unknown tag); readers skip it instead of reporting follow-up errors.
   */
  readonly alreadyReported?: true;
}

export interface YMap {
  readonly kind: 'map';
  readonly entries: readonly YEntry[];
  readonly span: Span;
}

export interface YEntry {
  readonly key: YScalar;
  readonly value: YNode;
}

export interface YSeq {
  readonly kind: 'seq';
  readonly items: readonly YNode[];
  readonly span: Span;
}

export type YNode = YScalar | YMap | YSeq;

export function isMap(node: YNode | undefined): node is YMap {
  return node?.kind === 'map';
}
export function isSeq(node: YNode | undefined): node is YSeq {
  return node?.kind === 'seq';
}
export function isScalar(node: YNode | undefined): node is YScalar {
  return node?.kind === 'scalar';
}
export function isAlreadyReported(node: YNode | undefined): boolean {
  return node?.kind === 'scalar' && node.alreadyReported === true;
}
export function isNull(node: YNode | undefined): boolean {
  return node?.kind === 'scalar' && node.value === null;
}

/** The entry with the given key text, if any. */
export function entry(map: YMap, key: string): YEntry | undefined {
  return map.entries.find((e) => e.key.text === key);
}

export function get(map: YMap | undefined, key: string): YNode | undefined {
  return map ? entry(map, key)?.value : undefined;
}

export function scalar(value: ScalarValue, span: Span, text: string = value === null ? '' : String(value)): YScalar {
  return { kind: 'scalar', value, text, style: 'plain', span };
}

/** Plain JavaScript value of a node (for settings blobs, examples and tests). Keys keep their order. */
export function toPlain(node: YNode): unknown {
  switch (node.kind) {
    case 'scalar':
      return node.value;
    case 'seq':
      return node.items.map(toPlain);
    case 'map': {
      const out: Record<string, unknown> = {};
      // defineProperty, not assignment: a `__proto__` key must stay an ordinary property.
      for (const e of node.entries) {
        Object.defineProperty(out, e.key.text, {
          value: toPlain(e.value),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    }
  }
}
