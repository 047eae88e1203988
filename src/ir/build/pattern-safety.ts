/**
 * JSON-schema `pattern`s reach the generated service's validator as JavaScript regular
 * expressions, which backtrack: a pattern such as `(a+)+$` takes exponential time on a string of
 * thirty `a`s and a `!`, and one request then stops the whole server. This finds the two shapes
 * that cause it, at generation time:
 *
 * - a repeated part that itself repeats (star height above 1: `(a+)+`, `(\w*\s?)*`);
 * - a repeated choice whose alternatives can start with the same character (`(a|ab)*`, `(\d|\w)+`).
 *
 * It is a conservative reading, not a proof: a pattern it accepts may still be slow on long input
 * (polynomial backtracking such as `\s*x\s*$`), which is why the service also bounds the length of
 * the text a pattern sees (lib/http/app.ts).
 */

export interface PatternProblem {
  readonly message: string;
  /** True: valid but can take exponential time; false: not a regular expression at all. */
  readonly slow: boolean;
}

/** Why `pattern` is unsafe or unusable, or undefined when it is fine. */
export function patternProblem(pattern: string): PatternProblem | undefined {
  try {
    new RegExp(pattern, 'u');
  } catch (error) {
    return {
      message: `is not a valid regular expression (${(error as Error).message.replace(/^Invalid regular expression: /, '')})`,
      slow: false,
    };
  }
  let tree: Node;
  try {
    tree = new Parser(pattern).parse();
  } catch {
    // Syntax this reader does not know (valid for JavaScript): no verdict.
    return undefined;
  }
  const slow = findBacktracking(tree);
  return slow ? { message: slow, slow: true } : undefined;
}

type Node =
  | { kind: 'chars'; set: CharSet }
  | { kind: 'empty' }
  | { kind: 'sequence'; items: readonly Node[] }
  | { kind: 'choice'; options: readonly Node[] }
  | { kind: 'repeat'; body: Node; min: number; unbounded: boolean; text: string };

/** Quantifiers with no upper bound, or one this large, can backtrack as badly. */
const LARGE_REPEAT = 16;

function findBacktracking(node: Node): string | undefined {
  switch (node.kind) {
    case 'chars':
    case 'empty':
      return undefined;
    case 'sequence':
      return firstOf(node.items.map(findBacktracking));
    case 'choice':
      return firstOf(node.options.map(findBacktracking));
    case 'repeat': {
      const inner = findBacktracking(node.body);
      if (inner) return inner;
      if (!node.unbounded) return undefined;
      const nested = repeatInside(node.body, firstChars(node.body));
      if (nested)
        return `repeats ${shown(nested.text)} inside ${shown(node.text)}, and both can take the same characters: matching can take exponential time`;
      const overlap = overlappingChoice(node.body);
      if (overlap)
        return `repeats a choice whose alternatives can start alike (${overlap}) in ${shown(node.text)}: matching can take exponential time`;
      return undefined;
    }
  }
}

