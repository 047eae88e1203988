/**
 * Field values between JSON, the query string and the databases. In the service, values are
 * JSON-ready: datetimes are `YYYY-MM-DDTHH:MM:SSZ`, dates `YYYY-MM-DD`, times `HH:MM:SS`,
 * intervals whole seconds, files base64 text.
 */
import type { FieldSpec, Storage } from './model.js';
import { text } from './text.js';

export type Dialect = 'sqlite' | 'postgres';

/**
 * Accepts RFC 3339 and ISO 8601 datetimes (`T`, `t` or a space between date and time; `Z`, `z`, an
 * offset, or none: UTC; seconds and their fraction optional), dates, and what PostgreSQL prints for
 * timestamptz (`2026-01-02 03:04:05+00`). Gives one form, `YYYY-MM-DDTHH:MM:SSZ` in UTC, so that
 * every engine stores, compares and sorts the same value: a fraction of a second is dropped (the
 * service shows whole seconds), and a leap second (`23:59:60`) is the next minute's first, as
 * PostgreSQL reads it.
 */
export function parseDatetime(text: string): string | undefined {
  const m =
    /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/.exec(
      text.trim(),
    );
  if (!m) return undefined;
  const [, y, mo, d, h = '00', mi = '00', s = '00', zone] = m;
  const offset =
    !zone || zone === 'Z' || zone === 'z' ? 'Z' : `${zone.slice(0, 3)}:${zone.length > 3 ? zone.slice(-2) : '00'}`;
  const leap = s === '60';
  if (!isCalendarDate(y!, mo!, d!) || Number(h) > 23 || Number(mi) > 59 || (Number(s) > 59 && !leap)) return undefined;
  const date = new Date(`${y}-${mo}-${d}T${h}:${mi}:${leap ? '59' : s}${offset}`);
  if (Number.isNaN(date.getTime())) return undefined;
  if (leap) date.setTime(date.getTime() + 1000);
  // In UTC, a year of four digits: 9999-12-31T23:59:59-01:00 would be year 10000 ("+010000-…"),
  // which no engine sorts or compares as the others do.
  const year = date.getUTCFullYear();
  if (year < 1 || year > 9999) return undefined;
  return `${date.toISOString().slice(0, 19)}Z`;
}

/** 2026-02-30 is not a date (JavaScript would roll it over to March 2); nor is year 0. */
function isCalendarDate(y: string, mo: string, d: string): boolean {
  // setUTCFullYear, not Date.UTC, which reads the years 0–99 as 1900–1999.
  const date = new Date(0);
  date.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  if (Number(y) < 1) return false;
  return (
    date.getUTCFullYear() === Number(y) && date.getUTCMonth() === Number(mo) - 1 && date.getUTCDate() === Number(d)
  );
}

export function parseDate(text: string): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text.trim());
  return m && isCalendarDate(m[1]!, m[2]!, m[3]!) ? m[0] : undefined;
}

export function parseTime(text: string): string | undefined {
  const m = /^([01]?\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(?:\.\d+)?)?$/.exec(text.trim());
  return m ? `${m[1]!.padStart(2, '0')}:${m[2]}:${m[3] ?? '00'}` : undefined;
}

export function now(): string {
  return `${new Date().toISOString().slice(0, 19)}Z`;
}

/**
 * The values `fromDb` gives back as they are, by storage: numbers of numeric columns and strings
 * of text columns (the `typeof` they have). The row functions compiled per model
 * (sql/row-record.ts) call `fromDb` only for the others.
 */
export const UNCONVERTED_FROM_DB: Readonly<Partial<Record<Storage, 'number' | 'string'>>> = {
  integer: 'number',
  real: 'number',
  text: 'string',
};

/** A value from the database, as the service shows it. A list is never null: one never set holds nothing. */
export function fromDb(value: unknown, field: FieldSpec): unknown {
  if (value === null || value === undefined) return field.type === 'list' ? [] : null;
  switch (field.storage) {
    case 'integer':
    case 'real':
      return typeof value === 'number' ? value : Number(value);
    case 'boolean':
      return value === true || value === 1 || value === '1' || value === 't';
    case 'json':
      return typeof value === 'string' ? JSON.parse(value) : value;
    case 'datetime':
      return value instanceof Date ? `${value.toISOString().slice(0, 19)}Z` : normalizeDbDatetime(text(value));
    case 'date':
      return value instanceof Date ? value.toISOString().slice(0, 10) : text(value).slice(0, 10);
    case 'time':
      return text(value).slice(0, 8);
    case 'blob':
      return Buffer.isBuffer(value)
        ? value.toString('base64')
        : value instanceof Uint8Array
          ? Buffer.from(value).toString('base64')
          : text(value);
    default:
      return text(value);
  }
}

function normalizeDbDatetime(text: string): string {
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(text)) return text;
  return parseDatetime(text) ?? text;
}

/**
 * The significant digits a decimal may have: what a JSON number (a float) carries exactly. A body's
 * decimal (http/writes.ts) and a decimal's filter value (http/query.ts) are held to it.
 */
export const EXACT_DIGITS = 15;

/**
 * A decimal rounded to `scale` digits after the point as it is written in decimal (what the client
 * sent), half away from zero, as PostgreSQL's `numeric` rounds: 1.005 → 1.01 and -2.675 → -2.68,
 * where the floats nearest them, 1.00499… and -2.67499…, would round down (`toFixed`). Every engine
 * then stores the same value.
 */
export function roundDecimal(value: number, scale: number): number {
  if (!Number.isFinite(value)) return value;
  // The shortest decimal text of the float is what JSON carried; moving its point is exact.
  const [digits, exponent = '0'] = String(Math.abs(value)).split('e');
  const shifted = Math.round(Number(`${digits}e${Number(exponent) + scale}`));
  if (!Number.isSafeInteger(shifted)) return value;
  return Math.sign(value) * Number(`${shifted}e-${scale}`) || 0;
}

/** A service value, as the database stores it. */
export function toDb(value: unknown, field: FieldSpec, dialect: Dialect): unknown {
  if (value === null || value === undefined) return null;
  switch (field.storage) {
    case 'boolean':
      return dialect === 'sqlite' ? (value ? 1 : 0) : Boolean(value);
    case 'json':
      return JSON.stringify(value);
    case 'real':
      return field.scale !== undefined && typeof value === 'number' ? roundDecimal(value, field.scale) : value;
    // Stored in one form so that text comparison (SQLite) and sorting agree with time order.
    case 'datetime':
      return typeof value === 'string' ? (parseDatetime(value) ?? value) : value;
    case 'time':
      return typeof value === 'string' ? (parseTime(value) ?? value) : value;
    case 'blob':
      return Buffer.from(text(value), 'base64');
    default:
      return value;
  }
}
