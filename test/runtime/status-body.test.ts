/**
 * Every error body explains its status, whatever status a handler throws: a probe's handler threw
 * 402 (over budget) and its client got an empty `explanation`.
 */
import { expect, it } from 'vitest';
import { statusBody } from '../../runtime/src/lib/errors.js';

const STATUSES = [
  400, 401, 402, 403, 404, 405, 406, 408, 409, 410, 411, 412, 413, 414, 415, 422, 423, 424, 428, 429, 431, 451, 500,
  501, 502, 503, 504,
];

it.each(STATUSES)('explains %i', (status) => {
  const body = statusBody(status, 'm', 'http://x/');
  expect(body.explanation).not.toBe('');
  expect(body.title).not.toBe('Error');
});
