/**
 * The MongoDB steps of a migration (lib/migrate.ts applies them, lib/mongo/migrate.ts carries them
 * out): documents have no schema, so only what stored data must follow is a step. It imports
 * nothing: svcgen writes these steps into the migrations it generates, typed by this union.
 */
/** Field names are document paths: `_id` for the primary key, a link under its relationship's name. */
export type MongoStep =
  | { readonly op: 'renameCollection'; readonly from: string; readonly to: string }
  | { readonly op: 'dropCollection'; readonly collection: string }
  | { readonly op: 'renameField'; readonly collection: string; readonly from: string; readonly to: string }
  | { readonly op: 'unsetField'; readonly collection: string; readonly field: string }
  | { readonly op: 'setMissing'; readonly collection: string; readonly field: string; readonly value: unknown }
  /** The time of the migration, as the field's `{{now}}` default would give it. */
  | { readonly op: 'setMissingNow'; readonly collection: string; readonly field: string }
  | {
      readonly op: 'createIndex';
      readonly collection: string;
      readonly field: string;
      readonly unique: boolean;
      /** A plain index the schema asked for (`_db_settings.index`); absent on a link's (and in migrations before it). */
      readonly asked?: true;
    }
  | { readonly op: 'dropIndex'; readonly collection: string; readonly field: string }
  /** An integer field become text: each stored number as its decimal digits. */
  | { readonly op: 'convertToText'; readonly collection: string; readonly field: string }
  /** A field become required with no default: the migration fails while a document has no value for it. */
  | { readonly op: 'requireValues'; readonly collection: string; readonly field: string }
  /** A field whose type became another temporal one: each stored value converted (a datetime's date, a date's midnight). */
  | {
      readonly op: 'convertTemporal';
      readonly collection: string;
      readonly field: string;
      readonly to: 'datetime' | 'date' | 'time';
    }
  /** Full-text search: every document's words (`_search`) from these fields (name → document path), and their index. */
  | { readonly op: 'indexWords'; readonly collection: string; readonly fields: Readonly<Record<string, string>> }
  /** No field is searched any more: the words and their index go. */
  | { readonly op: 'dropWords'; readonly collection: string }
  /** Retained events follow a renamed model: their type, model and object's `_type`, and their deliveries. */
  | { readonly op: 'renameEventModel'; readonly from: string; readonly to: string }
  /** …and a renamed field of a model's objects, in each retained event's object (`from` and `to`: field names). */
  | { readonly op: 'renameEventField'; readonly model: string; readonly from: string; readonly to: string }
  /** …and a dropped one: out of each retained event of its model. */
  | { readonly op: 'dropEventField'; readonly model: string; readonly field: string };
