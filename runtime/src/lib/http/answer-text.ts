/**
 * The JSON text of an answer that was written once already, for its ETag (etag.ts `taggedJson`),
 * sent as it is: an item's GET, create and change stringify their object once, not once for the
 * tag and again for the wire. Kept only for an answer nothing changes after it is tagged (no after
 * handler of its action, which may change the response in place); any other answer, and every
 * answer of other kinds, is stringified as it is sent.
 */
const texts = new WeakMap<object, string>();

/** `answer` is sent as `json`, its text now: the caller changes it no more. */
export function keepText(answer: object, json: string): void {
  texts.set(answer, json);
}

/** The serializer of every route's answers. */
export function answerText(data: unknown): string {
  return (typeof data === 'object' && data !== null && texts.get(data)) || JSON.stringify(data);
}
