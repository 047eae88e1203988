// Written by svcgen from api.raml. A migration of the schema: svcgen wrote it once and never changes or deletes it. Databases that ran it check its checksum at every start, so do not edit it once it has run anywhere.
import type { Migration } from '../../lib/migrate.js';

/**
 * What changed:
 * - every table of the API
 */
export const migration: Migration = {
  name: '0001_initial',
  summary: ['every table of the API'],
  sqlite: `
create table "auth_credential" (
  "user_key" text primary key not null,
  "session_epoch" integer not null,
  "token_digest" text unique
);

create table "auth_login_failure" (
  "attempt_key" text primary key not null,
  "failures" integer not null,
  "window_ends" text not null
);

create table "auth_login_name" (
  "plain_name" text primary key not null,
  "username" text not null
);

create table "profile" (
  "id" integer primary key autoincrement,
  "created_at" text,
  "updated_at" text,
  "address" text,
  "user_id" text unique,
  foreign key ("user_id") references "user" ("username") on delete set null on update cascade
);

create table "story" (
  "id" integer primary key autoincrement,
  "created_at" text,
  "updated_at" text,
  "start_date" text,
  "due_date" text,
  "name" text not null,
  "description" text not null,
  "progress" real,
  "completed" integer check ("completed" in (0, 1)),
  "owner_id" text,
  "assignee_id" text,
  "signs_number" integer,
  "valid_date" text,
  "valid_time" text,
  "reads" integer,
  "rating" integer,
  "available_for" integer,
  "attachment" blob,
  "price" real,
  "arbitrary_object" text,
  "unicode_name" text,
  "unicode_description" text,
  foreign key ("owner_id") references "user" ("username") on delete set null on update cascade,
  foreign key ("assignee_id") references "user" ("username") on delete set null on update cascade
);

create table "user" (
  "created_at" text,
  "updated_at" text,
  "username" text primary key not null,
  "email" text not null unique,
  "password" text not null,
  "first_name" text,
  "last_name" text,
  "last_login" text,
  "groups" text,
  "status" text,
  "settings" text
);

create index "auth_login_failure_window_ends_idx" on "auth_login_failure" ("window_ends");

create index "profile_user_id_idx" on "profile" ("user_id");

create index "story_owner_id_idx" on "story" ("owner_id");

create index "story_assignee_id_idx" on "story" ("assignee_id");

create table if not exists "svc_search_state" ("name" text primary key, "indexed_to" integer not null);

create virtual table "svc_search_profile" using fts5("address", content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');

create table "svc_search_profile_stale" ("changed" integer primary key);

create trigger "svc_search_profile_insert" after insert on "profile" when new.rowid <= (select "indexed_to" from "svc_search_state" where "name" = 'profile') begin
  insert or ignore into "svc_search_profile_stale" ("changed") values (new.rowid);
end;

create trigger "svc_search_profile_delete" after delete on "profile" when old.rowid <= (select "indexed_to" from "svc_search_state" where "name" = 'profile') begin
  insert or ignore into "svc_search_profile_stale" ("changed") values (old.rowid);
end;

create trigger "svc_search_profile_update" after update of "address", "id" on "profile" begin
  insert or ignore into "svc_search_profile_stale" ("changed") values (old.rowid);
  insert or ignore into "svc_search_profile_stale" ("changed") values (new.rowid);
end;

insert into "svc_search_profile" (rowid, "address") select rowid, "address" from "profile";

insert or replace into "svc_search_state" ("name", "indexed_to") values ('profile', coalesce((select max(rowid) from "profile"), 0));

create virtual table "svc_search_story" using fts5("name", "description", "unicode_name", "unicode_description", content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');

create table "svc_search_story_stale" ("changed" integer primary key);

create trigger "svc_search_story_insert" after insert on "story" when new.rowid <= (select "indexed_to" from "svc_search_state" where "name" = 'story') begin
  insert or ignore into "svc_search_story_stale" ("changed") values (new.rowid);
end;

create trigger "svc_search_story_delete" after delete on "story" when old.rowid <= (select "indexed_to" from "svc_search_state" where "name" = 'story') begin
  insert or ignore into "svc_search_story_stale" ("changed") values (old.rowid);
end;

create trigger "svc_search_story_update" after update of "name", "description", "unicode_name", "unicode_description", "id" on "story" begin
  insert or ignore into "svc_search_story_stale" ("changed") values (old.rowid);
  insert or ignore into "svc_search_story_stale" ("changed") values (new.rowid);
end;

insert into "svc_search_story" (rowid, "name", "description", "unicode_name", "unicode_description") select rowid, "name", "description", "unicode_name", "unicode_description" from "story";

insert or replace into "svc_search_state" ("name", "indexed_to") values ('story', coalesce((select max(rowid) from "story"), 0));

create virtual table "svc_search_user" using fts5("username", "email", "first_name", "last_name", content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');

create table "svc_search_user_stale" ("changed" integer primary key);

create trigger "svc_search_user_insert" after insert on "user" when new.rowid <= (select "indexed_to" from "svc_search_state" where "name" = 'user') begin
  insert or ignore into "svc_search_user_stale" ("changed") values (new.rowid);
end;

create trigger "svc_search_user_delete" after delete on "user" when old.rowid <= (select "indexed_to" from "svc_search_state" where "name" = 'user') begin
  insert or ignore into "svc_search_user_stale" ("changed") values (old.rowid);
end;

create trigger "svc_search_user_update" after update of "username", "email", "first_name", "last_name" on "user" begin
  insert or ignore into "svc_search_user_stale" ("changed") values (old.rowid);
  insert or ignore into "svc_search_user_stale" ("changed") values (new.rowid);
end;

insert into "svc_search_user" (rowid, "username", "email", "first_name", "last_name") select rowid, "username", "email", "first_name", "last_name" from "user";

insert or replace into "svc_search_state" ("name", "indexed_to") values ('user', coalesce((select max(rowid) from "user"), 0));
`,
  postgres: `
create table "auth_credential" (
  "user_key" varchar(255) primary key not null,
  "session_epoch" integer not null,
  "token_digest" varchar(64) unique
);

create table "auth_login_failure" (
  "attempt_key" varchar(64) primary key not null,
  "failures" integer not null,
  "window_ends" timestamptz not null
);

create table "auth_login_name" (
  "plain_name" text primary key not null,
  "username" text not null
);

create table "profile" (
  "id" integer generated by default as identity primary key,
  "created_at" timestamptz,
  "updated_at" timestamptz,
  "address" text,
  "user_id" varchar(50) unique
);

create table "story" (
  "id" integer generated by default as identity primary key,
  "created_at" timestamptz,
  "updated_at" timestamptz,
  "start_date" timestamptz,
  "due_date" timestamptz,
  "name" text not null,
  "description" text not null,
  "progress" double precision,
  "completed" boolean,
  "owner_id" varchar(50),
  "assignee_id" varchar(50),
  "signs_number" bigint,
  "valid_date" date,
  "valid_time" time,
  "reads" integer,
  "rating" smallint,
  "available_for" integer,
  "attachment" bytea,
  "price" numeric(38, 10),
  "arbitrary_object" jsonb,
  "unicode_name" text,
  "unicode_description" text
);

create table "user" (
  "created_at" timestamptz,
  "updated_at" timestamptz,
  "username" varchar(50) primary key not null,
  "email" text not null unique,
  "password" text not null,
  "first_name" varchar(50),
  "last_name" varchar(50),
  "last_login" timestamptz,
  "groups" jsonb,
  "status" text,
  "settings" jsonb
);

alter table "profile" add constraint "profile_user_id_fkey" foreign key ("user_id") references "user" ("username") on delete set null on update cascade;

alter table "story" add constraint "story_owner_id_fkey" foreign key ("owner_id") references "user" ("username") on delete set null on update cascade;

alter table "story" add constraint "story_assignee_id_fkey" foreign key ("assignee_id") references "user" ("username") on delete set null on update cascade;

create index "auth_login_failure_window_ends_idx" on "auth_login_failure" ("window_ends");

create index "profile_user_id_idx" on "profile" ("user_id");

create index "story_owner_id_idx" on "story" ("owner_id");

create index "story_assignee_id_idx" on "story" ("assignee_id");

create or replace function svc_search_fold(value text) returns text
  language sql immutable parallel safe
  return regexp_replace(regexp_replace(normalize(lower(value collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g');

alter table "profile" add column "svc_search_address" tsvector generated always as (to_tsvector('simple'::regconfig, regexp_replace(regexp_replace(normalize(lower("address" collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g'))) stored;
create index "profile_address_search_idx" on "profile" using gin ("svc_search_address");

alter table "story" add column "svc_search_name" tsvector generated always as (to_tsvector('simple'::regconfig, regexp_replace(regexp_replace(normalize(lower("name" collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g'))) stored;
create index "story_name_search_idx" on "story" using gin ("svc_search_name");

alter table "story" add column "svc_search_description" tsvector generated always as (to_tsvector('simple'::regconfig, regexp_replace(regexp_replace(normalize(lower("description" collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g'))) stored;
create index "story_description_search_idx" on "story" using gin ("svc_search_description");

alter table "story" add column "svc_search_unicode_name" tsvector generated always as (to_tsvector('simple'::regconfig, regexp_replace(regexp_replace(normalize(lower("unicode_name" collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g'))) stored;
create index "story_unicode_name_search_idx" on "story" using gin ("svc_search_unicode_name");

alter table "story" add column "svc_search_unicode_description" tsvector generated always as (to_tsvector('simple'::regconfig, regexp_replace(regexp_replace(normalize(lower("unicode_description" collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g'))) stored;
create index "story_unicode_description_search_idx" on "story" using gin ("svc_search_unicode_description");

alter table "user" add column "svc_search_username" tsvector generated always as (to_tsvector('simple'::regconfig, regexp_replace(regexp_replace(normalize(lower("username" collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g'))) stored;
create index "user_username_search_idx" on "user" using gin ("svc_search_username");

alter table "user" add column "svc_search_email" tsvector generated always as (to_tsvector('simple'::regconfig, regexp_replace(regexp_replace(normalize(lower("email" collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g'))) stored;
create index "user_email_search_idx" on "user" using gin ("svc_search_email");

alter table "user" add column "svc_search_first_name" tsvector generated always as (to_tsvector('simple'::regconfig, regexp_replace(regexp_replace(normalize(lower("first_name" collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g'))) stored;
create index "user_first_name_search_idx" on "user" using gin ("svc_search_first_name");

alter table "user" add column "svc_search_last_name" tsvector generated always as (to_tsvector('simple'::regconfig, regexp_replace(regexp_replace(normalize(lower("last_name" collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g'))) stored;
create index "user_last_name_search_idx" on "user" using gin ("svc_search_last_name");
`,
  mongodb: [],
};
