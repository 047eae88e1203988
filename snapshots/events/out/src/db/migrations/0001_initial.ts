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
create table "auditentry" (
  "id" integer primary key autoincrement,
  "model" text not null,
  "action" text not null,
  "count" integer
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

create table "project" (
  "id" integer primary key autoincrement,
  "name" text not null,
  "slug" text,
  "status" text
);

create table "task" (
  "id" integer primary key autoincrement,
  "title" text not null,
  "done" integer check ("done" in (0, 1)),
  "project_id" integer,
  foreign key ("project_id") references "project" ("id") on delete cascade on update cascade
);

create table "user" (
  "username" text primary key not null,
  "email" text not null unique,
  "password" text not null,
  "groups" text,
  "display_name" text,
  "active" integer check ("active" in (0, 1)),
  "login_count" integer
);

create index "auth_login_failure_window_ends_idx" on "auth_login_failure" ("window_ends");

create index "task_project_id_idx" on "task" ("project_id");

create table if not exists "svc_search_state" ("name" text primary key, "indexed_to" integer not null);

create virtual table "svc_search_auditentry" using fts5("model", "action", content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');

create table "svc_search_auditentry_stale" ("changed" integer primary key);

create trigger "svc_search_auditentry_insert" after insert on "auditentry" when new.rowid <= (select "indexed_to" from "svc_search_state" where "name" = 'auditentry') begin
  insert or ignore into "svc_search_auditentry_stale" ("changed") values (new.rowid);
end;

create trigger "svc_search_auditentry_delete" after delete on "auditentry" when old.rowid <= (select "indexed_to" from "svc_search_state" where "name" = 'auditentry') begin
  insert or ignore into "svc_search_auditentry_stale" ("changed") values (old.rowid);
end;

create trigger "svc_search_auditentry_update" after update of "model", "action", "id" on "auditentry" begin
  insert or ignore into "svc_search_auditentry_stale" ("changed") values (old.rowid);
  insert or ignore into "svc_search_auditentry_stale" ("changed") values (new.rowid);
end;

insert into "svc_search_auditentry" (rowid, "model", "action") select rowid, "model", "action" from "auditentry";

insert or replace into "svc_search_state" ("name", "indexed_to") values ('auditentry', coalesce((select max(rowid) from "auditentry"), 0));

create virtual table "svc_search_project" using fts5("name", "slug", content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');

create table "svc_search_project_stale" ("changed" integer primary key);

create trigger "svc_search_project_insert" after insert on "project" when new.rowid <= (select "indexed_to" from "svc_search_state" where "name" = 'project') begin
  insert or ignore into "svc_search_project_stale" ("changed") values (new.rowid);
end;

create trigger "svc_search_project_delete" after delete on "project" when old.rowid <= (select "indexed_to" from "svc_search_state" where "name" = 'project') begin
  insert or ignore into "svc_search_project_stale" ("changed") values (old.rowid);
end;

create trigger "svc_search_project_update" after update of "name", "slug", "id" on "project" begin
  insert or ignore into "svc_search_project_stale" ("changed") values (old.rowid);
  insert or ignore into "svc_search_project_stale" ("changed") values (new.rowid);
end;

insert into "svc_search_project" (rowid, "name", "slug") select rowid, "name", "slug" from "project";

insert or replace into "svc_search_state" ("name", "indexed_to") values ('project', coalesce((select max(rowid) from "project"), 0));

create virtual table "svc_search_task" using fts5("title", content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');

create table "svc_search_task_stale" ("changed" integer primary key);

create trigger "svc_search_task_insert" after insert on "task" when new.rowid <= (select "indexed_to" from "svc_search_state" where "name" = 'task') begin
  insert or ignore into "svc_search_task_stale" ("changed") values (new.rowid);
end;

create trigger "svc_search_task_delete" after delete on "task" when old.rowid <= (select "indexed_to" from "svc_search_state" where "name" = 'task') begin
  insert or ignore into "svc_search_task_stale" ("changed") values (old.rowid);
end;

create trigger "svc_search_task_update" after update of "title", "id" on "task" begin
  insert or ignore into "svc_search_task_stale" ("changed") values (old.rowid);
  insert or ignore into "svc_search_task_stale" ("changed") values (new.rowid);
end;

insert into "svc_search_task" (rowid, "title") select rowid, "title" from "task";

insert or replace into "svc_search_state" ("name", "indexed_to") values ('task', coalesce((select max(rowid) from "task"), 0));

create virtual table "svc_search_user" using fts5("username", "email", "display_name", content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');

create table "svc_search_user_stale" ("changed" integer primary key);

create trigger "svc_search_user_insert" after insert on "user" when new.rowid <= (select "indexed_to" from "svc_search_state" where "name" = 'user') begin
  insert or ignore into "svc_search_user_stale" ("changed") values (new.rowid);
end;

create trigger "svc_search_user_delete" after delete on "user" when old.rowid <= (select "indexed_to" from "svc_search_state" where "name" = 'user') begin
  insert or ignore into "svc_search_user_stale" ("changed") values (old.rowid);
end;

create trigger "svc_search_user_update" after update of "username", "email", "display_name" on "user" begin
  insert or ignore into "svc_search_user_stale" ("changed") values (old.rowid);
  insert or ignore into "svc_search_user_stale" ("changed") values (new.rowid);
end;

insert into "svc_search_user" (rowid, "username", "email", "display_name") select rowid, "username", "email", "display_name" from "user";

insert or replace into "svc_search_state" ("name", "indexed_to") values ('user', coalesce((select max(rowid) from "user"), 0));
`,
  postgres: `
create table "auditentry" (
  "id" integer generated by default as identity primary key,
  "model" text not null,
  "action" text not null,
  "count" integer
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

create table "project" (
  "id" integer generated by default as identity primary key,
  "name" varchar(100) not null,
  "slug" varchar(100),
  "status" text
);

create table "task" (
  "id" integer generated by default as identity primary key,
  "title" varchar(200) not null,
  "done" boolean,
  "project_id" integer
);

create table "user" (
  "username" varchar(50) primary key not null,
  "email" text not null unique,
  "password" text not null,
  "groups" jsonb,
  "display_name" varchar(100),
  "active" boolean,
  "login_count" integer
);

alter table "task" add constraint "task_project_id_fkey" foreign key ("project_id") references "project" ("id") on delete cascade on update cascade;

create index "auth_login_failure_window_ends_idx" on "auth_login_failure" ("window_ends");

create index "task_project_id_idx" on "task" ("project_id");

create or replace function svc_search_fold(value text) returns text
  language sql immutable parallel safe
  return regexp_replace(regexp_replace(normalize(lower(value collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g');

alter table "auditentry" add column "svc_search_model" tsvector generated always as (to_tsvector('simple'::regconfig, regexp_replace(regexp_replace(normalize(lower("model" collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g'))) stored;
create index "auditentry_model_search_idx" on "auditentry" using gin ("svc_search_model");

alter table "auditentry" add column "svc_search_action" tsvector generated always as (to_tsvector('simple'::regconfig, regexp_replace(regexp_replace(normalize(lower("action" collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g'))) stored;
create index "auditentry_action_search_idx" on "auditentry" using gin ("svc_search_action");

alter table "project" add column "svc_search_name" tsvector generated always as (to_tsvector('simple'::regconfig, regexp_replace(regexp_replace(normalize(lower("name" collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g'))) stored;
create index "project_name_search_idx" on "project" using gin ("svc_search_name");

alter table "project" add column "svc_search_slug" tsvector generated always as (to_tsvector('simple'::regconfig, regexp_replace(regexp_replace(normalize(lower("slug" collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g'))) stored;
create index "project_slug_search_idx" on "project" using gin ("svc_search_slug");

alter table "task" add column "svc_search_title" tsvector generated always as (to_tsvector('simple'::regconfig, regexp_replace(regexp_replace(normalize(lower("title" collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g'))) stored;
create index "task_title_search_idx" on "task" using gin ("svc_search_title");

alter table "user" add column "svc_search_username" tsvector generated always as (to_tsvector('simple'::regconfig, regexp_replace(regexp_replace(normalize(lower("username" collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g'))) stored;
create index "user_username_search_idx" on "user" using gin ("svc_search_username");

alter table "user" add column "svc_search_email" tsvector generated always as (to_tsvector('simple'::regconfig, regexp_replace(regexp_replace(normalize(lower("email" collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g'))) stored;
create index "user_email_search_idx" on "user" using gin ("svc_search_email");

alter table "user" add column "svc_search_display_name" tsvector generated always as (to_tsvector('simple'::regconfig, regexp_replace(regexp_replace(normalize(lower("display_name" collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g'))) stored;
create index "user_display_name_search_idx" on "user" using gin ("svc_search_display_name");
`,
  mongodb: [],
};
