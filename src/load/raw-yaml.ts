/**
 * The YAML tree both YAML readers produce (the fast reader and the `yaml` package adapter):
 * plain data with source offsets, before includes are resolved. Offsets follow the `yaml`
 * package's conventions, so both readers give identical trees (a test holds them to it).
 */
import type { ScalarValue } from './ynode.js';

export interface RawScalar {
  readonly kind: 'scalar';
  readonly value: ScalarValue;
  /** As written for plain scalars; the decoded value otherwise. */
  readonly text: string;
  readonly style: 'plain' | 'quoted' | 'block';
  readonly start: number;
  readonly end: number;
  /** `!include` tag: where the tag starts (the span of an include runs from the tag to the path's end). */
  readonly includeTagStart?: number;
  /** A tag svcgen does not know; already reported by the reader. */
  readonly unknownTag?: boolean;
}

export interface RawMap {
  readonly kind: 'map';
  readonly entries: readonly RawEntry[];
  readonly start: number;
  readonly end: number;
}

export interface RawEntry {
  readonly key: RawScalar;
  readonly value: RawNode;
}

export interface RawSeq {
  readonly kind: 'seq';
  readonly items: readonly RawNode[];
  readonly start: number;
  readonly end: number;
}

/** A collection that carries `!include` (always an error, reported when converting). */
export interface RawIncludeOnCollection {
  readonly kind: 'include-on-collection';
  readonly start: number;
  readonly end: number;
}

/** `*name`: the aliased node is shared, and each alias counts toward the size limit again. */
export interface RawAlias {
  readonly kind: 'alias';
  readonly target: RawNode;
  readonly start: number;
  readonly end: number;
}

export type RawNode = RawScalar | RawMap | RawSeq | RawIncludeOnCollection | RawAlias;
