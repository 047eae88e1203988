/**
 * ETag and If-Match on items: GET, PATCH and PUT of an item answer with an ETag, a digest of the
 * object as the caller sees it; a PATCH, PUT or DELETE that sends it back in If-Match is made only
 * if the object is still that, else 412 and nothing changes. Two clients that read, change and
 * write back one object then cannot overwrite each other's change unseen. A GET that sends it in
 * If-None-Match is answered 304 without the object while it is still that (RFC 9110 13.1.2).
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

/** Whether the request makes its change conditional on the object's ETag. */
export function hasIfMatch(request: FastifyRequest): boolean {
  return request.headers['if-match'] !== undefined;
}

/**
 * Throws 412 unless If-Match names `current` (strong comparison: weak tags never match), or is `*`.
 * `current` undefined: the caller has seen no version of the object, and only `*` matches.
 */
export function checkIfMatch(request: FastifyRequest, current: string | undefined): void {
  const header = request.headers['if-match'];
  if (header === undefined) return;
  const tags = header.split(',').map((tag) => tag.trim());
  if (tags.includes('*') || (current !== undefined && tags.includes(current))) return;
  throw new HttpError(
    412,
    'the object has changed since you read it (If-Match names another ETag); read it again and reapply your change',
  );
}

/**
 * Whether If-None-Match names `current` (weak comparison, as RFC 9110 has it for GET: `W/` set
 * aside), or is `*`: the caller holds the object as it is, and is answered 304.
 */
export function notModified(request: FastifyRequest, current: string): boolean {
  const header = request.headers['if-none-match'];
  if (header === undefined) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === current);
}
