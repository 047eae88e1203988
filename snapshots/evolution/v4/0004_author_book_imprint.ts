// Written by svcgen from api.raml. A migration of the schema: svcgen wrote it once and never changes or deletes it. Databases that ran it check its checksum at every start, so do not edit it once it has run anywhere.
import type { Migration } from '../../lib/migrate.js';

/**
 * What changed:
 * - Author.bio renamed to biography
 * - Book.author_id: foreign key to author (on delete cascade)
 * - Book.isbn: no longer unique
 * - Book.publisher_id renamed to imprint_id
 * - model Publisher renamed to Imprint (table publisher to imprint)
 */
export const migration: Migration = {
  name: '0004_author_book_imprint',
  summary: [
    'Author.bio renamed to biography',
    'Book.author_id: foreign key to author (on delete cascade)',
    'Book.isbn: no longer unique',
    'Book.publisher_id renamed to imprint_id',
    'model Publisher renamed to Imprint (table publisher to imprint)',
  ],
  sqlite: `
alter table "publisher" rename to "imprint";

alter table "author" rename column "bio" to "biography";

create table "svc_new_book" (
  "id" integer primary key autoincrement,
  "title" text not null,
  "pages" integer,
  "author_id" integer,
  "isbn" text,
  "in_print" integer check ("in_print" in (0, 1)),
  "imprint_id" integer,
  "format" text not null,
  foreign key ("author_id") references "author" ("id") on delete cascade on update cascade,
  foreign key ("imprint_id") references "imprint" ("id") on delete set null on update cascade
);

insert into "svc_new_book" ("id", "title", "pages", "author_id", "isbn", "in_print", "imprint_id", "format")
  select "id", "title", "pages", "author_id", "isbn", "in_print", "publisher_id", coalesce("format", 'paperback') from "book";

delete from sqlite_sequence where name = 'svc_new_book';

insert into sqlite_sequence (name, seq) select 'svc_new_book', seq from sqlite_sequence where name = 'book';

drop table "book";

alter table "svc_new_book" rename to "book";

create index "book_author_id_idx" on "book" ("author_id");

create index "book_imprint_id_idx" on "book" ("imprint_id");
`,
  postgres: `
alter table "publisher" rename to "imprint";

alter table "author" rename column "bio" to "biography";

alter table "book" rename column "publisher_id" to "imprint_id";

alter index if exists "book_publisher_id_idx" rename to "book_imprint_id_idx";

do $$ declare name text; begin
  for name in select c.conname from pg_constraint c join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
    where c.conrelid = '"book"'::regclass and c.contype = 'f' and cardinality(c.conkey) = 1 and a.attname = 'author_id'
  loop execute format('alter table %I drop constraint %I', 'book', name); end loop;
end $$;

do $$ declare name text; begin
  for name in select c.conname from pg_constraint c join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
    where c.conrelid = '"book"'::regclass and c.contype = 'u' and cardinality(c.conkey) = 1 and a.attname = 'isbn'
  loop execute format('alter table %I drop constraint %I', 'book', name); end loop;
end $$;

alter table "book" add foreign key ("author_id") references "author" ("id") on delete cascade on update cascade;
`,
  mongodb: [
    { op: 'renameCollection', from: 'publisher', to: 'imprint' },
    { op: 'renameField', collection: 'author', from: 'bio', to: 'biography' },
    { op: 'dropIndex', collection: 'book', field: 'author' },
    { op: 'createIndex', collection: 'book', field: 'author', unique: false },
    { op: 'dropIndex', collection: 'book', field: 'isbn' },
    { op: 'dropIndex', collection: 'book', field: 'publisher' },
    { op: 'renameField', collection: 'book', from: 'publisher', to: 'imprint' },
    { op: 'createIndex', collection: 'book', field: 'imprint', unique: false },
  ],
};
