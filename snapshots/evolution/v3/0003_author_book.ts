// Written by svcgen from api.raml. A migration of the schema: svcgen wrote it once and never changes or deletes it. Databases that ran it check its checksum at every start, so do not edit it once it has run anywhere.
import type { Migration } from '../../lib/migrate.js';

/**
 * What changed:
 * - Author.name: string (varchar(50) to varchar(200) on PostgreSQL)
 * - Author.nickname: now unique
 * - Author.rating: small_integer to integer (smallint to integer on PostgreSQL)
 * - Book.pages: integer to big_integer (integer to bigint on PostgreSQL)
 * - Book.isbn: now unique, no longer indexed
 * - Book.format added
 */
export const migration: Migration = {
  name: '0003_author_book',
  summary: [
    'Author.name: string (varchar(50) to varchar(200) on PostgreSQL)',
    'Author.nickname: now unique',
    'Author.rating: small_integer to integer (smallint to integer on PostgreSQL)',
    'Book.pages: integer to big_integer (integer to bigint on PostgreSQL)',
    'Book.isbn: now unique, no longer indexed',
    'Book.format added',
  ],
  sqlite: `
drop trigger if exists "svc_search_author_insert";

drop trigger if exists "svc_search_author_delete";

drop trigger if exists "svc_search_author_update";

drop table if exists "svc_search_author";

drop table if exists "svc_search_author_stale";

delete from "svc_search_state" where "name" = 'author';

drop trigger if exists "svc_search_book_insert";

drop trigger if exists "svc_search_book_delete";

drop trigger if exists "svc_search_book_update";

drop table if exists "svc_search_book";

drop table if exists "svc_search_book_stale";

delete from "svc_search_state" where "name" = 'book';

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

create table if not exists "svc_search_state" ("name" text primary key, "indexed_to" integer not null);

create virtual table "svc_search_author" using fts5("name", "bio", "nickname", content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');

create table "svc_search_author_stale" ("changed" integer primary key);

create trigger "svc_search_author_insert" after insert on "author" when new.rowid <= (select "indexed_to" from "svc_search_state" where "name" = 'author') begin
  insert or ignore into "svc_search_author_stale" ("changed") values (new.rowid);
end;

create trigger "svc_search_author_delete" after delete on "author" when old.rowid <= (select "indexed_to" from "svc_search_state" where "name" = 'author') begin
  insert or ignore into "svc_search_author_stale" ("changed") values (old.rowid);
end;

create trigger "svc_search_author_update" after update of "name", "bio", "nickname", "id" on "author" begin
  insert or ignore into "svc_search_author_stale" ("changed") values (old.rowid);
  insert or ignore into "svc_search_author_stale" ("changed") values (new.rowid);
end;

insert into "svc_search_author" (rowid, "name", "bio", "nickname") select rowid, "name", "bio", "nickname" from "author";

insert or replace into "svc_search_state" ("name", "indexed_to") values ('author', coalesce((select max(rowid) from "author"), 0));

create virtual table "svc_search_book" using fts5("title", "isbn", content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');

create table "svc_search_book_stale" ("changed" integer primary key);

create trigger "svc_search_book_insert" after insert on "book" when new.rowid <= (select "indexed_to" from "svc_search_state" where "name" = 'book') begin
  insert or ignore into "svc_search_book_stale" ("changed") values (new.rowid);
end;

create trigger "svc_search_book_delete" after delete on "book" when old.rowid <= (select "indexed_to" from "svc_search_state" where "name" = 'book') begin
  insert or ignore into "svc_search_book_stale" ("changed") values (old.rowid);
end;

create trigger "svc_search_book_update" after update of "title", "isbn", "id" on "book" begin
  insert or ignore into "svc_search_book_stale" ("changed") values (old.rowid);
  insert or ignore into "svc_search_book_stale" ("changed") values (new.rowid);
end;

insert into "svc_search_book" (rowid, "title", "isbn") select rowid, "title", "isbn" from "book";

insert or replace into "svc_search_state" ("name", "indexed_to") values ('book', coalesce((select max(rowid) from "book"), 0));
`,
  postgres: `
alter table "author" drop column if exists "svc_search_name";

alter table "author" alter column "name" type varchar(200);

alter table "author" add unique ("nickname");

alter table "author" alter column "rating" type integer using "rating"::integer;

alter table "book" alter column "pages" type bigint using "pages"::bigint;

alter table "book" add unique ("isbn");

drop index if exists "book_isbn_idx";

alter table "book" add column "format" text;

update "book" set "format" = 'paperback';

alter table "book" alter column "format" set not null;

create or replace function svc_search_fold(value text) returns text
  language sql immutable parallel safe
  return regexp_replace(regexp_replace(normalize(lower(value collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g');

alter table "author" add column "svc_search_name" tsvector generated always as (to_tsvector('simple'::regconfig, regexp_replace(regexp_replace(normalize(lower("name" collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g'))) stored;
create index "author_name_search_idx" on "author" using gin ("svc_search_name");
`,
  mongodb: [
    { op: 'createIndex', collection: 'author', field: 'nickname', unique: true },
    { op: 'dropIndex', collection: 'book', field: 'isbn' },
    { op: 'createIndex', collection: 'book', field: 'isbn', unique: true },
    { op: 'setMissing', collection: 'book', field: 'format', value: 'paperback' },
  ],
};
