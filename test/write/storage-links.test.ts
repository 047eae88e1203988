/**
 * storage.json's `links` (relationships kept in other rows, whose renames only the kept events
 * see) is read as untrusted as the rest of the file: each name must be an identifier, named once,
 * or the file is refused before any of it reaches a migration's `update svc_events`.
 */
import { describe, expect, it } from 'vitest';
import { linksOf, parseStorageModel, type StorageModel } from '../../src/outdir/storage-model.js';

const file = (links?: unknown) =>
  JSON.stringify({
    format: 1,
    tables: [
      {
        name: 'trip',
        model: 'Trip',
        columns: [],
        renamedFrom: null,
        search: [],
        searchIndex: 2,
        ...(links === undefined ? {} : { links }),
      },
    ],
  });

describe('the links of storage.json', () => {
  it('are none where the file says none, as in files written before them', () => {
    expect(linksOf((parseStorageModel(file()) as StorageModel).tables[0]!)).toEqual([]);
    const links = [{ name: 'messages', renamedFrom: 'comments' }];
    expect(linksOf((parseStorageModel(file(links)) as StorageModel).tables[0]!)).toEqual(links);
  });

  it.each([
    [[{ name: "x'; drop table trip; --", renamedFrom: null }], 'tables[0].links[0].name must match'],
    [[{ name: 'messages', renamedFrom: "a')" }], 'tables[0].links[0].renamedFrom must match'],
    [[{ name: 'messages' }], 'tables[0].links[0]'],
    [
      [
        { name: 'days', renamedFrom: null },
        { name: 'days', renamedFrom: null },
      ],
      'tables[0].links names a relationship twice',
    ],
    ['days', 'tables[0].links must be a list'],
  ])('refuses %j', (links, problem) => {
    expect((parseStorageModel(file(links)) as { problem: string }).problem).toContain(problem);
  });
});
