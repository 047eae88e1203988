// Written by svcgen from api.raml. A migration of the schema: svcgen wrote it once and never changes or deletes it. Databases that ran it check its checksum at every start, so do not edit it once it has run anywhere.
import type { Migration } from '../../lib/migrate.js';

/**
 * What changed:
 * - Author.nickname removed
 * - Author: full-text search on name, biography
 * - model Profile removed (table profile dropped)
 *
 * It drops data (written with --allow-data-loss):
 * - field Author.nickname is removed: its values are dropped
 * - model Profile is removed: table profile and every Profile in it are dropped
 */
export const migration: Migration = {
  name: '0006_author_profile',
  summary: [
    'Author.nickname removed',
    'Author: full-text search on name, biography',
    'model Profile removed (table profile dropped)',
    'drops data: field Author.nickname is removed: its values are dropped',
    'drops data: model Profile is removed: table profile and every Profile in it are dropped',
  ],
  sqlite: `
drop trigger if exists "svc_search_author_insert";

drop trigger if exists "svc_search_author_delete";

drop trigger if exists "svc_search_author_update";

drop table if exists "svc_search_author";

drop table if exists "svc_search_author_stale";

delete from "svc_search_state" where "name" = 'author';

drop trigger if exists "svc_search_profile_insert";

drop trigger if exists "svc_search_profile_delete";

drop trigger if exists "svc_search_profile_update";

drop table if exists "svc_search_profile";

drop table if exists "svc_search_profile_stale";

delete from "svc_search_state" where "name" = 'profile';

drop index if exists "profile_author_id_idx";

create table "svc_new_author" (
  "id" integer primary key autoincrement,
  "name" text not null,
  "biography" text,
  "rating" integer
);

insert into "svc_new_author" ("id", "name", "biography", "rating")
  select "id", "name", "biography", "rating" from "author";

delete from sqlite_sequence where name = 'svc_new_author';

insert into sqlite_sequence (name, seq) select 'svc_new_author', seq from sqlite_sequence where name = 'author';

drop table "author";

alter table "svc_new_author" rename to "author";

drop table "profile";

create table if not exists "svc_search_state" ("name" text primary key, "indexed_to" integer not null);

create virtual table "svc_search_author" using fts5("name", "biography", content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');

create table "svc_search_author_stale" ("changed" integer primary key);

create trigger "svc_search_author_insert" after insert on "author" when new.rowid <= (select "indexed_to" from "svc_search_state" where "name" = 'author') begin
  insert or ignore into "svc_search_author_stale" ("changed") values (new.rowid);
end;

create trigger "svc_search_author_delete" after delete on "author" when old.rowid <= (select "indexed_to" from "svc_search_state" where "name" = 'author') begin
  insert or ignore into "svc_search_author_stale" ("changed") values (old.rowid);
end;

create trigger "svc_search_author_update" after update of "name", "biography", "id" on "author" begin
  insert or ignore into "svc_search_author_stale" ("changed") values (old.rowid);
  insert or ignore into "svc_search_author_stale" ("changed") values (new.rowid);
end;

insert into "svc_search_author" (rowid, "name", "biography") select rowid, "name", "biography" from "author";

insert or replace into "svc_search_state" ("name", "indexed_to") values ('author', coalesce((select max(rowid) from "author"), 0));

update svc_events set data = json_remove(data, '$.object."nickname"', '$.previous."nickname"') where model = 'Author' and (json_type(data, '$.object."nickname"') is not null or json_type(data, '$.previous."nickname"') is not null);

update svc_events set data = json_set(data, '$.changed', json((select json_group_array(value order by key) from json_each(data, '$.changed') where value <> 'nickname'))) where model = 'Author' and exists (select 1 from json_each(data, '$.changed') where value = 'nickname');
`,
  postgres: `
alter table "author" drop column if exists "svc_search_nickname";

alter table "author" drop column "nickname";

drop table "profile";

create or replace function svc_search_fold(value text) returns text
  language sql immutable parallel safe
  return regexp_replace(regexp_replace(normalize(lower(value collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g');

update svc_events set data = data #- '{object,nickname}' #- '{row,nickname}' #- '{links,nickname}' #- '{previous,nickname}' where model = 'Author' and (jsonb_exists(data -> 'object', 'nickname') or jsonb_exists(data -> 'row', 'nickname') or jsonb_exists(data -> 'links', 'nickname') or jsonb_exists(data -> 'previous', 'nickname'));

update svc_events set data = jsonb_set(data, '{changed}', coalesce((select jsonb_agg(name order by i) from jsonb_array_elements(data -> 'changed') with ordinality as listed(name, i) where name <> to_jsonb('nickname'::text)), '[]'::jsonb)) where model = 'Author' and jsonb_exists(data -> 'changed', 'nickname');
`,
  mongodb: [
    { op: 'dropCollection', collection: 'profile' },
    { op: 'dropIndex', collection: 'author', field: 'nickname' },
    { op: 'unsetField', collection: 'author', field: 'nickname' },
    { op: 'indexWords', collection: 'author', fields: { name: 'name', biography: 'biography' } },
    { op: 'dropEventField', model: 'Author', field: 'nickname' },
  ],
};
