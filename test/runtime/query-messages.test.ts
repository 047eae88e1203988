/**
 * What a query that names no field is told (runtime/src/lib/http/query.ts): the name, even an empty
 * one; and what a filter's value that does not parse for its field is told (a value none of a
 * choice field's choices, a number a float cannot hold) instead of an empty page.
 */
import { describe, expect, it } from 'vitest';
import { parseListQuery } from '../../runtime/src/lib/http/query.js';
import { testField, testModel } from '../support/models.js';

const item = testModel({
  name: 'Item',
  table: 'item',
  primaryKey: 'id',
  fields: [
    testField('id', { type: 'integer', storage: 'integer', primaryKey: true }),
    testField('name'),
    testField('status', { type: 'choice', choices: ['open', 'done'] }),
    testField('price', { type: 'decimal', storage: 'real' }),
    testField('description', { renamedFrom: 'instructions' }),
  ],
  selfPath: (r) => `/items/${String(r['id'])}`,
});

const messageOf = (query: Record<string, string>): string => {
  try {
    parseListQuery(item, query, { defaultLimit: 20, maxLimit: 100 });
  } catch (error) {
    return (error as Error).message;
  }
  return 'accepted';
};

describe('a query that names no field', () => {
  it.each([
    [{ _sort: '-' }, 'invalid query: _sort names "": no field of Item you may read'],
    [{ _sort: 'nmae' }, 'invalid query: _sort names nmae: no field of Item you may read; did you mean name?'],
    [{ _fields: 'name,' }, 'accepted'],
    // A typo is told the closest name the caller may use (a probe's `stauts`, `limit`).
    [{ nmae: 'x' }, 'invalid query: nmae is no field of Item you may read; did you mean name?'],
    [{ stauts: 'open' }, 'invalid query: stauts is no field of Item you may read; did you mean status?'],
    [{ nmae__gt: 'x' }, 'invalid query: nmae__gt names nmae: no field of Item you may read; did you mean name?'],
    [{ limit: '2' }, 'invalid query: limit is no field of Item you may read; did you mean _limit?'],
    [{ _limt: '2' }, 'invalid query: _limt is not a query parameter; did you mean _limit?'],
    [{ zzz: '1' }, 'invalid query: zzz is no field of Item you may read'],
    // A field renamed in this version of the API (`renamed_from`): its old name is told the new one.
    [
      { instructions: 'x' },
      'invalid query: instructions is no field of Item you may read; it is named description now',
    ],
    [
      { _sort: 'instructions' },
      'invalid query: _sort names instructions: no field of Item you may read; it is named description now',
    ],
    // No field before the operator's `__` (it once said 'names ""').
    [{ __proto__x: '1' }, 'invalid query: __proto__x is no field of Item you may read'],
    [
      JSON.parse('{"__proto__":"1"}') as Record<string, string>,
      'invalid query: __proto__ is no field of Item you may read',
    ],
  ])('%j: %s', (query, message) => {
    expect(messageOf(query)).toBe(message);
  });
});

describe('a suggestion', () => {
  // One message for a typo and for a field the caller may not read: a hidden field is never suggested.
  it('names only fields the caller may read', () => {
    const staff = testModel({
      name: 'Staff',
      table: 'staff',
      primaryKey: 'id',
      fields: [testField('id', { type: 'integer', storage: 'integer', primaryKey: true }), testField('salary')],
      selfPath: (r) => `/staff/${String(r['id'])}`,
    });
    const message = (visible: ReadonlySet<string> | null) => {
      try {
        parseListQuery(staff, { salry: '1' }, { defaultLimit: 20, maxLimit: 100, visible });
      } catch (error) {
        return (error as Error).message;
      }
      return 'accepted';
    };
    expect(message(null)).toBe('invalid query: salry is no field of Staff you may read; did you mean salary?');
    expect(message(new Set(['id']))).toBe('invalid query: salry is no field of Staff you may read');
  });
});

