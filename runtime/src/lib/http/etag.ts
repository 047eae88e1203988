/**
 * ETag and If-Match on items: GET, PATCH and PUT of an item answer with an ETag, a digest of the
 * object as the caller sees it; a PATCH, PUT or DELETE that sends it back in If-Match is made only
 * if the object is still that, else 412 and nothing changes. Two clients that read, change and
 * write back one object then cannot overwrite each other's change unseen. A GET that sends it in
 * If-None-Match is answered 304 without the object while it is still that (RFC 9110 13.1.2); one
 * that sends another in If-Match, 412.
 *
 * The digest is of what the caller may see (never of fields hidden from them), without the URLs
 * (`_self`), which depend on the host the request came through.
 */
import { hash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { HttpError } from '../errors.js';

export function etagOf(object: Readonly<Record<string, unknown>>): string {
  const text = JSON.stringify(object, (key, value: unknown) => (key === '_self' ? undefined : value));
  // One-shot hash: half the cost of a Hash object on every GET of an item (measured: 3.2 µs vs 6–8 µs).
  return `"${hash('sha256', text, 'base64url').slice(0, 27)}"`;
}

/** Whether the request makes its change conditional on the object's ETag (If-Match or If-None-Match). */
export function hasPrecondition(request: FastifyRequest): boolean {
  return request.headers['if-match'] !== undefined || request.headers['if-none-match'] !== undefined;
}

/**
 * A write to a collection (a create, a PATCH, PUT or DELETE of many), or a merge into an
 * attribute (`POST /users/{u}/settings`), has no ETag a precondition could name: If-Match holds only as `*` (the collection is there), If-None-Match never as `*`
 * (RFC 9110 13.1.1, 13.1.2). A client that sent one believed itself protected by it: it was
 * ignored, and a probe's DELETE with a stale If-Match deleted.
 */
export function checkCollectionPreconditions(request: FastifyRequest): void {
  const match = request.headers['if-match'];
  if (match !== undefined && !tagsOf(match).includes('*'))
    throw new HttpError(412, 'what this writes has no ETag: If-Match can name no version of it (only * holds)');
  const noneMatch = request.headers['if-none-match'];
  if (noneMatch !== undefined && tagsOf(noneMatch).includes('*'))
    throw new HttpError(412, 'what this writes exists: If-None-Match: * does not hold');
}

function tagsOf(header: string): string[] {
  return header.split(',').map((tag) => tag.trim());
}

/**
 * Throws 412 unless If-Match names `current` (strong comparison: weak tags never match), or is `*`.
 * `current` undefined: the caller has seen no version of the object, and only `*` matches.
 */
export function checkIfMatch(request: FastifyRequest, current: string | undefined): void {
  checkIfNoneMatch(request, current);
  if (ifMatchHolds(request, current)) return;
  throw new HttpError(
    412,
    'the object has changed since you read it (If-Match names another ETag); read it again and reapply your change',
  );
}

/**
 * A GET of an item with If-Match: 412 unless it names the object's ETag or is `*`. RFC 9110
 * 13.1.1 has every method evaluate it; it was ignored, and a client that asked for the object only
 * as it last saw it got whatever it had become.
 */
export function checkReadIfMatch(request: FastifyRequest, current: string): void {
  if (ifMatchHolds(request, current)) return;
  throw new HttpError(412, 'the object is no longer the one If-Match names: read it without If-Match to see it now');
}

function ifMatchHolds(request: FastifyRequest, current: string | undefined): boolean {
  const header = request.headers['if-match'];
  if (header === undefined) return true;
  const tags = tagsOf(header);
  return tags.includes('*') || (current !== undefined && tags.includes(current));
}

/**
 * A write of an item with If-None-Match: 412 when it is `*` (the object exists) or names the
 * object's ETag (weak comparison), RFC 9110 13.1.2; it was ignored, and a PUT sent with the ETag
 * it meant not to overwrite replaced the object. `current` undefined: the caller has seen no
 * version of it, so only `*` is known to hold false.
 */
function checkIfNoneMatch(request: FastifyRequest, current: string | undefined): void {
  const header = request.headers['if-none-match'];
  if (header === undefined) return;
  const tags = tagsOf(header).map((tag) => tag.replace(/^W\//, ''));
  if (tags.includes('*'))
    throw new HttpError(412, 'the object exists: If-None-Match: * holds only where there is none');
  if (current !== undefined && tags.includes(current))
    throw new HttpError(412, 'the object is still the one If-None-Match names: nothing was changed');
}

/**
 * Whether If-None-Match names `current` (weak comparison, as RFC 9110 has it for GET: `W/` set
 * aside), or is `*`: the caller holds the object as it is, and is answered 304.
 */
export function notModified(request: FastifyRequest, current: string): boolean {
  const header = request.headers['if-none-match'];
  if (header === undefined) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return tagsOf(header).some((tag) => tag === '*' || opaque(tag) === current);
}
