/**
 * Usernames and emails, the names users log in with, have one form: NFKC-normalised (so `é` typed
 * as `e` plus a combining accent, or a full-width `Ａ`, is the same name as its plain spelling),
 * trimmed, lower-cased (`Alice@x` and `alice@x` are one account). A name that hides characters is
 * refused: control, format and invisible characters (a zero-width space makes `admin\u200b` look
 * like `admin`), private-use and unassigned ones, combining marks with nothing to combine with
 * or stacked more than three deep, and letters of two of the scripts whose letters look alike
 * (`аlice` with a Cyrillic `а` passes for `alice`). Lengths are checked on the normalised form (`"   "` is empty).
 */
import { badRequest, type FieldError } from '../errors.js';
import { characters, TOO_LONG_TO_INDEX, tooLongToIndex } from '../text.js';

type Rec = Record<string, unknown>;

/** The fields users log in with. */
export const LOGIN_FIELDS = ['username', 'email'] as const;

/** The JSON Schema limits of a login field (from the user model's create body). */
export interface LengthLimits {
  readonly minLength?: number;
  readonly maxLength?: number;
}

/** What a login names, in its one form, for looking a user up (nothing is refused here). */
export function loginForm(text: string): string {
  return text.normalize('NFKC').trim().toLowerCase();
}

/** Scripts with letters that look alike (Latin `a`, Cyrillic `а`, Greek `ο`): a name takes one of them. */
const LOOKALIKE_SCRIPTS: readonly (readonly [string, RegExp])[] = [
  ['Latin', /\p{Script=Latin}/gu],
  ['Cyrillic', /\p{Script=Cyrillic}/gu],
  ['Greek', /\p{Script=Greek}/gu],
  ['Armenian', /\p{Script=Armenian}/gu],
  ['Coptic', /\p{Script=Coptic}/gu],
  ['Cherokee', /\p{Script=Cherokee}/gu],
];

// …and characters that show as nothing though no category says so: the Braille blank (`mona⠀`
// beside `mona`) and the musical null notehead.
const HIDDEN = /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\u2800\u{1D159}]/u;
const LONE_MARK = /(^|[^\p{L}\p{N}\p{M}])\p{M}/u;
const STACKED_MARKS = /\p{M}{4,}/u;

/**
 * Each part of a name (an email's `ολγα@example.gr` is three) takes letters of one of those
 * scripts. Where one mixes them, what to say: the scripts, and the first letter of the script
 * with the fewest letters in it (`the Cyrillic у in libbу`), likely the slip, which the sender may
 * not see apart from its twin.
 */
function mixedLookalikes(name: string): string | undefined {
  for (const part of name.split(/[@.]/)) {
    // `search` and `match` of a /g pattern keep no state between names, as `test` would.
    const found = LOOKALIKE_SCRIPTS.filter(([, script]) => part.search(script) !== -1);
    if (found.length < 2) continue;
    const letters = found.map(([, pattern]) => part.match(pattern) ?? []);
    const fewest = letters.reduce((min, these, i) => (these.length < letters[min]!.length ? i : min), 0);
    const script = found[fewest]![0];
    const letter = letters[fewest]![0];
    const code = letter.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    return `mixes ${found.map(([n]) => n).join(' and ')} letters, which look alike (the ${script} ${letter}, U+${code}, in ${part})`;
  }
  return undefined;
}

/** Why `name` cannot be a login, or undefined when it can. */
export function loginProblem(name: string, limits: LengthLimits): string | undefined {
  if (HIDDEN.test(name)) return 'contains an invisible, control or format character';
  if (LONE_MARK.test(name)) return 'has a combining mark with no letter before it';
  if (STACKED_MARKS.test(name)) return 'stacks more than three combining marks';
  const mixed = mixedLookalikes(name);
  if (mixed) return mixed;
  const length = characters(name);
  if (length === 0) return 'cannot be empty or blank';
  if (limits.minLength !== undefined && length < limits.minLength)
    return `must be at least ${limits.minLength} character${limits.minLength === 1 ? '' : 's'} long, spaces at its ends left out`;
  if (limits.maxLength !== undefined && length > limits.maxLength)
    return `must be at most ${limits.maxLength} characters long once normalised`;
  return undefined;
}

/**
 * Letters of other scripts that pass for Latin ones in a name (lower-case, as login forms are):
 * Cyrillic, Greek and Armenian lookalikes, the dotless `ı`, and Latin's own phonetic letters and small capitals. A name written wholly in them (`ра`, Cyrillic)
 * is no mix of scripts, yet reads as another (`pa`).
 */