describe('a filter value that does not parse for its field', () => {
  it.each([
    [
      { status: 'pending' },
      'invalid query: status "pending" is not one of open, done (objects stored with a value no longer among them: status__ne=open,done)',
    ],
    [
      { status__in: 'open,pending' },
      'invalid query: status__in "pending" is not one of open, done (objects stored with a value no longer among them: status__ne=open,done)',
    ],
    [
      { status__ne: 'pending' },
      'invalid query: status__ne "pending" is not one of open, done (objects stored with a value no longer among them: status__ne=open,done)',
    ],
    [{ status: 'open' }, 'accepted'],
    [{ status__startswith: 'pen' }, 'accepted'],
    [{ price: '1e400' }, 'invalid query: price "1e400" is not a number of at most 15 significant digits'],
    [{ price__lt: '-1e309' }, 'invalid query: price__lt "-1e309" is not a number of at most 15 significant digits'],
    [{ price: '1e300' }, 'accepted'],
    // A decimal's value that a float does not keep: read as 3.5, it selected the 3.50 it should not.
    [
      { price__lte: '3.4999999999999999' },
      'invalid query: price__lte "3.4999999999999999" is not a number of at most 15 significant digits',
    ],
    [{ price__lte: '-0.000123456789012345000e5' }, 'accepted'],
    [{ price: '100000000000000000000' }, 'accepted'],
  ])('%j: %s', (query, message) => {
    expect(messageOf(query)).toBe(message);
  });
});

describe('reserved parameters a probe found read loosely', () => {
  it('refuses _count given twice, and _fields naming an empty field, as _sort did', () => {
    const refused = (query: Record<string, string | string[]>) => {
      try {
        parseListQuery(item, query, { defaultLimit: 20, maxLimit: 100 });
      } catch (error) {
        return (error as { errors?: unknown }).errors;
      }
      return 'accepted';
    };
    // `_count=true&_count=false` counted: the last one won.
    expect(refused({ _count: ['true', 'false'] })).toEqual([{ field: '_count', message: 'is given more than once' }]);
    // `_fields=,` showed every field, and said `"fields": ","`.
    for (const fields of [',', ' , '])
      expect(refused({ _fields: fields }), fields).toEqual([{ field: '_fields', message: 'names no field' }]);
    expect(refused({ _fields: 'price', _count: '' })).toBe('accepted');
  });
});

describe("a field of the caller's own record, which a list shows in their row alone", () => {
  // A probe's member was given `income` by `_fields`, and told by `income=…` that it was no field they may read.
  const limits = {
    defaultLimit: 20,
    maxLimit: 100,
    visible: new Set(['id', 'name']),
    projectable: new Set(['id', 'name', 'status']),
  };
  const told = (query: Record<string, string>): string => {
    try {
      parseListQuery(item, query, limits);
    } catch (error) {
      return (error as Error).message;
    }
    return 'accepted';
  };

  it.each([
    [{ status: 'open' }, 'invalid query: status is shown on your own record only: a list is not filtered by it'],
    [
      { status__ne: 'open' },
      'invalid query: status__ne is shown on your own record only: a list is not filtered by it',
    ],
    [{ _sort: '-status' }, 'invalid query: _sort cannot sort by status: it is shown on your own record only'],
    [{ price: '1' }, 'invalid query: price is no field of Item you may read'],
    [{ _fields: 'status' }, 'accepted'],
  ])('%j: %s', (query, message) => {
    expect(told(query)).toBe(message);
  });
});

describe('a comma in a filter value', () => {
  const where = (query: Record<string, string | string[]>) =>
    parseListQuery(item, query, { defaultLimit: 20, maxLimit: 100 }).where;

  it('separates the values of a list, and is part of the value of an operator of one value or a text', () => {
    expect(where({ name: 'a,b' })).toEqual({ name: { in: ['a', 'b'] } });
    expect(where({ name: ['a,b', 'c'] })).toEqual({ name: { in: ['a', 'b', 'c'] } });
    expect(where({ name__in: 'a,b' })).toEqual({ name: { in: ['a', 'b'] } });
    expect(where({ name__gt: 'a, b' })).toEqual({ name: { gt: 'a, b' } });
    expect(where({ name__lte: 'Rome, Italy' })).toEqual({ name: { lte: 'Rome, Italy' } });
    expect(where({ name__contains: 'a,b' })).toEqual({ name: { contains: 'a,b' } });
    expect(() => where({ name__gt: ['a', 'b'] })).toThrow('name__gt takes one value');
  });
});
