/**
 * Numbers of a JSON body that JSON.parse does not keep: one too large for a float (`1e400`, read
 * as Infinity, stored and answered as null), one too small (`1e-400`, read as 0), and a whole
 * number past 2^53 that no float holds (`9223372036854775807`, read as ...776000). Typed fields
 * refused some of them by their bounds; a dict's or a list's values were stored changed, with a
 * 200 (a probe's). Found in the body's text, where the digits sent still are.
 */

/** A lossy number: where it is (keys from the body's top), the number as sent, and what it became. */
export interface LossyNumber {
  readonly path: readonly string[];
  readonly sent: string;
  readonly problem: string;
}

/**
 * Only a body with a long run of digits, an exponent of 15 or more, or a three-digit one can hold
 * one (a whole number past 2^53 needs 16 digits, or an exponent): most are not scanned.
 */
const MAY_HOLD = /\d{16}|[eE]\+?(?:1[5-9]|[2-9]\d|\d{3})|[eE]-\d{3}/;
const STRING = /"(?:[^"\\]|\\.)*"/g;
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/** The first number of `text` (valid JSON, parsed as `value`) that parsing changed, or undefined. */
export function lossyNumber(text: string, value: unknown): LossyNumber | undefined {
  if (!MAY_HOLD.test(text)) return undefined;
  const sent = text.replace(STRING, '""').match(NUMBER) ?? [];
  let problem: string | undefined;
  const index = sent.findIndex((token) => (problem = problemOf(token)) !== undefined);
  if (index === -1 || problem === undefined) return undefined;
  const token = sent[index]!;
  // The numbers of the parsed value in the order of the text: object keys keep it, but for keys that
  // are whole numbers, which come first. Where the pairing missed, only the body's top is named.
  const paths = numberPaths(value);
  const paired = paths.length === sent.length ? paths[index]! : undefined;
  const path = paired && valueAt(value, paired) === Number(token) ? paired : [];
  return { path, sent: token.length > 40 ? `${token.slice(0, 40)}…` : token, problem };
}

function problemOf(token: string): string | undefined {
  const value = Number(token);
  if (!Number.isFinite(value)) return 'is too large for a JSON number';
  if (value === 0)
    return /[1-9]/.test(token.replace(/[eE].*$/, '')) ? 'is too small for a JSON number (it reads as 0)' : undefined;
  // Past 2^53 a float keeps whole numbers only, and not all of them: the token is kept where it is
  // the number the float is written back as (`1e300` is; 9007199254740993, however written, reads as
  // 9007199254740992: 9007199254740993.0 and 9.007199254740993e15 were stored so, a probe's).
  if (Number.isInteger(value) && !Number.isSafeInteger(value) && exactValue(token) !== exactValue(String(value)))
    return `is a number past 2^53, which a JSON number does not keep exactly (it reads as ${String(value)})`;
  return undefined;
}

/** The number `token` writes, where it is a whole one; undefined where it has a fraction. */
function exactValue(token: string): bigint | undefined {
  const [, sign, whole, fraction = '', exponent = '0'] = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([-+]?\d+))?$/.exec(token)!;
  const digits = BigInt(`${whole}${fraction}`);
  const shift = Number(exponent) - fraction.length;
  const magnitude =
    shift >= 0
      ? digits * 10n ** BigInt(shift)
      : digits % 10n ** BigInt(-shift) === 0n
        ? digits / 10n ** BigInt(-shift)
        : undefined;
  return magnitude === undefined ? undefined : sign ? -magnitude : magnitude;
}

/** The path of each number in `value`, depth first, in key order. */
function numberPaths(value: unknown): string[][] {
  const found: string[][] = [];
  const pending: { value: unknown; path: string[] }[] = [{ value, path: [] }];
  while (pending.length) {
    const next = pending.pop()!;
    if (typeof next.value === 'number') found.push(next.path);
    if (next.value === null || typeof next.value !== 'object') continue;
    const entries = Object.entries(next.value);
    for (let i = entries.length - 1; i >= 0; i--)
      pending.push({ value: entries[i]![1], path: [...next.path, entries[i]![0]] });
  }
  return found;
}

function valueAt(value: unknown, path: readonly string[]): unknown {
  let at = value;
  for (const key of path) at = (at as Record<string, unknown>)[key];
  return at;
}
