/**
 * A text sample that meets a JSON Schema `pattern` (`^[A-Z]{2}-\d{4}$` → `AA-0001`, `AA-0007`, …),
 * for the generated tests and the OpenAPI examples: a sample that fails the pattern made a fresh
 * project's `npm test` fail (a probe's barcodes). The pattern is read as far as a sample needs:
 * literals, escapes, classes, `.`, groups (their first alternative), and quantifiers (their
 * least count; a digit that may repeat, up to six). The number `n` goes in the last
 * run of places a digit may take, so that unique fields get a value per `n`; the caller checks
 * the samples against the pattern itself and keeps its own where they fail.
 */

/** A sample of `pattern`: `prefix`, then `n` in `width` digits, then `suffix`; none when it is not read. */
export interface PatternTemplate {
  readonly prefix: string;
  readonly width: number;
  readonly suffix: string;
}

interface Place {
  readonly char: string;
  /** Whether a digit may stand here. */
  readonly digit: boolean;
}

/** How many digits of `n` a run of places holds at most (the rest are zeros before it). */
const MOST_DIGITS = 6;

export function patternTemplate(pattern: string): PatternTemplate | undefined {
  let places: Place[];
  try {
    places = new Reader(pattern).sequence();
  } catch {
    return undefined;
  }
  let end = places.length;
  while (end > 0 && !places[end - 1]!.digit) end--;
  let start = end;
  while (start > 0 && places[start - 1]!.digit && end - start < MOST_DIGITS) start--;
  const text = (from: number, to: number) =>
    places
      .slice(from, to)
      .map((p) => (p.digit ? '0' : p.char))
      .join('');
  return { prefix: text(0, start), width: end - start, suffix: text(end, places.length) };
}

/** The sample for `n`. */
export function templateValue(template: PatternTemplate, n: number): string {
  const { prefix, width, suffix } = template;
  return `${prefix}${width ? String(n).padStart(width, '0').slice(-width) : ''}${suffix}`;
}

class Unreadable extends Error {}

class Reader {
  #at = 0;
  constructor(readonly pattern: string) {}

  /** The places of alternatives up to `)` or the end: the first alternative's. */
  sequence(): Place[] {
    const places: Place[] = [];
    let first = true;
    while (this.#at < this.pattern.length && this.pattern[this.#at] !== ')') {
      if (this.pattern[this.#at] === '|') {
        first = false;
        this.#at++;
        continue;
      }
      const atom = this.atom();
      const [least, most] = this.quantifier();
      if (!first) continue;
      // A digit that may repeat takes as many places as `n` needs, as far as the pattern lets it.
      const digit = atom.length === 1 && atom[0]!.digit;
      const count = digit ? Math.max(least, Math.min(most, MOST_DIGITS)) : least;
      for (let i = 0; i < count; i++) places.push(...atom);
    }
    return places;
  }

  atom(): Place[] {
    const c = this.pattern[this.#at++]!;
    switch (c) {
      case '^':
      case '$':
        return [];
      case '(': {
        if (this.pattern[this.#at] === '?') {
          if (this.pattern[this.#at + 1] !== ':') throw new Unreadable();
          this.#at += 2;
        }
        const inner = this.sequence();
        if (this.pattern[this.#at++] !== ')') throw new Unreadable();
        return inner;
      }
      case '[':
        return [this.charClass()];
      case '.':
        return [{ char: 'a', digit: true }];
      case '\\':
        return [this.escape(this.pattern[this.#at++])];
      default:
        if ('*+?{'.includes(c)) throw new Unreadable();
        return [{ char: c, digit: false }];
    }
  }

  escape(c: string | undefined): Place {
    switch (c) {
      case undefined:
        throw new Unreadable();
      case 'd':
        return { char: '0', digit: true };
      case 'w':
        return { char: 'a', digit: true };
      case 's':
        return { char: ' ', digit: false };
      case 'D':
      case 'W':
      case 'S':
      case 'b':
      case 'B':
      case 'p':
      case 'P':
      case 'u':
      case 'x':
        throw new Unreadable();
      default:
        return { char: c, digit: false };
    }
  }

  /** `[…]`: its first character (or range's start), and whether it takes digits. */
  charClass(): Place {
    if (this.pattern[this.#at] === '^') throw new Unreadable();
    let first: string | undefined;
    let digit = false;
    while (this.pattern[this.#at] !== ']') {
      if (this.#at >= this.pattern.length) throw new Unreadable();
      const c = this.pattern[this.#at++]!;
      if (c === '\\') {
        const escaped = this.escape(this.pattern[this.#at++]);
        digit ||= escaped.digit;
        first ??= escaped.char;
        continue;
      }
      let last = c;
      if (this.pattern[this.#at] === '-' && this.pattern[this.#at + 1] !== ']') {
        last = this.pattern[this.#at + 1]!;
        this.#at += 2;
      }
      digit ||= c <= '0' && last >= '9';
      first ??= c;
    }
    this.#at++;
    if (first === undefined) throw new Unreadable();
    return { char: first, digit };
  }

  /** The least and most counts of the quantifier after an atom (1 and 1 without one). */
  quantifier(): [number, number] {
    const c = this.pattern[this.#at];
    if (c === '?') return this.#lazy([0, 1]);
    if (c === '*') return this.#lazy([0, Infinity]);
    if (c === '+') return this.#lazy([1, Infinity]);
    if (c !== '{') return [1, 1];
    const m = /^\{(\d+)(,(\d*))?\}/.exec(this.pattern.slice(this.#at));
    if (!m) throw new Unreadable();
    this.#at += m[0].length - 1;
    const least = Number(m[1]);
    return this.#lazy([least, m[2] === undefined ? least : m[3] ? Number(m[3]) : Infinity]);
  }

  #lazy(count: [number, number]): [number, number] {
    this.#at++;
    if (this.pattern[this.#at] === '?') this.#at++;
    return count;
  }
}
