/**
 * `isFieldFilter` (runtime/src/lib/repository.ts): one answer, for SQL, MongoDB and the change of
 * a client's filters (lib/http/hidden-links.ts), to whether a field's condition is a filter or a
 * value it equals. SQL's own copy once took a `Date`, which has no keys, for a filter of no
 * condition: the condition then selected every object.
 */
import { describe, expect, it } from 'vitest';
import { isFieldFilter } from '../../runtime/src/lib/repository.js';

describe('isFieldFilter', () => {
  it('takes an object of operators for a filter, and anything else for a value', () => {
    expect(isFieldFilter({ in: [1, 2] })).toBe(true);
    expect(isFieldFilter({ gte: 2, lt: 5 })).toBe(true);
    expect(isFieldFilter({ any: ['json'] })).toBe(false);
    expect(isFieldFilter(new Date('2027-01-01T00:00:00Z'))).toBe(false);
    expect(isFieldFilter(['a'])).toBe(false);
    expect(isFieldFilter(null)).toBe(false);
    expect(isFieldFilter('pending')).toBe(false);
  });
});
