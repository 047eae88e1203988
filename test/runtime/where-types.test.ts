/**
 * The repositories' `Where` type (runtime/src/lib/repository.ts) on a choice field, whose type is a
 * union of its values: `in` takes several of them. It took one only (a filter of each value, which no
 * list of two fitted): a probe's handler needed `as never` for `status: { in: ['pending', 'approved'] }`.
 * The assertions are the type checker's (`npm run typecheck` compiles the tests); the test runs them.
 */
import { describe, expect, it } from 'vitest';
import type { Where } from '../../runtime/src/lib/repository.js';

interface Signup {
  readonly status: 'pending' | 'approved' | 'waitlisted' | null;
  readonly skills: readonly ('cash' | 'first aid')[];
  readonly hours: number | null;
}

const severalChoices: Where<Signup> = { status: { in: ['pending', 'approved'] }, hours: { gte: 2 } };
const notNull: Where<Signup> = { status: { not: null }, skills: 'cash' };
// @ts-expect-error -- a value that is none of the choices
const unknownChoice: Where<Signup> = { status: { in: ['pending', 'cancelled'] } };
// @ts-expect-error -- a number where the field holds text
const wrongType: Where<Signup> = { status: { equals: 3 } };
const listItems: Where<Signup> = { skills: { in: ['cash', 'first aid'] } };

describe('Where on a choice field', () => {
  it('takes several of its values in one condition', () => {
    expect([severalChoices, notNull, unknownChoice, wrongType, listItems]).toHaveLength(5);
  });
});
