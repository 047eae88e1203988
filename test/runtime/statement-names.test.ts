/**
 * Which PostgreSQL statements the generated service prepares under a name
 * (runtime/src/lib/sql/statement-names.ts): a full-text search never is, so
 * PostgreSQL plans it for its words each time instead of switching to a generic plan after five
 * runs (which ranked a common word's page 4.5× slower; bench/search.mjs).
 */
import { describe, expect, it } from 'vitest';
import { StatementNames } from '../../runtime/src/lib/sql/statement-names.js';

// As lib/sql/search.ts writes them (the service's debug log of `GET /v1/items?q=logo`).
const SEARCH_PAGE =
  'select "id", "name" from "item" where (("item"."svc_search_name" @@ plainto_tsquery($1::regconfig, svc_search_fold($2)))) order by (2 * ts_rank("item"."svc_search_name", plainto_tsquery($3::regconfig, svc_search_fold($4)))) desc, "id" asc limit $5';
const SEARCH_COUNT =
  'select count(*) as "n" from "item" where ("item"."svc_search_name" @@ plainto_tsquery($1::regconfig, svc_search_fold($2)))';
const BY_KEY = 'select "id", "name" from "item" where "id" = $1';

describe('StatementNames', () => {
  it('names a statement once and gives the same text the same name', () => {
    const names = new StatementNames();
    expect(names.nameOf(BY_KEY)).toBe('s0');
    expect(names.nameOf('select 1')).toBe('s1');
    expect(names.nameOf(BY_KEY)).toBe('s0');
  });

  it('never names a full-text search, however often it runs', () => {
    const names = new StatementNames();
    for (let run = 0; run < 10; run++) {
      expect(names.nameOf(SEARCH_PAGE)).toBeUndefined();
      expect(names.nameOf(SEARCH_COUNT)).toBeUndefined();
    }
    // … and a search takes no name from the statements that come after it.
    expect(names.nameOf(BY_KEY)).toBe('s0');
  });

  it('runs texts unnamed past the first 1,000, so that no name stands for two texts', () => {
    const names = new StatementNames();
    for (let n = 0; n < 1000; n++) expect(names.nameOf(`select ${n}`)).toBe(`s${n}`);
    expect(names.nameOf('select 1000')).toBeUndefined();
    expect(names.nameOf('select 999')).toBe('s999');
  });
});
