/**
 * Which PostgreSQL statements are prepared once per connection under a name, and which are
 * planned for their values each time they run (unnamed).
 *
 * A named statement saves its parsing and planning, but after five runs PostgreSQL may switch it
 * to a generic plan, made for any values. That is right for most statements and wrong for a
 * full-text search (`@@`): how many rows a word matches decides the plan (one word is in a tenth
 * of the rows, the next in none), and a generic plan must guess. It guesses few, then folds the
 * words again for every matching row it ranks. Measured on 100,000 rows, a word in 10 % of them:
 * 17 ms a page planned for its word, 77 ms under the generic plan. A search therefore pays its
 * planning (~0.3 ms) on every run.
 */

/** The first this many statement texts get names; any other text runs unnamed. */
const MAX_PREPARED = 1000;

export class StatementNames {
  readonly #names = new Map<string, string>();

  /** The statement's name, or undefined to run it unnamed (planned for these values). */
  nameOf(sql: string): string | undefined {
    if (plannedEachTime(sql)) return undefined;
    let name = this.#names.get(sql);
    // A name must never stand for two texts: past the limit, new texts run unnamed.
    if (!name && this.#names.size < MAX_PREPARED) {
      name = `s${this.#names.size}`;
      this.#names.set(sql, name);
    }
    return name;
  }
}

/**
 * Statements whose plan depends on their values: full-text matches (`@@`, lib/sql/search.ts).
 * Nothing else svcgen writes has `@@` (names are quoted identifiers of letters, digits and `_`;
 * values are parameters), and a statement taken for one by mistake only loses its saved plan.
 */
function plannedEachTime(sql: string): boolean {
  return sql.includes('@@');
}
