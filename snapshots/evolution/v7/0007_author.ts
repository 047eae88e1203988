// Written by svcgen from api.raml. A migration of the schema: svcgen wrote it once and never changes or deletes it. Databases that ran it check its checksum at every start, so do not edit it once it has run anywhere.
import type { Migration } from '../../lib/migrate.js';

/**
 * What changed:
 * - Author.name: string (varchar(200) to varchar(120) on PostgreSQL)
 * - Author.joined_at added
 *
 * It drops data (written with --allow-data-loss):
 * - field Author.name narrows from string of at most 200 characters to string of at most 120 characters: stored values are converted (on SQLite and PostgreSQL a value that does not fit makes the migration fail, and nothing of it is applied; MongoDB keeps it as it is)
 */
export const migration: Migration = {
  name: '0007_author',
  summary: [
    'Author.name: string (varchar(200) to varchar(120) on PostgreSQL)',
    'Author.joined_at added',
    'drops data: field Author.name narrows from string of at most 200 characters to string of at most 120 characters: stored values are converted (on SQLite and PostgreSQL a value that does not fit makes the migration fail, and nothing of it is applied; MongoDB keeps it as it is)',
  ],
  sqlite: `
create temp table "svc_conversion_check" ("ok" integer constraint "Author.name: a stored value is longer than 120 characters (find them: select * from ""author"" where length(""name"") > 120)" check ("ok"));

insert into "svc_conversion_check" select 0 from "author" where length("name") > 120 limit 1;

drop table "svc_conversion_check";

alter table "author" add column "joined_at" text;

update "author" set "joined_at" = strftime('%Y-%m-%dT%H:%M:%SZ', 'now');
`,
  postgres: `
alter table "author" drop column if exists "svc_search_name";

do $$ begin
  if exists (select 1 from "author" where length("name") > 120) then
    raise exception using message = 'Author.name: a stored value is longer than 120 characters (find them: select * from "author" where length("name") > 120)', errcode = 'check_violation';
  end if;
end $$;

alter table "author" alter column "name" type varchar(120);

alter table "author" add column "joined_at" timestamptz;

update "author" set "joined_at" = now();

create or replace function svc_search_fold(value text) returns text
  language sql immutable parallel safe
  return regexp_replace(regexp_replace(normalize(lower(value collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g');

alter table "author" add column "svc_search_name" tsvector generated always as (to_tsvector('simple'::regconfig, regexp_replace(regexp_replace(normalize(lower("name" collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g'))) stored;
create index "author_name_search_idx" on "author" using gin ("svc_search_name");
`,
  mongodb: [{ op: 'setMissingNow', collection: 'author', field: 'joined_at' }],
};
