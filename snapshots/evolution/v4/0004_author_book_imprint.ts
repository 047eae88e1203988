// Written by svcgen from api.raml. A migration of the schema: svcgen wrote it once and never changes or deletes it. Databases that ran it check its checksum at every start, so do not edit it once it has run anywhere.
import type { Migration } from '../../lib/migrate.js';

/**
 * What changed:
 * - Author.bio renamed to biography
 * - Author: full-text search on name, biography, nickname
 * - Book.author_id: foreign key to author (on delete cascade)
 * - Book.isbn: no longer unique, indexed
 * - Book.publisher_id renamed to imprint_id
 * - model Publisher renamed to Imprint (table publisher to imprint)
 */
export const migration: Migration = {
  name: '0004_author_book_imprint',
  summary: [
    'Author.bio renamed to biography',
    'Author: full-text search on name, biography, nickname',
    'Book.author_id: foreign key to author (on delete cascade)',
    'Book.isbn: no longer unique, indexed',
    'Book.publisher_id renamed to imprint_id',
    'model Publisher renamed to Imprint (table publisher to imprint)',
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

drop trigger if exists "svc_search_publisher_insert";

drop trigger if exists "svc_search_publisher_delete";

drop trigger if exists "svc_search_publisher_update";

drop table if exists "svc_search_publisher";

drop table if exists "svc_search_publisher_stale";

delete from "svc_search_state" where "name" = 'publisher';

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

create index "book_isbn_idx" on "book" ("isbn");

create index "book_imprint_id_idx" on "book" ("imprint_id");

create table if not exists "svc_search_state" ("name" text primary key, "indexed_to" integer not null);

create virtual table "svc_search_author" using fts5("name", "biography", "nickname", content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');

create table "svc_search_author_stale" ("changed" integer primary key);

create trigger "svc_search_author_insert" after insert on "author" when new.rowid <= (select "indexed_to" from "svc_search_state" where "name" = 'author') begin
  insert or ignore into "svc_search_author_stale" ("changed") values (new.rowid);
end;

create trigger "svc_search_author_delete" after delete on "author" when old.rowid <= (select "indexed_to" from "svc_search_state" where "name" = 'author') begin
  insert or ignore into "svc_search_author_stale" ("changed") values (old.rowid);
end;

create trigger "svc_search_author_update" after update of "name", "biography", "nickname", "id" on "author" begin
  insert or ignore into "svc_search_author_stale" ("changed") values (old.rowid);
  insert or ignore into "svc_search_author_stale" ("changed") values (new.rowid);
end;

insert into "svc_search_author" (rowid, "name", "biography", "nickname") select rowid, "name", "biography", "nickname" from "author";

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

create virtual table "svc_search_imprint" using fts5("name", content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');

create table "svc_search_imprint_stale" ("changed" integer primary key);

create trigger "svc_search_imprint_insert" after insert on "imprint" when new.rowid <= (select "indexed_to" from "svc_search_state" where "name" = 'imprint') begin
  insert or ignore into "svc_search_imprint_stale" ("changed") values (new.rowid);
end;

create trigger "svc_search_imprint_delete" after delete on "imprint" when old.rowid <= (select "indexed_to" from "svc_search_state" where "name" = 'imprint') begin
  insert or ignore into "svc_search_imprint_stale" ("changed") values (old.rowid);
end;

create trigger "svc_search_imprint_update" after update of "name", "id" on "imprint" begin
  insert or ignore into "svc_search_imprint_stale" ("changed") values (old.rowid);
  insert or ignore into "svc_search_imprint_stale" ("changed") values (new.rowid);
end;

insert into "svc_search_imprint" (rowid, "name") select rowid, "name" from "imprint";

insert or replace into "svc_search_state" ("name", "indexed_to") values ('imprint', coalesce((select max(rowid) from "imprint"), 0));

update svc_events set model = 'Imprint', type = 'Imprint' || substr(type, 10), data = json_set(data, '$.object._type', 'Imprint') where model = 'Publisher';

update svc_deliveries set type = 'Imprint' || substr(type, 10), object = 'Imprint' || substr(object, 10) where substr(type, 1, 10) = 'Publisher.';

update svc_events set data = json_set(json_remove(data, '$.object."bio"'), '$.object."biography"', data -> '$.object."bio"') where model = 'Author' and json_type(data, '$.object."bio"') is not null;

update svc_events set data = json_set(json_remove(data, '$.previous."bio"'), '$.previous."biography"', data -> '$.previous."bio"') where model = 'Author' and json_type(data, '$.previous."bio"') is not null;

update svc_events set data = json_set(data, '$.changed', json((select json_group_array(case when value = 'bio' then 'biography' else value end order by key) from json_each(data, '$.changed')))) where model = 'Author' and exists (select 1 from json_each(data, '$.changed') where value = 'bio');

update svc_events set data = json_set(json_remove(data, '$.object."publisher_id"'), '$.object."imprint_id"', data -> '$.object."publisher_id"') where model = 'Book' and json_type(data, '$.object."publisher_id"') is not null;

update svc_events set data = json_set(json_remove(data, '$.previous."publisher_id"'), '$.previous."imprint_id"', data -> '$.previous."publisher_id"') where model = 'Book' and json_type(data, '$.previous."publisher_id"') is not null;

update svc_events set data = json_set(data, '$.changed', json((select json_group_array(case when value = 'publisher_id' then 'imprint_id' else value end order by key) from json_each(data, '$.changed')))) where model = 'Book' and exists (select 1 from json_each(data, '$.changed') where value = 'publisher_id');

update svc_events set data = json_set(json_remove(data, '$.object."publisher"'), '$.object."imprint"', data -> '$.object."publisher"') where model = 'Book' and json_type(data, '$.object."publisher"') is not null;

update svc_events set data = json_set(json_remove(data, '$.previous."publisher"'), '$.previous."imprint"', data -> '$.previous."publisher"') where model = 'Book' and json_type(data, '$.previous."publisher"') is not null;

update svc_events set data = json_set(data, '$.changed', json((select json_group_array(case when value = 'publisher' then 'imprint' else value end order by key) from json_each(data, '$.changed')))) where model = 'Book' and exists (select 1 from json_each(data, '$.changed') where value = 'publisher');
`,
  postgres: `
alter table "author" drop column if exists "svc_search_bio";

alter table "publisher" drop column if exists "svc_search_name";

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

create index "book_isbn_idx" on "book" ("isbn");

create or replace function svc_search_fold(value text) returns text
  language sql immutable parallel safe
  return regexp_replace(regexp_replace(normalize(lower(value collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g');

alter table "author" add column "svc_search_biography" tsvector generated always as (to_tsvector('simple'::regconfig, regexp_replace(regexp_replace(normalize(lower("biography" collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g'))) stored;
create index "author_biography_search_idx" on "author" using gin ("svc_search_biography");

alter table "imprint" add column "svc_search_name" tsvector generated always as (to_tsvector('simple'::regconfig, regexp_replace(regexp_replace(normalize(lower("name" collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g'))) stored;
create index "imprint_name_search_idx" on "imprint" using gin ("svc_search_name");

update svc_events set model = 'Imprint', type = 'Imprint' || substr(type, 10), data = jsonb_set(data, '{object,_type}', to_jsonb('Imprint'::text)) where model = 'Publisher';

update svc_deliveries set type = 'Imprint' || substr(type, 10), object = 'Imprint' || substr(object, 10) where substr(type, 1, 10) = 'Publisher.';

update svc_events set data = jsonb_set(data #- '{object,bio}', '{object,biography}', data #> '{object,bio}') where model = 'Author' and jsonb_exists(data -> 'object', 'bio');

update svc_events set data = jsonb_set(data #- '{row,bio}', '{row,biography}', data #> '{row,bio}') where model = 'Author' and jsonb_exists(data -> 'row', 'bio');

update svc_events set data = jsonb_set(data #- '{links,bio}', '{links,biography}', data #> '{links,bio}') where model = 'Author' and jsonb_exists(data -> 'links', 'bio');

update svc_events set data = jsonb_set(data #- '{previous,bio}', '{previous,biography}', data #> '{previous,bio}') where model = 'Author' and jsonb_exists(data -> 'previous', 'bio');

update svc_events set data = jsonb_set(data, '{changed}', (select jsonb_agg(case when name = to_jsonb('bio'::text) then to_jsonb('biography'::text) else name end order by i) from jsonb_array_elements(data -> 'changed') with ordinality as listed(name, i))) where model = 'Author' and jsonb_exists(data -> 'changed', 'bio');

update svc_events set data = jsonb_set(data #- '{object,publisher_id}', '{object,imprint_id}', data #> '{object,publisher_id}') where model = 'Book' and jsonb_exists(data -> 'object', 'publisher_id');

update svc_events set data = jsonb_set(data #- '{row,publisher_id}', '{row,imprint_id}', data #> '{row,publisher_id}') where model = 'Book' and jsonb_exists(data -> 'row', 'publisher_id');

update svc_events set data = jsonb_set(data #- '{links,publisher_id}', '{links,imprint_id}', data #> '{links,publisher_id}') where model = 'Book' and jsonb_exists(data -> 'links', 'publisher_id');

update svc_events set data = jsonb_set(data #- '{previous,publisher_id}', '{previous,imprint_id}', data #> '{previous,publisher_id}') where model = 'Book' and jsonb_exists(data -> 'previous', 'publisher_id');

update svc_events set data = jsonb_set(data, '{changed}', (select jsonb_agg(case when name = to_jsonb('publisher_id'::text) then to_jsonb('imprint_id'::text) else name end order by i) from jsonb_array_elements(data -> 'changed') with ordinality as listed(name, i))) where model = 'Book' and jsonb_exists(data -> 'changed', 'publisher_id');

update svc_events set data = jsonb_set(data #- '{object,publisher}', '{object,imprint}', data #> '{object,publisher}') where model = 'Book' and jsonb_exists(data -> 'object', 'publisher');

update svc_events set data = jsonb_set(data #- '{row,publisher}', '{row,imprint}', data #> '{row,publisher}') where model = 'Book' and jsonb_exists(data -> 'row', 'publisher');

update svc_events set data = jsonb_set(data #- '{links,publisher}', '{links,imprint}', data #> '{links,publisher}') where model = 'Book' and jsonb_exists(data -> 'links', 'publisher');

update svc_events set data = jsonb_set(data #- '{previous,publisher}', '{previous,imprint}', data #> '{previous,publisher}') where model = 'Book' and jsonb_exists(data -> 'previous', 'publisher');

update svc_events set data = jsonb_set(data, '{changed}', (select jsonb_agg(case when name = to_jsonb('publisher'::text) then to_jsonb('imprint'::text) else name end order by i) from jsonb_array_elements(data -> 'changed') with ordinality as listed(name, i))) where model = 'Book' and jsonb_exists(data -> 'changed', 'publisher');
`,
  mongodb: [
    { op: 'renameCollection', from: 'publisher', to: 'imprint' },
    { op: 'renameField', collection: 'author', from: 'bio', to: 'biography' },
    { op: 'indexWords', collection: 'author', fields: { name: 'name', biography: 'biography', nickname: 'nickname' } },
    { op: 'dropIndex', collection: 'book', field: 'author' },
    { op: 'dropIndex', collection: 'book', field: 'isbn' },
    { op: 'dropIndex', collection: 'book', field: 'publisher' },
    { op: 'renameField', collection: 'book', from: 'publisher', to: 'imprint' },
    { op: 'createIndex', collection: 'book', field: 'author', unique: false },
    { op: 'createIndex', collection: 'book', field: 'isbn', unique: false, asked: true },
    { op: 'createIndex', collection: 'book', field: 'imprint', unique: false },
    { op: 'renameEventModel', from: 'Publisher', to: 'Imprint' },
    { op: 'renameEventField', model: 'Author', from: 'bio', to: 'biography' },
    { op: 'renameEventField', model: 'Book', from: 'publisher_id', to: 'imprint_id' },
    { op: 'renameEventField', model: 'Book', from: 'publisher', to: 'imprint' },
  ],
};
