// Written by svcgen from api.raml. A migration of the schema: svcgen wrote it once and never changes or deletes it. Databases that ran it check its checksum at every start, so do not edit it once it has run anywhere.
import type { Migration } from '../../lib/migrate.js';

/**
 * What changed:
 * - Author.name: varchar(50) to varchar(200)
 * - Author.nickname: now unique
 * - Author.rating: smallint to integer
 * - Book.pages: integer to bigint
 * - Book.isbn: now unique
 * - Book.format added
 */
export const migration: Migration = {
  name: '0003_author_book',
  summary: [
    'Author.name: varchar(50) to varchar(200)',
    'Author.nickname: now unique',
    'Author.rating: smallint to integer',
    'Book.pages: integer to bigint',
    'Book.isbn: now unique',
    'Book.format added',
  ],
  sqlite: `
create table "svc_new_author" (
  "id" integer primary key autoincrement,
  "name" text not null,
  "bio" text,
  "nickname" text unique,
  "rating" integer
);

insert into "svc_new_author" ("id", "name", "bio", "nickname", "rating")
  select "id", "name", "bio", "nickname", "rating" from "author";

delete from sqlite_sequence where name = 'svc_new_author';

insert into sqlite_sequence (name, seq) select 'svc_new_author', seq from sqlite_sequence where name = 'author';

drop table "author";

alter table "svc_new_author" rename to "author";

create table "svc_new_book" (
  "id" integer primary key autoincrement,
  "title" text not null,
  "pages" integer,
  "author_id" integer,
  "isbn" text unique,
  "in_print" integer check ("in_print" in (0, 1)),
  "publisher_id" integer,
  "format" text not null,
  foreign key ("author_id") references "author" ("id") on delete set null on update cascade,
  foreign key ("publisher_id") references "publisher" ("id") on delete set null on update cascade
);

insert into "svc_new_book" ("id", "title", "pages", "author_id", "isbn", "in_print", "publisher_id", "format")
  select "id", "title", "pages", "author_id", "isbn", "in_print", "publisher_id", 'paperback' from "book";

delete from sqlite_sequence where name = 'svc_new_book';

insert into sqlite_sequence (name, seq) select 'svc_new_book', seq from sqlite_sequence where name = 'book';

drop table "book";

alter table "svc_new_book" rename to "book";

create index "book_author_id_idx" on "book" ("author_id");

create index "book_publisher_id_idx" on "book" ("publisher_id");
`,
  postgres: `
alter table "author" alter column "name" type varchar(200);

alter table "author" add unique ("nickname");

alter table "author" alter column "rating" type integer using "rating"::integer;

alter table "book" alter column "pages" type bigint using "pages"::bigint;

alter table "book" add unique ("isbn");

alter table "book" add column "format" text;

update "book" set "format" = 'paperback';

alter table "book" alter column "format" set not null;
`,
  mongodb: [
    { op: 'createIndex', collection: 'author', field: 'nickname', unique: true },
    { op: 'createIndex', collection: 'book', field: 'isbn', unique: true },
    { op: 'setMissing', collection: 'book', field: 'format', value: 'paperback' },
  ],
};
