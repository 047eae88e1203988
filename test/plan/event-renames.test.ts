/**
 * The retained events follow a migration's renames (src/plan/migrations/storage/events.ts): a
 * model's, a field's, a link's (its relationship's name), and two fields that swap names, which go
 * through a name of their own so that neither overwrites the other.
 */
import { describe, expect, it } from 'vitest';
import type { ColumnChange, TableChange } from '../../src/plan/migrations/storage/changes.js';
import { eventRenames, eventSql } from '../../src/plan/migrations/storage/events.js';
import { diffStorage } from '../../src/plan/migrations/storage/diff.js';
import type { StoredColumn, StoredTable } from '../../src/outdir/storage-model.js';

const column = (name: string, documentPath = name) => ({ name, documentPath }) as StoredColumn;
const table = (model: string, columns: StoredColumn[]) =>
  ({ name: model.toLowerCase(), model, columns, renamedFrom: null, search: [], searchIndex: 0 }) as StoredTable;
const renamed = (before: StoredColumn, after: StoredColumn): ColumnChange => ({
  kind: 'change',
  before,
  after,
  aspects: new Set(['name'] as const),
});

describe('eventRenames', () => {
  it('renames a model, then the fields of its objects by its new name; a link by its relationship too', () => {
    const change: TableChange = {
      kind: 'alter',
      before: table('Publisher', []),
      after: table('Imprint', []),
      columns: [
        renamed(column('bio'), column('biography')),
        renamed(column('publisher_id', 'publisher'), column('imprint_id', 'imprint')),
        renamed(column('id', '_id'), column('key', '_id')),
      ],
    };
    expect(eventRenames([change])).toEqual({
      models: [['Publisher', 'Imprint']],
      dropped: [],
      fields: [
        { model: 'Imprint', from: 'bio', to: 'biography' },
        { model: 'Imprint', from: 'publisher_id', to: 'imprint_id' },
        { model: 'Imprint', from: 'publisher', to: 'imprint' },
        { model: 'Imprint', from: 'id', to: 'key' },
      ],
    });
  });

  it('keeps two models that swap names apart: the events of each go through a name of their own', () => {
    const swap = (from: string, to: string): TableChange => ({
      kind: 'alter',
      before: table(from, []),
      after: table(to, []),
      columns: [],
    });
    expect(eventRenames([swap('Cat', 'Dog'), swap('Dog', 'Cat')]).models).toEqual([
      ['Cat', 'svc_renaming_Cat'],
      ['Dog', 'svc_renaming_Dog'],
      ['svc_renaming_Cat', 'Dog'],
      ['svc_renaming_Dog', 'Cat'],
    ]);
  });

  it('keeps two fields that swap names apart', () => {
    const change: TableChange = {
      kind: 'alter',
      before: table('Book', []),
      after: table('Book', []),
      columns: [renamed(column('a'), column('b')), renamed(column('b'), column('a'))],
    };
    const { fields } = eventRenames([change]);
    expect(fields.map((f) => `${f.from}>${f.to}`)).toEqual([
      'a>svc_renaming_a',
      'b>svc_renaming_b',
      'svc_renaming_a>b',
      'svc_renaming_b>a',
    ]);
    expect(eventSql({ models: [], fields, dropped: [] }, 'postgres')[0]).toBe(
      `update svc_events set data = jsonb_set(data #- '{object,a}', '{object,svc_renaming_a}', data #> '{object,a}') where model = 'Book' and jsonb_exists(data -> 'object', 'a');`,
    );
  });

  it('drops a dropped field (a link by its relationship too) before the renames, one of which may take its name', () => {
    const change: TableChange = {
      kind: 'alter',
      before: table('Loan', []),
      after: table('Loan', []),
      columns: [
        { kind: 'drop', column: column('due_date') },
        { kind: 'drop', column: column('copy_id', 'copy') },
        renamed(column('due_on'), column('due_date')),
      ],
    };
    const events = eventRenames([change]);
    expect(events.dropped).toEqual([
      { model: 'Loan', field: 'due_date' },
      { model: 'Loan', field: 'copy_id' },
      { model: 'Loan', field: 'copy' },
    ]);
    const sql = eventSql(events, 'sqlite');
    expect(sql.findIndex((s) => s.includes('json_remove(data, \'$.object."due_date"\''))).toBeLessThan(
      sql.findIndex((s) => s.includes('$.object."due_on"')),
    );
  });

  it("renames a relationship kept in other rows (no column: a name in the events) once, by the storage model's links", () => {
    const links = (name: string, renamedFrom: string | null = null) => [{ name, renamedFrom }];
    const before = { ...table('Trip', []), links: links('comments') };
    const after = { ...table('Trip', []), links: links('messages', 'comments') };
    const diff = (from: StoredTable, to: StoredTable) =>
      diffStorage({ format: 1, tables: [from] }, { format: 1, tables: [to] }, { tables: new Map(), columns: new Map() })
        .changes;
    const changes = diff(before, after);
    expect(changes.map((c) => c.kind)).toEqual(['alter']);
    expect(eventRenames(changes).fields).toEqual([{ model: 'Trip', from: 'comments', to: 'messages' }]);
    // The next version keeps the hint: nothing more to rename.
    expect(diff(after, after)).toEqual([]);
    // A storage file from before svcgen kept the links tells nothing of them.
    const { links: _unknown, ...old } = before;
    expect(diff(old, after)).toEqual([]);
  });
});
