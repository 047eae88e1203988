/**
 * storage.json's `uniques` (`_unique_together`) is read as untrusted as the rest of the file: a set
 * must name two or more columns of its table, or the file is refused before anything of it reaches
 * a migration's `create unique index`.
 */
import { describe, expect, it } from 'vitest';
import { parseStorageModel, uniquesOf, type StorageModel } from '../../src/outdir/storage-model.js';

const column = (name: string) => ({
  name,
  type: 'string',
  sqlite: 'text',
  postgres: 'text',
  primaryKey: false,
  generated: false,
  notNull: false,
  unique: false,
  indexed: false,
  fill: { kind: 'none' },
  references: null,
  documentPath: name,
  renamedFrom: null,
});

const file = (uniques?: unknown) =>
  JSON.stringify({
    format: 1,
    tables: [
      {
        name: 'player',
        model: 'Player',
        columns: [column('team'), column('number')],
        renamedFrom: null,
        search: [],
        searchIndex: 2,
        ...(uniques === undefined ? {} : { uniques }),
      },
    ],
  });

describe('the unique sets of storage.json', () => {
  it('are none where the file says none, as in files written before them', () => {
    expect(uniquesOf((parseStorageModel(file()) as StorageModel).tables[0]!)).toEqual([]);
    expect(uniquesOf((parseStorageModel(file([['team', 'number']])) as StorageModel).tables[0]!)).toEqual([
      ['team', 'number'],
    ]);
  });

  it.each([
    [[['team', 'number; drop table "user"']], 'tables[0].uniques[0][1] must match'],
    [[['team', 'age']], 'tables[0].uniques[0][1] must name a column of the table'],
    [[['team', 'team']], 'tables[0].uniques[0] must name two or more different columns'],
    [[['team']], 'tables[0].uniques[0] must name two or more different columns'],
    ['team', 'tables[0].uniques must be a list'],
  ])('refuses %j', (uniques, problem) => {
    expect((parseStorageModel(file(uniques)) as { problem: string }).problem).toContain(problem);
  });
});
