// Written by svcgen from api.raml. A migration of the schema: svcgen wrote it once and never changes or deletes it. Databases that ran it check its checksum at every start, so do not edit it once it has run anywhere.
import type { Migration } from '../../lib/migrate.js';

/**
 * What changed:
 * - Author.nickname removed
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
    'model Profile removed (table profile dropped)',
    'drops data: field Author.nickname is removed: its values are dropped',
    'drops data: model Profile is removed: table profile and every Profile in it are dropped',
  ],
  sqlite: `
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
`,
  postgres: `
alter table "author" drop column "nickname";

drop table "profile";
`,
  mongodb: [
    { op: 'dropIndex', collection: 'author', field: 'nickname' },
    { op: 'unsetField', collection: 'author', field: 'nickname' },
    { op: 'dropCollection', collection: 'profile' },
  ],
};
