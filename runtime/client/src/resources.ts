/**
 * The operations the generated accessors call, one per kind of route method: reads of a
 * collection (a page, every page, a count, a search), creating, changing many objects, and reads
 * and changes of one object, with its ETag. The generated client calls only those its routes
 * serve, each with the model's own types.
 */
import type { Answer, Http, StatusBody } from './http.js';

/** The answer of a change made by a caller who may not read the object: that it was made. */
export type { StatusBody };
import { listParameters, whereParameters, type ListQuery, type SearchQuery, type Selection } from './query.js';

/** A key in a URL: the service reads it as the key's type. */
export type Key = string | number;

/** A page of a collection read. */
export interface Page<T> {
  readonly total: number;
  readonly count: number;
  readonly start: number;
  /** Milliseconds. */
  readonly took: number;
  /** `_fields` as the query wrote it. */
  readonly fields: string;
  /** The URL of the next page, when there is one (its `_after` cursor is what `after` takes). */
  readonly next?: string;
  readonly data: T[];
}

export interface ReadOptions<F extends string> {
  /** The fields to answer with, or those to leave out (`-name`). */
  readonly fields?: readonly F[] | readonly `-${F}`[];
}

/** A field to answer with, or (`-name`) one to leave out: an item of a read's `fields`. */
export type FieldChoice<F extends string> = F | `-${F}`;

/** A read's options or query `Q`, its `fields` as the call writes them (`K`: what `Shown` reads). */
export type Choosing<Q, K> = Q & { readonly fields?: readonly K[] };

type Meta = '_type' | '_pk' | '_self';
type FieldOf<T> = Exclude<keyof T, Meta> & string;
/** `T` with any of its fields missing. */
type Unknown<T> = Partial<T> & Pick<T, Extract<Meta, keyof T>>;

/**
 * An object `T` as a read with `fields: K[]` answers it: only the fields named (and `_type`, `_pk`,
 * `_self`), all but those named `-name`, or, without `fields`, the whole object. Where the call's
 * `fields` is not known when it compiles (`K` is every field: a variable), any field may be missing.
 */
export type Shown<T, K> = [K] extends [never]
  ? T
  : [FieldOf<T>] extends [K]
    ? Unknown<T>
    : [`-${FieldOf<T>}`] extends [K]
      ? Unknown<T>
      : [Extract<K, `-${string}`>] extends [never]
        ? Pick<T, Extract<K | Meta, keyof T>>
        : [Exclude<K, `-${string}`>] extends [never]
          ? Omit<T, K extends `-${infer N}` ? N : never>
          : Unknown<T>;

export interface WriteOptions {
  /**
   * Make the change only if the object is still as it was read: its ETag (`etagOf(object)`), or
   * the object as `get` answered it. A change made meanwhile is an `ApiError` with status 412.
   */
  readonly ifMatch?: string | object;
}

// What the headers said of an object, kept beside it: the object stays the JSON the service sent.
const etags = new WeakMap<object, string>();
const locations = new WeakMap<object, string>();

/** The ETag the service answered an object with (`get`, `update`, `replace`), if it sent one. */
export function etagOf(object: object): string | undefined {
  return etags.get(object);
}

/** The `Location` the service answered a created or changed object with (its URL), if it sent one. */
export function locationOf(object: object): string | undefined {
  return locations.get(object);
}

/** `/posts/` + a key, encoded. */
export function keySegment(key: Key): string {
  return `/${encodeURIComponent(String(key))}`;
}

export async function list<T>(http: Http, path: string, query?: ListQuery<object, string>): Promise<Page<T>> {
  return (await http.send<Page<T>>('GET', path, { query: listParameters(query) })).body;
}

/**
 * Every object the query selects, page after page (`limit` is the size of each page), following
 * each page's `next` cursor: a deep page costs the service what the first one does, and no object
 * is skipped or repeated when others are added or removed meanwhile.
 */