/** A part of the pattern as a message quotes it: long ones shortened. */
function shown(text: string): string {
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

function firstOf(values: readonly (string | undefined)[]): string | undefined {
  return values.find((v) => v !== undefined);
}

/**
 * A repetition inside an outer one that could go on eating the characters that come right after
 * it (`follow`; at the end of the outer one, those that start its next round): then the text
 * splits between the two in many ways, and a failed match tries them all. `(-[a-z]+)*` is fine
 * (`[a-z]+` never eats the `-` that starts the next round); `(a+)+` and `(\w+\.?)*` are not.
 */
function repeatInside(node: Node, follow: CharSet): Extract<Node, { kind: 'repeat' }> | undefined {
  switch (node.kind) {
    case 'repeat': {
      if (node.unbounded && canMatchText(node.body) && intersect(allChars(node.body), follow)) return node;
      return repeatInside(node.body, union(follow, firstChars(node.body)));
    }
    case 'sequence': {
      let after = follow;
      for (let i = node.items.length - 1; i >= 0; i--) {
        const item = node.items[i]!;
        const found = repeatInside(item, after);
        if (found) return found;
        after = canBeEmpty(item) ? union(firstChars(item), after) : firstChars(item);
      }
      return undefined;
    }
    case 'choice':
      return node.options.map((n) => repeatInside(n, follow)).find(Boolean);
    default:
      return undefined;
  }
}

/** Every character `node` can match, anywhere in it. */
function allChars(node: Node): CharSet {
  switch (node.kind) {
    case 'chars':
      return node.set;
    case 'empty':
      return NO_CHARS;
    case 'sequence':
      return node.items.map(allChars).reduce(union, NO_CHARS);
    case 'choice':
      return node.options.map(allChars).reduce(union, NO_CHARS);
    case 'repeat':
      return allChars(node.body);
  }
}

function overlappingChoice(node: Node): string | undefined {
  if (node.kind === 'sequence') return firstOf(node.items.map(overlappingChoice));
  if (node.kind === 'repeat') return overlappingChoice(node.body);
  if (node.kind !== 'choice') return undefined;
  // Each alternative against all those before it: linear in their number.
  const starts = node.options.map(firstChars);
  let before = NO_CHARS;
  for (let j = 0; j < starts.length; j++) {
    if (intersect(starts[j]!, before))
      return `alternatives ${starts.findIndex((set) => intersect(set, starts[j]!)) + 1} and ${j + 1}`;
    before = union(before, starts[j]!);
  }
  return firstOf(node.options.map(overlappingChoice));
}

function canMatchText(node: Node): boolean {
  switch (node.kind) {
    case 'chars':
      return true;
    case 'empty':
      return false;
    case 'sequence':
      return node.items.some(canMatchText);
    case 'choice':
      return node.options.some(canMatchText);
    case 'repeat':
      return canMatchText(node.body);
  }
}

/** The characters a match of `node` can start with (none for one that matches no text). */
function firstChars(node: Node): CharSet {
  switch (node.kind) {
    case 'chars':
      return node.set;
    case 'empty':
      return NO_CHARS;
    case 'sequence': {
      let out = NO_CHARS;
      for (const item of node.items) {
        out = union(out, firstChars(item));
        if (!canBeEmpty(item)) break;
      }
      return out;
    }
    case 'choice':
      return node.options.map(firstChars).reduce(union, NO_CHARS);
    case 'repeat':
      return firstChars(node.body);
  }
}

function canBeEmpty(node: Node): boolean {
  switch (node.kind) {
    case 'chars':
      return false;
    case 'empty':
      return true;
    case 'sequence':
      return node.items.every(canBeEmpty);
    case 'choice':
      return node.options.some(canBeEmpty);
    case 'repeat':
      return node.min === 0 || canBeEmpty(node.body);
  }
}

/**
 * Sets of characters, as bits over a sample of them: all of Latin-1, and one character of each
 * other kind a class tends to name (letters and digits of other scripts, spaces, separators).
 * Two classes overlap for this reading when they share a sampled character.
 */
type CharSet = Uint32Array;

const SAMPLE = [
  ...Array.from({ length: 256 }, (_, code) => String.fromCharCode(code)),
  '\u0100',
  '\u0416',
  '\u05d0',
  '\u0663',
  '\u0939',
  '\u2003',
  '\u2028',
  '\u3000',
  '\u4e2d',
  '\uac00',
  '\ufeff',
  '\uff10',
  '\ud83d',
];
const WORDS = Math.ceil(SAMPLE.length / 32);
const NO_CHARS: CharSet = new Uint32Array(WORDS);

function charSet(oneChar: RegExp): CharSet {
  const set = new Uint32Array(WORDS);
  SAMPLE.forEach((c, i) => {
    if (oneChar.test(c)) set[i >>> 5]! |= 1 << (i & 31);
  });
  return set;
}

function union(a: CharSet, b: CharSet): CharSet {
  return a.map((word, i) => word | b[i]!);
}

function intersect(a: CharSet, b: CharSet): boolean {
  return a.some((word, i) => (word & b[i]!) !== 0);
}

/** A reader of the regular expressions JSON schemas use (ECMAScript syntax, `u` flag). */
class Parser {
  private at = 0;

  constructor(readonly source: string) {}

  parse(): Node {
    const node = this.choice();
    if (this.at < this.source.length) throw new Error(`unexpected ${this.source[this.at]}`);
    return node;
  }

  private choice(): Node {
    const options = [this.sequence()];
    while (this.peek() === '|') {
      this.at++;
      options.push(this.sequence());
    }
    return options.length === 1 ? options[0]! : { kind: 'choice', options };
  }

  private sequence(): Node {
    const items: Node[] = [];
    while (this.at < this.source.length && this.peek() !== '|' && this.peek() !== ')') {
      const start = this.at;
      const atom = this.atom();
      items.push(this.quantified(atom, start));
    }
    return items.length === 1 ? items[0]! : { kind: 'sequence', items };
  }

  private quantified(atom: Node, start: number): Node {
    const c = this.peek();
    let min: number;
    let max: number;
    if (c === '*' || c === '+' || c === '?') {
      this.at++;
      [min, max] = c === '*' ? [0, Infinity] : c === '+' ? [1, Infinity] : [0, 1];
    } else if (c === '{' && /^\{\d+(,\d*)?\}/.test(this.source.slice(this.at))) {
      const [text, low, comma, high] = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.at))!;
      this.at += text.length;
      min = Number(low);
      max = comma === undefined ? min : high === undefined || high === '' ? Infinity : Number(high);
    } else return atom;
    if (this.peek() === '?') this.at++;
    const repeat: Node = {
      kind: 'repeat',
      body: atom,
      min,
      unbounded: max >= LARGE_REPEAT,
      text: this.source.slice(start, this.at),
    };
    return this.quantified(repeat, start);
  }

  private atom(): Node {
    const c = this.source[this.at++]!;
    switch (c) {
      case '(':
        return this.group();
      case '[':
        return this.charClass();
      case '\\':
        return this.escape();
      case '^':
      case '$':
        return { kind: 'empty' };
      case '.':
        return ANY_CHAR;
      default:
        return { kind: 'chars', set: charSet(literal(c)) };
    }
  }

  private group(): Node {
    const lookaround = /^\?(<?[=!])/.exec(this.source.slice(this.at));
    if (lookaround) this.at += lookaround[0].length;
    else if (this.source.startsWith('?:', this.at)) this.at += 2;
    else if (this.source.startsWith('?<', this.at)) this.at = this.source.indexOf('>', this.at) + 1;
    const body = this.choice();
    if (this.source[this.at++] !== ')') throw new Error('unclosed group');
    return lookaround ? { kind: 'empty' } : body;
  }

  private charClass(): Node {
    const start = this.at - 1;
    while (this.at < this.source.length) {
      const c = this.source[this.at++];
      if (c === '\\') this.at++;
      else if (c === ']' && this.at - 1 > start + 1 + (this.source[start + 1] === '^' ? 1 : 0)) {
        return { kind: 'chars', set: charSet(new RegExp(this.source.slice(start, this.at), 'u')) };
      }
    }
    throw new Error('unclosed class');
  }

  private escape(): Node {
    const c = this.source[this.at]!;
    if ('bB'.includes(c)) {
      this.at++;
      return { kind: 'empty' };
    }
    // A back reference matches text decided earlier: treated as any text.
    if (/[1-9]/.test(c)) {
      this.at++;
      return ANY_CHAR;
    }
    const escape = /^(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|c[A-Za-z]|[pP]\{[^}]*\}|k<[^>]*>|.)/u.exec(
      this.source.slice(this.at),
    )![0];
    this.at += escape.length;
    if (escape.startsWith('k<')) return ANY_CHAR;
    return { kind: 'chars', set: charSet(new RegExp(`\\${escape}`, 'u')) };
  }

  private peek(): string | undefined {
    return this.source[this.at];
  }
}

const ANY_CHAR: Node = { kind: 'chars', set: charSet(/./u) };

function literal(c: string): RegExp {
  return new RegExp(c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'), 'u');
}
