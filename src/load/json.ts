/**
 * Strict JSON (RFC 8259) → located `YNode` tree, so problems in JSON schemas point at the line in
 * the schema file. Positions are offsets into `text`; `locate` turns them into spans (for schemas
 * written inline in RAML they are offsets into the RAML file).
 */
import type { Span } from '../diagnostics/source.js';
import { limits } from './budget.js';
import type { YEntry, YNode, YScalar } from './ynode.js';

export interface JsonProblem {
  readonly message: string;
  readonly offset: number;
  readonly end: number;
  /** A duplicate key is reported but does not stop reading. */
  readonly duplicateKey?: string;
}

export interface JsonResult {
  readonly node?: YNode;
  readonly problems: readonly JsonProblem[];
}

class Failure extends Error {
  constructor(
    message: string,
    readonly offset: number,
    readonly end: number = offset + 1,
  ) {
    super(message);
  }
}

export function parseJsonLocated(text: string, locate: (start: number, end: number) => Span): JsonResult {
  const reader = new JsonReader(text, locate);
  try {
    reader.space();
    const node = reader.value(0);
    reader.space();
    if (reader.pos < text.length) throw new Failure('unexpected content after the JSON value', reader.pos);
    return { node, problems: reader.problems };
  } catch (error) {
    if (!(error instanceof Failure)) throw error;
    return { problems: [...reader.problems, { message: error.message, offset: error.offset, end: error.end }] };
  }
}

class JsonReader {
  pos = 0;
  readonly problems: JsonProblem[] = [];

  constructor(
    readonly text: string,
    readonly locate: (start: number, end: number) => Span,
  ) {}

  /** Reports the comma before `close` (the reader stands on `close`, which ends the object or array). */
  trailingComma(close: '}' | ']'): void {
    const comma = this.text.lastIndexOf(',', this.pos - 1);
    this.problems.push({ message: `trailing comma before "${close}"`, offset: comma, end: comma + 1 });
  }

  space(): void {
    const t = this.text;
    for (;;) {
      const c = t.charCodeAt(this.pos);
      if (c === 32 || c === 9 || c === 10 || c === 13) this.pos++;
      else return;
    }
  }

  value(depth: number): YNode {
    if (depth > limits.maxDepth) throw new Failure(`nesting deeper than ${limits.maxDepth} levels`, this.pos);
    const c = this.text[this.pos];
    switch (c) {
      case '{':
        return this.object(depth);
      case '[':
        return this.array(depth);
      case '"': {
        const start = this.pos;
        const value = this.string();
        return this.scalar(value, start, 'quoted');
      }
      case undefined:
        throw new Failure('unexpected end of the JSON text', this.pos);
      default:
        return this.literal();
    }
  }

  scalar(value: string | number | boolean | null, start: number, style: YScalar['style']): YScalar {
    const text = typeof value === 'string' ? value : this.text.slice(start, this.pos);
    return { kind: 'scalar', value, text, style, span: this.locate(start, this.pos) };
  }

  object(depth: number): YNode {
    const start = this.pos++;
    const entries: YEntry[] = [];
    const seen = new Set<string>();
    this.space();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return { kind: 'map', entries, span: this.locate(start, this.pos) };
    }
    for (;;) {
      this.space();
      if (this.text[this.pos] !== '"') throw new Failure('expected a property name in double quotes', this.pos);
      const keyStart = this.pos;
      const name = this.string();
      const key = this.scalar(name, keyStart, 'quoted');
      if (seen.has(name))
        this.problems.push({ message: `duplicate key "${name}"`, offset: keyStart, end: this.pos, duplicateKey: name });
      seen.add(name);
      this.space();
      if (this.text[this.pos] !== ':') throw new Failure(`expected ":" after "${name}"`, this.pos);
      this.pos++;
      this.space();
      entries.push({ key, value: this.value(depth + 1) });
      this.space();
      if (this.text[this.pos] === ',') {
        this.pos++;
        this.space();
        if (this.text[this.pos] !== '}') continue;
        // A trailing comma is reported and read past: the next one is reported in the same run.
        this.trailingComma('}');
      }
      const c = this.text[this.pos];
      if (c === '}') {
        this.pos++;
        return { kind: 'map', entries, span: this.locate(start, this.pos) };
      }
      throw new Failure(
        c === undefined ? 'unterminated object: expected "}"' : 'expected "," or "}" after a property value',
        this.pos,
      );
    }
  }

  array(depth: number): YNode {
    const start = this.pos++;
    const items: YNode[] = [];
    this.space();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return { kind: 'seq', items, span: this.locate(start, this.pos) };
    }
    for (;;) {
      this.space();
      items.push(this.value(depth + 1));
      this.space();
      if (this.text[this.pos] === ',') {
        this.pos++;
        this.space();
        if (this.text[this.pos] !== ']') continue;
        this.trailingComma(']');
      }
      const c = this.text[this.pos];
      if (c === ']') {
        this.pos++;
        return { kind: 'seq', items, span: this.locate(start, this.pos) };
      }
      throw new Failure(
        c === undefined ? 'unterminated array: expected "]"' : 'expected "," or "]" after an array item',
        this.pos,
      );
    }
  }

  string(): string {
    const t = this.text;
    const start = this.pos;
    let out = '';
    let run = ++this.pos;
    for (;;) {
      const c = t.charCodeAt(this.pos);
      if (Number.isNaN(c)) throw new Failure('unterminated string', start, this.pos);
      if (c === 34 /* " */) {
        out += t.slice(run, this.pos);
        this.pos++;
        return out;
      }
      if (c < 0x20) throw new Failure('control character in a string (write it as an escape such as \\n)', this.pos);
      if (c === 92 /* \ */) {
        out += t.slice(run, this.pos);
        out += this.escape();
        run = this.pos;
        continue;
      }
      this.pos++;
    }
  }

  escape(): string {
    const t = this.text;
    const e = t[this.pos + 1];
    this.pos += 2;
    switch (e) {
      case '"':
        return '"';
      case '\\':
        return '\\';
      case '/':
        return '/';
      case 'b':
        return '\b';
      case 'f':
        return '\f';
      case 'n':
        return '\n';
      case 'r':
        return '\r';
      case 't':
        return '\t';
      case 'u': {
        const hex = t.slice(this.pos, this.pos + 4);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new Failure('invalid \\u escape', this.pos - 2, this.pos + 4);
        this.pos += 4;
        return String.fromCharCode(parseInt(hex, 16));
      }
      default:
        throw new Failure(`invalid escape \\${e ?? ''}`, this.pos - 2, this.pos);
    }
  }

  literal(): YScalar {
    const start = this.pos;
    const match = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(
      this.text.slice(start, start + 400),
    );
    if (!match || match[0] === '') {
      const word = /^[^\s,:\]}]*/.exec(this.text.slice(start, start + 40))?.[0] || this.text[start] || '';
      throw new Failure(
        `unexpected ${word.startsWith("'") ? 'single quote (JSON strings use double quotes)' : `"${word}"`}`,
        start,
        start + Math.max(1, word.length),
      );
    }
    this.pos += match[0].length;
    const raw = match[0];
    const value = raw === 'true' ? true : raw === 'false' ? false : raw === 'null' ? null : Number(raw);
    return this.scalar(value, start, 'plain');
  }
}
