/**
 * The one form of usernames and emails (issue 34): names that look like another's are the same
 * name or refused, and lengths count the normalised name.
 */
import { describe, expect, it } from 'vitest';

interface Limits {
  readonly minLength?: number;
  readonly maxLength?: number;
}
const { loginForm, loginProblem, passesFor, withLoginForms } = (await import(
  new URL('../../runtime/src/lib/auth/logins.ts', import.meta.url).href
)) as {
  loginForm: (text: string) => string;
  loginProblem: (name: string, limits: Limits) => string | undefined;
  passesFor: (name: string) => string | undefined;
  withLoginForms: (data: Record<string, unknown>, limits: Record<string, Limits>) => Record<string, unknown>;
};

describe('login names', () => {
  it('gives one form to spellings of one name', () => {
    expect(loginForm('Cafe\u0301')).toBe(loginForm('café'));
    expect(loginForm('\uff21lice ')).toBe('alice');
    expect(loginForm(' Alice@Example.COM')).toBe('alice@example.com');
  });

  it.each([
    ['admin\u200b', 'invisible'],
    ['ad\u00admin', 'invisible'],
    ['\u3164admin', 'invisible'],
    ['ad\u0000min', 'control'],
    ['\u0301admin', 'combining mark'],
    ['x\u0301\u0302\u0303\u0304', 'stacks'],
    ['', 'empty'],
  ])('refuses %j (%s)', (name, why) => {
    expect(loginProblem(loginForm(name), {})).toContain(why);
  });

  it('takes letters with marks, and other scripts', () => {
    for (const name of [
      'josé',
      'müller',
      'क्षत्रिय',
      'δημήτρης',
      '李雷',
      'иван_77',
      'alice.smith',
      'li雷',
      'ολγα@example.gr',
    ])
      expect(loginProblem(loginForm(name), {}), name).toBeUndefined();
  });

  it('refuses a name that mixes scripts whose letters look alike', () => {
    // A Cyrillic а, a Greek ο, a Cyrillic е: each passes for the Latin letter.
    for (const name of ['\u0430lice', 'r\u03bfot', 'admin\u0435', 'иван_ivan', 'αλφα-\u0430', '\u0430lice@example.com'])
      expect(loginProblem(loginForm(name), {}), name).toMatch(/^mixes \w+ and \w+ letters, which look alike/);
    // It names the letter in the name sent, not one of an example (a probe's libbу was told of аlice).
    expect(loginProblem(loginForm('libb\u0443'), {})).toBe(
      'mixes Latin and Cyrillic letters, which look alike (the Cyrillic \u0443, U+0443, in libb\u0443)',
    );
    expect(loginProblem(loginForm('\u0430lice@example.com'), {})).toBe(
      'mixes Latin and Cyrillic letters, which look alike (the Cyrillic \u0430, U+0430, in \u0430lice)',
    );
  });

  it('checks lengths on the normalised name', () => {
    expect(loginProblem(loginForm('   '), { minLength: 1 })).toContain('empty');
    expect(loginProblem(loginForm('\u3397'), { maxLength: 1 })).toContain('at most 1');
    expect(loginProblem('ab', { minLength: 3 })).toContain('at least 3');
  });

  it('refuses a username with @ and an email without, which a login would read as the other', () => {
    // A login with @ is looked up as an email: "zz@x.io" as a username could never log in by it,
    // and would name ben's email too.
    const refused = (data: Record<string, unknown>) => {
      try {
        withLoginForms(data, {});
        return undefined;
      } catch (error) {
        return (error as { errors?: unknown }).errors;
      }
    };
    expect(refused({ username: 'zz@x.io', email: 'mal@x.io' })).toEqual([
      { field: 'username', message: 'cannot contain @ (a login with @ is read as an email)' },
    ]);
    expect(refused({ username: 'mal', email: 'ua' })).toEqual([
      { field: 'email', message: 'must contain @ (a login without @ is read as a username)' },
    ]);
    expect(refused({ username: 'Mal', email: ' Mal@X.io ' })).toBeUndefined();
  });
});

describe('the plain name a login passes for', () => {
  it('reads accents away and lookalike letters as Latin', () => {
    expect(passesFor('adm\u00edn')).toBe('admin');
    expect(passesFor('adm\u0131n')).toBe('admin');
    expect(passesFor('\u0440\u0430')).toBe('pa');
    expect(passesFor('\u03bf\u03c1')).toBe('op');
    expect(passesFor('jos\u00e9@example.com')).toBe('jose@example.com');
    // Latin's phonetic letters and small capitals, which NFKC keeps, and Armenian's: a probe's
    // ɑdmin, ɡreg, ɢreg, bᴏb, ǀalice and bօb were each a new user beside the plain name.
    for (const [name, plain] of [
      ['\u0251dmin', 'admin'],
      ['\u0261reg', 'greg'],
      ['\u0262reg', 'greg'],
      ['b\u1d0fb', 'bob'],
      ['\u01c0alice', 'lalice'],
      ['b\u0585b', 'bob'],
    ])
      expect(passesFor(loginForm(name!)), name).toBe(plain);
    expect(loginProblem(loginForm('b\u0585b'), {})).toContain('mixes Latin and Armenian letters');
  });

  it('is none where the name is its own plain form, and keeps the letters no table maps', () => {
    expect(passesFor('admin')).toBeUndefined();
    expect(passesFor('\u5c71\u7530')).toBeUndefined();
    expect(passesFor('\u043b\u044f')).toBeUndefined(); // ля: nothing in it passes for another letter
    // оля: its о reads as o, its л and я stay; the accented form reads the same.
    expect(passesFor('\u043e\u043b\u044f')).toBe('o\u043b\u044f');
    // A probe's pairs, each of which went through beside the other: accents on a letter no table
    // maps, letters with a stroke, and Greek, Coptic and Cherokee letters.
    for (const [a, b] of [
      ['\u0142\u00fakasz', '\u0142ukasz'],
      ['\u03bd\u03af\u03ba\u03bf\u03c2', '\u03bd\u03b9\u03ba\u03bf\u03c2'],
      ['s\u00f8r\u00e9n', 'soren'],
      ['j\u00f8e', 'joe'],
      ['\u0249oe', 'joe'],
      ['\u03f3\u03bf', 'jo'],
      ['\u0455\u0435\u04af', 'sey'],
    ])
      expect(passesFor(loginForm(a!)) ?? loginForm(a!), `${a} beside ${b}`).toBe(
        passesFor(loginForm(b!)) ?? loginForm(b!),
      );
    expect(loginProblem(loginForm('j\u2c9fe'), {})).toContain('mixes Latin and Coptic letters');
    // Only accents are read away: the vowel signs and marks that tell other scripts' words apart stay
    // (Devanagari राम is not रम, Thai ดิน is not ดน, Japanese がく is not かく), and Hangul stays composed.
    for (const [a, b] of [
      ['\u0930\u093e\u092e', '\u0930\u092e'],
      ['\u0e14\u0e34\u0e19', '\u0e14\u0e19'],
      ['\u304c\u304f', '\u304b\u304f'],
    ])
      expect(passesFor(loginForm(a!)) ?? loginForm(a!), `${a} beside ${b}`).not.toBe(
        passesFor(loginForm(b!)) ?? loginForm(b!),
      );
    expect(passesFor(loginForm('\ud55c\uae00'))).toBeUndefined();
    // Blanks that no category calls invisible: a Braille blank, a musical null notehead.
    for (const name of ['mona\u2800', '\u2800', 'mona\u{1d159}'])
      expect(loginProblem(loginForm(name), {}), name).toBe('contains an invisible, control or format character');
  });
});
