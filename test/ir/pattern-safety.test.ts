/**
 * SVC2028's reading of JSON-schema patterns: the shapes that backtrack exponentially are found,
 * the common safe ones (delimited repetitions, dates, slugs) are not, and a pattern that is no
 * regular expression is reported as such.
 */
import { describe, expect, it } from 'vitest';
import { patternProblem } from '../../src/ir/build/pattern-safety.js';

const UNSAFE = [
  '(a+)+$',
  '^(a*)*b$',
  '(\\w*\\s?)*$',
  '^\\w+([.-]?\\w+)*@x$',
  '(a|ab)*c',
  '^(\\d|\\w)+$',
  '(x+x+)+y',
  '^(a{1,20})+$',
  '^(?:[a-z]+-?)+$',
];
const SAFE = [
  '^[a-z0-9-]+$',
  '^[a-z]+(-[a-z]+)*$',
  '^(\\s*,\\s*\\w+)*$',
  '^[0-9]{4}-(0?[0-9]|1[0-2])-(0?[0-9]|[1-2][0-9]|3[01])$',
  '^([01]?[0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9])?$',
  '^-?[0-9]+$',
  '^(?:a|b)*$',
  '\\p{L}+',
  '(?<n>a)\\k<n>',
  '^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$',
];

describe('patternProblem', () => {
  it.each(UNSAFE)('finds that %s can take exponential time', (pattern) => {
    expect(patternProblem(pattern)).toMatchObject({ slow: true, message: expect.stringContaining('exponential') });
  });

  it.each(SAFE)('accepts %s', (pattern) => {
    expect(patternProblem(pattern)).toBeUndefined();
  });

  it('reports a pattern that is no regular expression', () => {
    expect(patternProblem('[a-')).toMatchObject({
      slow: false,
      message: expect.stringContaining('not a valid regular expression'),
    });
    expect(patternProblem('a{1,3}{2}')).toMatchObject({ slow: false });
  });
});
