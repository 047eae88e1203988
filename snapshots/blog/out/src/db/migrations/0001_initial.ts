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
create table "address" (
  "id" integer primary key autoincrement,
  "street" text,
  "city" text not null,
  "location" text,
  "author_id" integer unique,
  "code" text,
  foreign key ("author_id") references "author" ("id") on delete set null on update cascade
);

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

create table "author" (
  "id" integer primary key autoincrement,
  "name" text not null,
  "email" text not null unique,
  "bio" text,
  "born" text,
  "karma" integer,
  "links" text,
  "joined_at" text
);

create table "comment" (
  "id" integer primary key autoincrement,
  "text" text not null,
  "spam" integer check ("spam" in (0, 1)),
  "posted_at" text,
  "edited_at" text,
  "post_id" text,
  "parent_id" integer,
  foreign key ("post_id") references "post" ("slug") on delete restrict on update cascade,
  foreign key ("parent_id") references "comment" ("id") on delete cascade on update cascade
);

create table "post" (
  "slug" text primary key not null,
  "title" text not null,
  "body" text,
  "status" text,
  "score" integer,
  "rating" real,
  "views" integer,
  "published_at" text,
  "reading_time" integer,
  "tags" text,
  "author_id" integer,
  "reviewer_id" integer,
  foreign key ("author_id") references "author" ("id") on delete cascade on update cascade,
  foreign key ("reviewer_id") references "author" ("id") on delete set null on update cascade
);

create table "user" (
  "username" text primary key not null,
  "email" text not null unique,
  "password" text not null,
  "groups" text
);

create index "address_author_id_idx" on "address" ("author_id");

create index "auth_login_failure_window_ends_idx" on "auth_login_failure" ("window_ends");

create index "comment_post_id_idx" on "comment" ("post_id");

create index "comment_parent_id_idx" on "comment" ("parent_id");

create index "post_author_id_idx" on "post" ("author_id");

create index "post_reviewer_id_idx" on "post" ("reviewer_id");

create table if not exists "svc_search_state" ("name" text primary key, "indexed_to" integer not null);

