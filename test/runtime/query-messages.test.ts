/** What a query that names no field is told (runtime/src/lib/http/query.ts): the name, even an empty one. */
import { describe, expect, it } from 'vitest';
import { parseListQuery } from '../../runtime/src/lib/http/query.js';
import { testField, testModel } from '../support/models.js';

const item = testModel({
  name: 'Item',
  table: 'item',
  primaryKey: 'id',
  fields: [testField('id', { type: 'integer', storage: 'integer', primaryKey: true }), testField('name')],
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
    [{ _sort: 'nmae' }, 'invalid query: _sort names nmae: no field of Item you may read'],
    [{ _fields: 'name,' }, 'accepted'],
  ])('%j: %s', (query, message) => {
    expect(messageOf(query)).toBe(message);
  });
});