export async function* all<T>(http: Http, path: string, query: ListQuery<object, string> = {}): AsyncGenerator<T> {
  let page = await list<T>(http, path, query);
  yield* page.data;
  const { page: _page, start: _start, ...rest } = query;
  for (let after = cursorOf(page); after !== undefined; after = cursorOf(page)) {
    page = await list<T>(http, path, { ...rest, after });
    yield* page.data;
  }
}

/** The `_after` cursor of a page's `next` link, if it has one. */
export function cursorOf(page: Page<unknown>): string | undefined {
  return page.next === undefined ? undefined : (new URL(page.next).searchParams.get('_after') ?? undefined);
}

export async function count(http: Http, path: string, selection: Selection<object> = {}): Promise<number> {
  const query = whereParameters(selection.where);
  query.set('_count', '');
  return (await http.send<{ count: number }>('GET', path, { query })).body.count;
}

/** A full-text search (`q`), best matches first unless `sort` says otherwise. */
export async function search<T>(
  http: Http,
  path: string,
  text: string,
  query: SearchQuery<object, string, string> = {},
): Promise<Page<T>> {
  const params = listParameters(query);
  params.set('q', text);
  if (query.in?.length) params.set('_search_fields', query.in.join(','));
  return (await http.send<Page<T>>('GET', path, { query: params })).body;
}

export async function create<T>(http: Http, path: string, body: object): Promise<T> {
  return remember(await http.send<T>('POST', path, { body }));
}

/** Changes every object `where` selects (all of them when it selects none); answers how many changed. */
export async function updateMany(
  http: Http,
  method: 'PATCH' | 'PUT',
  path: string,
  where: object,
  changes: object,
): Promise<number> {
  const answer = await http.send<StatusBody>(method, path, { query: whereParameters(where), body: changes });
  return answer.body.count ?? 0;
}

/** Deletes every object `where` selects (all of them when it selects none); answers how many went. */
export async function deleteMany(http: Http, path: string, where: object): Promise<number> {
  return (await http.send<StatusBody>('DELETE', path, { query: whereParameters(where) })).body.count ?? 0;
}

export async function get<T>(http: Http, path: string, options: ReadOptions<string> = {}): Promise<T> {
  const query = new URLSearchParams();
  if (options.fields?.length) query.set('_fields', options.fields.join(','));
  return remember(await http.send<T>('GET', path, { query }));
}

/** PATCH: only the fields to change. */
export async function update<T>(http: Http, path: string, changes: object, options: WriteOptions = {}): Promise<T> {
  return remember(await http.send<T>('PATCH', path, { body: changes, ...ifMatch(options) }));
}

/** PUT: the whole object (absent optional fields return to their defaults). */
export async function replace<T>(http: Http, path: string, body: object, options: WriteOptions = {}): Promise<T> {
  return remember(await http.send<T>('PUT', path, { body, ...ifMatch(options) }));
}

export async function remove(http: Http, path: string, options: WriteOptions = {}): Promise<StatusBody> {
  return (await http.send<StatusBody>('DELETE', path, ifMatch(options))).body;
}

/** A dict or list field's value (an attribute route). */
export async function attribute<V>(http: Http, path: string): Promise<V> {
  return (await http.send<V>('GET', path)).body;
}

/** Merges keys into a dict field, or adds items to a list field (`"-item"` removes one); answers the new value. */
export async function merge<V>(http: Http, path: string, value: object): Promise<V> {
  return (await http.send<V>('POST', path, { body: value })).body;
}

function remember<T>(answer: Answer<T>): T {
  const { body, headers } = answer;
  if (typeof body !== 'object' || body === null) return body;
  const etag = headers.get('etag');
  const location = headers.get('location');
  if (etag !== null) etags.set(body, etag);
  if (location !== null) locations.set(body, location);
  return body;
}

function ifMatch(options: WriteOptions): { ifMatch?: string } {
  const given = options.ifMatch;
  if (given === undefined || typeof given === 'string') return given === undefined ? {} : { ifMatch: given };
  const etag = etags.get(given);
  if (etag === undefined) throw new TypeError('ifMatch: no ETag is known for this object (read it with get first)');
  return { ifMatch: etag };
}