const PASSES_FOR: Readonly<Record<string, string>> = {
  а: 'a',
  е: 'e',
  о: 'o',
  р: 'p',
  с: 'c',
  у: 'y',
  х: 'x',
  і: 'i',
  ј: 'j',
  ѕ: 's',
  һ: 'h',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  ӏ: 'l',
  к: 'k',
  α: 'a',
  ο: 'o',
  ρ: 'p',
  ν: 'v',
  ι: 'i',
  κ: 'k',
  υ: 'u',
  χ: 'x',
  ı: 'i',
  ȷ: 'j',
  // Latin letters of phonetics and small capitals, which NFKC leaves as they are: a probe registered
  // `ɑdmin` (U+0251) and `ɡreg` beside admin and greg.
  ɑ: 'a',
  ɐ: 'a',
  ᴀ: 'a',
  ʙ: 'b',
  ᴄ: 'c',
  ᴅ: 'd',
  ᴇ: 'e',
  ꜰ: 'f',
  ɡ: 'g',
  ɢ: 'g',
  ʜ: 'h',
  ɪ: 'i',
  ɩ: 'i',
  ǀ: 'l',
  ᴊ: 'j',
  ᴋ: 'k',
  ʟ: 'l',
  ᴍ: 'm',
  ɴ: 'n',
  ᴏ: 'o',
  ᴘ: 'p',
  ʀ: 'r',
  ꜱ: 's',
  ᴛ: 't',
  ᴜ: 'u',
  ᴠ: 'v',
  ᴡ: 'w',
  ʏ: 'y',
  ᴢ: 'z',
  // Latin letters with a stroke or bar, which NFD does not take apart (`jøe`, `łukasz`).
  ø: 'o',
  ɵ: 'o',
  ɉ: 'j',
  ɇ: 'e',
  ł: 'l',
  đ: 'd',
  ħ: 'h',
  ŧ: 't',
  ƀ: 'b',
  ɨ: 'i',
  ʉ: 'u',
  ƶ: 'z',
  // Greek and Cyrillic letters that the ones above left out (`ϳο`, `ѕеү`).
  ϳ: 'j',
  ү: 'y',
  // Coptic and Cherokee (`jⲟe`, `ꭻoe`): a name may mix neither with Latin, below.
  ⲟ: 'o',
  ⲁ: 'a',
  ꭻ: 'j',
  ꮪ: 's',
  // Armenian letters that pass for Latin ones (`bօb`).
  օ: 'o',
  ս: 'u',
  հ: 'h',
  ո: 'n',
  ց: 'g',
  զ: 'q',
};

/**
 * The combining marks that are accents on a letter (the Combining Diacritical Marks and their
 * supplements), not the vowel signs and marks of scripts whose words they tell apart (Devanagari's
 * `राम` is not `रम`, nor Japanese `がく` `かく`): those stay, and what is left is composed again (a
 * Hangul syllable split by NFD is one again, and its plain form no longer three times as long).
 */
const ACCENTS = /[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]/gu;

/**
 * The plain form that `name` (in its login form) passes for, when it is not that name itself: its
 * accents left out and its lookalike letters read as Latin (`admín` and `admın` pass for `admin`,
 * Cyrillic `ра` for `pa`, `søren` for `soren`). Undefined when it is its own plain form.
 */
export function passesFor(name: string): string | undefined {
  const plain = name
    .normalize('NFD')
    .replace(ACCENTS, '')
    .normalize('NFC')
    .replace(/[^\x20-\x7e]/gu, (c) => PASSES_FOR[c] ?? c);
  // Whatever is left of other letters stays: `łúkasz` and `łukasz` both read `lukasz`, `νίκος` and
  // `νικος` both `vikoς` (a probe's pairs that kept a letter no table maps, and went through).
  return plain !== name ? plain : undefined;
}

/** The key `/users/self` stands for: the logged-in user (policy.ts `itemKey`), never a user of that name. */
export const SELF = 'self';
/**
 * Why no user may be named or keyed `self`: their `_self` link would name whoever follows it (an
 * admin's DELETE of it deleted the admin), and they could be reached at no URL.
 */
export const SELF_REFUSED = 'cannot be "self" (/users/self is the logged-in user)';

/**
 * A login with `@` is looked up as an email, one without as a username (routes.ts `findByLogin`):
 * a username with one, or an email without, could never log in by it, and might name another
 * account's other login.
 */
function readAsOther(field: (typeof LOGIN_FIELDS)[number], name: string): string | undefined {
  if (field === 'username' && name === SELF) return SELF_REFUSED;
  if (field === 'username' && name.includes('@')) return 'cannot contain @ (a login with @ is read as an email)';
  if (field === 'email' && !name.includes('@')) return 'must contain @ (a login without @ is read as a username)';
  return undefined;
}

/**
 * `data` with its usernames and emails in their one form; a 400 naming each that cannot be one.
 * `limits`: each field's JSON Schema lengths.
 */
export function withLoginForms(data: Rec, limits: Readonly<Record<string, LengthLimits>>): Rec {
  const errors: FieldError[] = [];
  const out = { ...data };
  for (const name of LOGIN_FIELDS) {
    const value = data[name];
    if (typeof value !== 'string') continue;
    out[name] = loginForm(value);
    // Measured in its login form, as stored: NFKC makes some texts longer (U+FDFA is 18 characters).
    const problem =
      loginProblem(out[name] as string, limits[name] ?? {}) ??
      readAsOther(name, out[name] as string) ??
      (tooLongToIndex(out[name] as string) ? TOO_LONG_TO_INDEX : undefined);
    if (problem) errors.push({ field: name, message: problem });
  }
  if (errors.length) throw badRequest(errors.map((e) => `${e.field} ${e.message}`).join('; '), errors);
  return out;
}