create virtual table "svc_search_address" using fts5("street", "city", "code", content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');

create table "svc_search_address_stale" ("changed" integer primary key);

create trigger "svc_search_address_insert" after insert on "address" when new.rowid <= (select "indexed_to" from "svc_search_state" where "name" = 'address') begin
  insert or ignore into "svc_search_address_stale" ("changed") values (new.rowid);
end;

create trigger "svc_search_address_delete" after delete on "address" when old.rowid <= (select "indexed_to" from "svc_search_state" where "name" = 'address') begin
  insert or ignore into "svc_search_address_stale" ("changed") values (old.rowid);
end;

create trigger "svc_search_address_update" after update of "street", "city", "code", "id" on "address" begin
  insert or ignore into "svc_search_address_stale" ("changed") values (old.rowid);
  insert or ignore into "svc_search_address_stale" ("changed") values (new.rowid);
end;

insert into "svc_search_address" (rowid, "street", "city", "code") select rowid, "street", "city", "code" from "address";

insert or replace into "svc_search_state" ("name", "indexed_to") values ('address', coalesce((select max(rowid) from "address"), 0));

create virtual table "svc_search_author" using fts5("name", "email", "bio", content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');

create table "svc_search_author_stale" ("changed" integer primary key);

create trigger "svc_search_author_insert" after insert on "author" when new.rowid <= (select "indexed_to" from "svc_search_state" where "name" = 'author') begin
  insert or ignore into "svc_search_author_stale" ("changed") values (new.rowid);
end;

create trigger "svc_search_author_delete" after delete on "author" when old.rowid <= (select "indexed_to" from "svc_search_state" where "name" = 'author') begin
  insert or ignore into "svc_search_author_stale" ("changed") values (old.rowid);
end;

create trigger "svc_search_author_update" after update of "name", "email", "bio", "id" on "author" begin
  insert or ignore into "svc_search_author_stale" ("changed") values (old.rowid);
  insert or ignore into "svc_search_author_stale" ("changed") values (new.rowid);
end;

insert into "svc_search_author" (rowid, "name", "email", "bio") select rowid, "name", "email", "bio" from "author";

insert or replace into "svc_search_state" ("name", "indexed_to") values ('author', coalesce((select max(rowid) from "author"), 0));

create virtual table "svc_search_comment" using fts5("text", content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');

create table "svc_search_comment_stale" ("changed" integer primary key);

create trigger "svc_search_comment_insert" after insert on "comment" when new.rowid <= (select "indexed_to" from "svc_search_state" where "name" = 'comment') begin
  insert or ignore into "svc_search_comment_stale" ("changed") values (new.rowid);
end;

create trigger "svc_search_comment_delete" after delete on "comment" when old.rowid <= (select "indexed_to" from "svc_search_state" where "name" = 'comment') begin
  insert or ignore into "svc_search_comment_stale" ("changed") values (old.rowid);
end;

create trigger "svc_search_comment_update" after update of "text", "id" on "comment" begin
  insert or ignore into "svc_search_comment_stale" ("changed") values (old.rowid);
  insert or ignore into "svc_search_comment_stale" ("changed") values (new.rowid);
end;

insert into "svc_search_comment" (rowid, "text") select rowid, "text" from "comment";

insert or replace into "svc_search_state" ("name", "indexed_to") values ('comment', coalesce((select max(rowid) from "comment"), 0));

create virtual table "svc_search_post" using fts5("slug", "title", "body", content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');

create table "svc_search_post_stale" ("changed" integer primary key);

create trigger "svc_search_post_insert" after insert on "post" when new.rowid <= (select "indexed_to" from "svc_search_state" where "name" = 'post') begin
  insert or ignore into "svc_search_post_stale" ("changed") values (new.rowid);
end;

create trigger "svc_search_post_delete" after delete on "post" when old.rowid <= (select "indexed_to" from "svc_search_state" where "name" = 'post') begin
  insert or ignore into "svc_search_post_stale" ("changed") values (old.rowid);
end;

create trigger "svc_search_post_update" after update of "slug", "title", "body" on "post" begin
  insert or ignore into "svc_search_post_stale" ("changed") values (old.rowid);
  insert or ignore into "svc_search_post_stale" ("changed") values (new.rowid);
end;

insert into "svc_search_post" (rowid, "slug", "title", "body") select rowid, "slug", "title", "body" from "post";

insert or replace into "svc_search_state" ("name", "indexed_to") values ('post', coalesce((select max(rowid) from "post"), 0));

create virtual table "svc_search_user" using fts5("username", "email", content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');

create table "svc_search_user_stale" ("changed" integer primary key);

create trigger "svc_search_user_insert" after insert on "user" when new.rowid <= (select "indexed_to" from "svc_search_state" where "name" = 'user') begin
  insert or ignore into "svc_search_user_stale" ("changed") values (new.rowid);
end;

create trigger "svc_search_user_delete" after delete on "user" when old.rowid <= (select "indexed_to" from "svc_search_state" where "name" = 'user') begin
  insert or ignore into "svc_search_user_stale" ("changed") values (old.rowid);
end;

create trigger "svc_search_user_update" after update of "username", "email" on "user" begin
  insert or ignore into "svc_search_user_stale" ("changed") values (old.rowid);
  insert or ignore into "svc_search_user_stale" ("changed") values (new.rowid);
end;

insert into "svc_search_user" (rowid, "username", "email") select rowid, "username", "email" from "user";

insert or replace into "svc_search_state" ("name", "indexed_to") values ('user', coalesce((select max(rowid) from "user"), 0));
`,
  postgres: `
create table "address" (
  "id" integer generated by default as identity primary key,
  "street" text,
  "city" text not null,
  "location" jsonb,
  "author_id" integer unique,
  "code" text
);

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

create table "author" (
  "id" integer generated by default as identity primary key,
  "name" varchar(100) not null,
  "email" text not null unique,
  "bio" text,
  "born" date,
  "karma" integer,
  "links" jsonb,
  "joined_at" timestamptz
);

create table "comment" (
  "id" integer generated by default as identity primary key,
  "text" text not null,
  "spam" boolean,
  "posted_at" timestamptz,
  "edited_at" timestamptz,
  "post_id" varchar(80),
  "parent_id" integer
);

create table "post" (
  "slug" varchar(80) primary key not null,
  "title" text not null,
  "body" text,
  "status" text,
  "score" integer,
  "rating" numeric(5, 2),
  "views" bigint,
  "published_at" timestamptz,
  "reading_time" integer,
  "tags" jsonb,
  "author_id" integer,
  "reviewer_id" integer
);

create table "user" (
  "username" varchar(50) primary key not null,
  "email" text not null unique,
  "password" text not null,
  "groups" jsonb
);

alter table "address" add constraint "address_author_id_fkey" foreign key ("author_id") references "author" ("id") on delete set null on update cascade;

alter table "comment" add constraint "comment_post_id_fkey" foreign key ("post_id") references "post" ("slug") on delete restrict on update cascade;

alter table "comment" add constraint "comment_parent_id_fkey" foreign key ("parent_id") references "comment" ("id") on delete cascade on update cascade;

alter table "post" add constraint "post_author_id_fkey" foreign key ("author_id") references "author" ("id") on delete cascade on update cascade;

alter table "post" add constraint "post_reviewer_id_fkey" foreign key ("reviewer_id") references "author" ("id") on delete set null on update cascade;

create index "address_author_id_idx" on "address" ("author_id");

create index "auth_login_failure_window_ends_idx" on "auth_login_failure" ("window_ends");

create index "comment_post_id_idx" on "comment" ("post_id");

create index "comment_parent_id_idx" on "comment" ("parent_id");

create index "post_author_id_idx" on "post" ("author_id");

create index "post_reviewer_id_idx" on "post" ("reviewer_id");

create or replace function svc_search_fold(value text) returns text
  language sql immutable parallel safe
  return regexp_replace(regexp_replace(normalize(lower(value collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g');

alter table "address" add column "svc_search_street" tsvector generated always as (to_tsvector('simple'::regconfig, regexp_replace(regexp_replace(normalize(lower("street" collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g'))) stored;
create index "address_street_search_idx" on "address" using gin ("svc_search_street");

alter table "address" add column "svc_search_city" tsvector generated always as (to_tsvector('simple'::regconfig, regexp_replace(regexp_replace(normalize(lower("city" collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g'))) stored;
create index "address_city_search_idx" on "address" using gin ("svc_search_city");

alter table "address" add column "svc_search_code" tsvector generated always as (to_tsvector('simple'::regconfig, regexp_replace(regexp_replace(normalize(lower("code" collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g'))) stored;
create index "address_code_search_idx" on "address" using gin ("svc_search_code");

alter table "author" add column "svc_search_name" tsvector generated always as (to_tsvector('simple'::regconfig, regexp_replace(regexp_replace(normalize(lower("name" collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g'))) stored;
create index "author_name_search_idx" on "author" using gin ("svc_search_name");

alter table "author" add column "svc_search_email" tsvector generated always as (to_tsvector('simple'::regconfig, regexp_replace(regexp_replace(normalize(lower("email" collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g'))) stored;
create index "author_email_search_idx" on "author" using gin ("svc_search_email");

alter table "author" add column "svc_search_bio" tsvector generated always as (to_tsvector('simple'::regconfig, regexp_replace(regexp_replace(normalize(lower("bio" collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g'))) stored;
create index "author_bio_search_idx" on "author" using gin ("svc_search_bio");

alter table "comment" add column "svc_search_text" tsvector generated always as (to_tsvector('simple'::regconfig, regexp_replace(regexp_replace(normalize(lower("text" collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g'))) stored;
create index "comment_text_search_idx" on "comment" using gin ("svc_search_text");

alter table "post" add column "svc_search_slug" tsvector generated always as (to_tsvector('simple'::regconfig, regexp_replace(regexp_replace(normalize(lower("slug" collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g'))) stored;
create index "post_slug_search_idx" on "post" using gin ("svc_search_slug");

alter table "post" add column "svc_search_title" tsvector generated always as (to_tsvector('simple'::regconfig, regexp_replace(regexp_replace(normalize(lower("title" collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g'))) stored;
create index "post_title_search_idx" on "post" using gin ("svc_search_title");

alter table "post" add column "svc_search_body" tsvector generated always as (to_tsvector('simple'::regconfig, regexp_replace(regexp_replace(normalize(lower("body" collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g'))) stored;
create index "post_body_search_idx" on "post" using gin ("svc_search_body");

alter table "user" add column "svc_search_username" tsvector generated always as (to_tsvector('simple'::regconfig, regexp_replace(regexp_replace(normalize(lower("username" collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g'))) stored;
create index "user_username_search_idx" on "user" using gin ("svc_search_username");

alter table "user" add column "svc_search_email" tsvector generated always as (to_tsvector('simple'::regconfig, regexp_replace(regexp_replace(normalize(lower("email" collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g'))) stored;
create index "user_email_search_idx" on "user" using gin ("svc_search_email");
`,
  mongodb: [],
};
